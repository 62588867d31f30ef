/* Structural equality and hashing under concurrency: the per-type field
 * plans (c/structural_plan.c) are built on first use by whichever thread
 * gets there, and rebuilt when a writer appends fields while readers
 * compare. A plan may lag a field just appended, never show a field wrongly;
 * once the writer is done every reader sees every field. Run under
 * ThreadSanitizer (label threads). */
#include "test_util.h"
#include "thread_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

enum { FIELDS = 200, READERS = 3 };

typedef struct wide {
  xffi_object header;
  int64_t values[FIELDS];
} wide;

static char names[FIELDS][24];
static int32_t type_index;
static atomic_int writer_done;
/* a and b equal field for field; c differs in the last field only. */
static xffi_any a, b, c;

static void add_int_field(int i) {
  xffi_field_info f;
  memset(&f, 0, sizeof(f));
  f.name.data = names[i];
  f.name.size = strlen(names[i]);
  f.size = f.alignment = 8;
  f.offset = (int64_t)offsetof(wide, values) + 8 * (int64_t)i;
  f.field_static_type_index = XFFI_TYPE_INT;
  CHECK(xffi_field_getter_for_type(&f.getter, XFFI_TYPE_INT) == XFFI_OK);
  CHECK(xffi_type_register_field(type_index, &f) == XFFI_OK);
}

static void *writer(void *arg) {
  (void)arg;
  for (int i = 1; i < FIELDS; ++i) add_int_field(i);
  atomic_store(&writer_done, 1);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  int done;
  do {
    done = atomic_load(&writer_done);
    int eq = 0;
    int64_t ha = 0, hb = 0;
    CHECK(xffi_structural_equal(&eq, &a, &b, 0) == XFFI_OK && eq);
    CHECK(xffi_structural_hash(&ha, &a, 0) == XFFI_OK);
    CHECK(xffi_structural_hash(&hb, &b, 0) == XFFI_OK);
    CHECK(xffi_structural_equal(&eq, &a, &c, 0) == XFFI_OK);
    if (done) CHECK(!eq && ha == hb); /* every field visible: c's last one differs */
  } while (!done);
  return NULL;
}

static void wide_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static xffi_any wide_new(int64_t last) {
  wide *w = calloc(1, sizeof(wide));
  assert_non_null(w);
  xffi_object_init(&w->header, type_index, wide_deleter);
  for (int i = 0; i < FIELDS; ++i) w->values[i] = i;
  w->values[FIELDS - 1] = last;
  return xffi_any_object(&w->header);
}

static void test_plans_while_fields_are_added(void **state) {
  (void)state;
  for (int i = 0; i < FIELDS; ++i) snprintf(names[i], sizeof(names[i]), "f%d", i);
  assert_int_equal(xffi_type_register(&type_index, "test.plan_threads.Growing", XFFI_TYPE_OBJECT), XFFI_OK);
  add_int_field(0);
  xffi_type_metadata m = {{NULL, 0}, NULL, (int32_t)sizeof(wide), XFFI_SEQ_HASH_TREE_NODE};
  assert_int_equal(xffi_type_register_metadata(type_index, &m), XFFI_OK);
  a = wide_new(FIELDS - 1);
  b = wide_new(FIELDS - 1);
  c = wide_new(-1);
  assert_int_equal(run_writer_beside_readers(writer, reader, READERS), 0);
  assert_int_equal(atomic_load(&failures), 0);
  xffi_any_release(&a);
  xffi_any_release(&b);
  xffi_any_release(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plans_while_fields_are_added),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
