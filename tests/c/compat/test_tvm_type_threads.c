/* tvm-ffi's type entry points under 6 threads: children taken from one
 * parent's reserved range and from the overflow at once, shared keys,
 * fields appended to one type and attributes to one column while other
 * threads read them with no lock (as C++ inline code and Python do). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "test_util.h"
#include "thread_check.h"

#include <xffi/reflection.h>
#include <xffi/tvm_ffi.h>

enum { THREADS = 6, PER_THREAD = 400, SLOTS = 100, FIELDS = 50 };

static int32_t parent, field_owner;
static int32_t child[THREADS][PER_THREAD];
static int32_t shared[THREADS][PER_THREAD];
static pthread_barrier_t go;

static xffi_byte_array bytes_of(const char *s) {
  xffi_byte_array b = {s, strlen(s)};
  return b;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  char key[64], field[32];
  xffi_byte_array column = bytes_of("thread.attr");
  pthread_barrier_wait(&go);
  for (int i = 0; i < PER_THREAD; ++i) {
    snprintf(key, sizeof(key), "thread.child.%d.%d", id, i);
    xffi_byte_array k = bytes_of(key);
    child[id][i] = TVMFFITypeGetOrAllocIndex(&k, -1, 2, 0, 1, parent);
    CHECK(child[id][i] > parent);
    snprintf(key, sizeof(key), "thread.shared.%d", i);
    k = bytes_of(key);
    shared[id][i] = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
    CHECK(shared[id][i] >= XFFI_TYPE_DYNAMIC_BEGIN);
    /* Each thread owns its children's attributes in one shared column. */
    xffi_any v = xffi_any_int(child[id][i]);
    CHECK(TVMFFITypeRegisterAttr(child[id][i], &column, &v) == 0);
    const xffi_type_attr_column *c = TVMFFIGetTypeAttrColumn(&column);
    CHECK(c != NULL);
    if (c) {
      /* size first, then data: a reader that sees the size sees data that long. */
      int32_t size = __atomic_load_n(&c->size, __ATOMIC_ACQUIRE);
      const xffi_any *data = __atomic_load_n(&c->data, __ATOMIC_ACQUIRE);
      CHECK(size > child[id][i]);
      for (int j = 0; j <= i; j += 37) CHECK(data[child[id][j]].v_int64 == child[id][j]);
    }
    const xffi_type_info *info = TVMFFIGetTypeInfo(child[id][i]);
    CHECK(info && info->type_depth == 2 && info->type_ancestors[1]->type_index == parent);
    if (i < FIELDS) {
      snprintf(field, sizeof(field), "f.%d.%d", id, i);
      xffi_field_info f;
      memset(&f, 0, sizeof(f));
      f.name = bytes_of(field);
      f.size = f.alignment = 8; /* an int past the header, one slot per field: records may not overlap */
      f.offset = 24 + 8 * ((int64_t)id * FIELDS + i);
      f.field_static_type_index = XFFI_TYPE_INT;
      CHECK(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT) == XFFI_OK);
      CHECK(TVMFFITypeRegisterField(field_owner, &f) == 0);
    }
    const xffi_type_info *owner = TVMFFIGetTypeInfo(field_owner);
    int32_t n = __atomic_load_n(&owner->num_fields, __ATOMIC_ACQUIRE);
    const xffi_field_info *fields = __atomic_load_n(&owner->fields, __ATOMIC_ACQUIRE);
    for (int32_t j = 0; j < n; ++j) CHECK(fields[j].name.size >= 5 && fields[j].name.data[0] == 'f');
  }
  return NULL;
}

static void test_concurrent_allocation_fields_and_attributes(void **state) {
  (void)state;
  xffi_byte_array k = bytes_of("thread.Parent");
  parent = TVMFFITypeGetOrAllocIndex(&k, -1, 1, SLOTS, 1, XFFI_TYPE_OBJECT);
  assert_true(parent >= XFFI_TYPE_DYNAMIC_BEGIN);
  k = bytes_of("thread.FieldOwner");
  field_owner = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, XFFI_TYPE_OBJECT);
  pthread_t threads[THREADS];
  pthread_barrier_init(&go, NULL, THREADS);
  for (int t = 0; t < THREADS; ++t) assert_int_equal(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t), 0);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&go);
  assert_int_equal(atomic_load(&failures), 0);
  /* Every child got its own index: SLOTS of them inside the parent's range. */
  unsigned char *seen = calloc((size_t)xffi_type_count(), 1);
  int in_range = 0;
  for (int t = 0; t < THREADS; ++t)
    for (int i = 0; i < PER_THREAD; ++i) {
      assert_false(seen[child[t][i]]);
      seen[child[t][i]] = 1;
      in_range += child[t][i] <= parent + SLOTS;
      assert_int_equal(shared[t][i], shared[0][i]);
    }
  free(seen);
  assert_int_equal(in_range, SLOTS);
  assert_int_equal(TVMFFIGetTypeInfo(field_owner)->num_fields, THREADS * FIELDS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_allocation_fields_and_attributes),
  };
  return cmocka_run_group_tests_name("tvm_type_threads", tests, NULL, NULL);
}
