/* Objects: reference counts, deleter flags, weak references, and objects
 * owned by an allocator other than malloc. */
#include "test_util.h"

/* A test object that records what its deleter was asked to do. */
typedef struct counted {
  xffi_object header;
  int contents_destroyed;
  int memory_freed;
} counted;

static void counted_deleter(void *self, int flags) {
  counted *c = self;
  if (flags & XFFI_DELETE_CONTENTS) c->contents_destroyed++;
  if (flags & XFFI_DELETE_MEMORY) c->memory_freed++;
}

static void test_new_object_has_one_strong_and_one_weak(void **state) {
  (void)state;
  counted c;
  xffi_object_init(&c.header, XFFI_TYPE_OBJECT, counted_deleter);
  assert_int_equal(xffi_object_strong_count(&c.header), 1);
  assert_int_equal(xffi_object_weak_count(&c.header), 1);
  assert_int_equal(c.header.reserved, 0);
}

static void test_last_dec_ref_calls_deleter_once_with_both_flags(void **state) {
  (void)state;
  counted c = {0};
  xffi_object_init(&c.header, XFFI_TYPE_OBJECT, counted_deleter);
  xffi_object_inc_ref(&c.header);
  xffi_object_inc_ref_inline(&c.header);
  assert_int_equal(xffi_object_strong_count(&c.header), 3);
  xffi_object_dec_ref(&c.header);
  xffi_object_dec_ref_inline(&c.header);
  assert_int_equal(c.contents_destroyed, 0);
  xffi_object_dec_ref(&c.header);
  assert_int_equal(c.contents_destroyed, 1);
  assert_int_equal(c.memory_freed, 1);
}

static void test_null_ref_counting_is_ignored(void **state) {
  (void)state;
  xffi_object_inc_ref(NULL);
  xffi_object_dec_ref(NULL);
  xffi_object_inc_ref_inline(NULL);
  xffi_object_dec_ref_inline(NULL);
  xffi_weak_release(NULL);
  assert_nothing_raised();
}

static void test_weak_reference_outlives_contents_and_frees_memory_last(void **state) {
  (void)state;
  counted c = {0};
  xffi_object_init(&c.header, XFFI_TYPE_OBJECT, counted_deleter);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, &c.header), XFFI_OK);
  assert_int_equal(xffi_object_weak_count(&c.header), 2);

  xffi_object *locked = NULL;
  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_ptr_equal(locked, &c.header);
  assert_int_equal(xffi_object_strong_count(&c.header), 2);
  xffi_object_dec_ref(locked);

  xffi_object_dec_ref(&c.header); /* the last strong reference */
  assert_int_equal(c.contents_destroyed, 1);
  assert_int_equal(c.memory_freed, 0);

  assert_int_equal(xffi_weak_lock(&locked, weak), XFFI_OK);
  assert_null(locked);
  assert_nothing_raised();

  xffi_weak_release(weak);
  assert_int_equal(c.contents_destroyed, 1);
  assert_int_equal(c.memory_freed, 1);
}

static void test_weak_released_first_leaves_normal_deletion(void **state) {
  (void)state;
  counted c = {0};
  xffi_object_init(&c.header, XFFI_TYPE_OBJECT, counted_deleter);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, &c.header), XFFI_OK);
  xffi_weak_release(weak);
  assert_int_equal(c.memory_freed, 0);
  xffi_object_dec_ref(&c.header);
  assert_int_equal(c.contents_destroyed, 1);
  assert_int_equal(c.memory_freed, 1);
}

static void test_weak_bad_input_is_value_error(void **state) {
  (void)state;
  counted c = {0};
  xffi_object_init(&c.header, XFFI_TYPE_OBJECT, counted_deleter);
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(NULL, &c.header), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_weak_new: out is NULL");
  assert_int_equal(xffi_weak_new(&weak, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_weak_new: obj is NULL");
  assert_null(weak);
  xffi_object *out = &c.header;
  assert_int_equal(xffi_weak_lock(&out, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_weak_lock: weak is NULL");
  assert_ptr_equal(out, &c.header);
  assert_int_equal(xffi_weak_new(&weak, &c.header), XFFI_OK);
  assert_int_equal(xffi_weak_lock(NULL, weak), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_weak_lock: out is NULL");
  xffi_weak_release(weak);
  xffi_object_dec_ref(&c.header);
  assert_int_equal(c.memory_freed, 1);
}

/* ---- Any allocator may own an object: a fixed-size pool. ---- */

enum { POOL_SLOTS = 4 };
typedef struct pooled {
  xffi_object header;
  int64_t payload;
} pooled;
static pooled pool[POOL_SLOTS];
static int pool_in_use[POOL_SLOTS];
static int pool_contents_destroyed;

static void pool_deleter(void *self, int flags) {
  pooled *p = self;
  if (flags & XFFI_DELETE_CONTENTS) {
    pool_contents_destroyed++;
    p->payload = -1;
  }
  if (flags & XFFI_DELETE_MEMORY) pool_in_use[p - pool] = 0; /* back to the pool */
}

static xffi_object *pool_new(int64_t payload) {
  for (int i = 0; i < POOL_SLOTS; ++i) {
    if (!pool_in_use[i]) {
      pool_in_use[i] = 1;
      xffi_object_init(&pool[i].header, XFFI_TYPE_OBJECT, pool_deleter);
      pool[i].payload = payload;
      return &pool[i].header;
    }
  }
  return NULL;
}

static int pool_free_slots(void) {
  int n = 0;
  for (int i = 0; i < POOL_SLOTS; ++i) n += !pool_in_use[i];
  return n;
}

static void test_pool_allocated_objects_return_to_the_pool(void **state) {
  (void)state;
  xffi_object *objs[POOL_SLOTS];
  for (int i = 0; i < POOL_SLOTS; ++i) assert_non_null(objs[i] = pool_new(i));
  assert_null(pool_new(99)); /* the pool is exhausted */

  /* Held by an Any and a copy of it, the object lives until both let go. */
  xffi_any held = xffi_any_object_new_ref(objs[2]);
  xffi_any copy;
  assert_int_equal(xffi_any_copy(&copy, &held), XFFI_OK);
  xffi_object_dec_ref(objs[2]);
  xffi_any_release(&held);
  assert_int_equal(pool_free_slots(), 0);
  xffi_any_release(&copy);
  assert_int_equal(pool_free_slots(), 1);

  /* A weak reference keeps the slot, not the contents. */
  xffi_weak *weak = NULL;
  assert_int_equal(xffi_weak_new(&weak, objs[0]), XFFI_OK);
  xffi_object_dec_ref(objs[0]);
  assert_int_equal(pool_free_slots(), 1);
  xffi_weak_release(weak);
  assert_int_equal(pool_free_slots(), 2);

  xffi_object_dec_ref(objs[1]);
  xffi_object_dec_ref(objs[3]);
  assert_int_equal(pool_free_slots(), POOL_SLOTS);
  assert_int_equal(pool_contents_destroyed, POOL_SLOTS);
  assert_non_null(pool_new(7)); /* slots are reusable */
  xffi_object_dec_ref(&pool[0].header);
}

static void test_version_and_abi_version(void **state) {
  (void)state;
  assert_string_equal(xffi_version(), XFFI_VERSION_STRING);
  assert_int_equal(xffi_abi_version(), XFFI_ABI_VERSION);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_object_has_one_strong_and_one_weak),
      cmocka_unit_test(test_last_dec_ref_calls_deleter_once_with_both_flags),
      cmocka_unit_test(test_null_ref_counting_is_ignored),
      cmocka_unit_test(test_weak_reference_outlives_contents_and_frees_memory_last),
      cmocka_unit_test(test_weak_released_first_leaves_normal_deletion),
      cmocka_unit_test(test_weak_bad_input_is_value_error),
      cmocka_unit_test(test_pool_allocated_objects_return_to_the_pool),
      cmocka_unit_test(test_version_and_abi_version),
  };
  return cmocka_run_group_tests_name("object", tests, NULL, NULL);
}
