/* tests/c/runtime/test_func_registry.c: the global function registry (single thread;
 * the concurrent test is test_func_threads.c). */
#include "test_util.h"

#include <xffi/function.h>
#include "failing_allocator.h"

static int return_resource(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)args, (void)num_args;
  *result = xffi_any_int((int64_t)(intptr_t)resource);
  return XFFI_OK;
}

static int finalized;
static void count_finalizer(void *resource) {
  (void)resource;
  ++finalized;
}

static xffi_object *make(intptr_t value) {
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, return_resource, (void *)value, count_finalizer), XFFI_OK);
  return f;
}

/* Looks name up, calls it and returns its result (-1 if missing). */
static int64_t call_global(const char *name) {
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_global_lookup(&f, name), XFFI_OK);
  if (!f) return -1;
  xffi_any result;
  assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_OK);
  xffi_object_dec_ref(f);
  return result.v_int64;
}

static int count_name(const char *name) {
  int64_t total = 0;
  assert_int_equal(xffi_function_global_names(NULL, &total, 0), XFFI_OK);
  xffi_object **names = calloc((size_t)total + 1, sizeof *names);
  int64_t again = 0;
  assert_int_equal(xffi_function_global_names(names, &again, total), XFFI_OK);
  assert_int_equal(again, total);
  int found = 0;
  for (int64_t i = 0; i < total; ++i) {
    xffi_byte_array b = xffi_string_cell_of_unchecked(names[i]);
    if (b.size == strlen(name) && memcmp(b.data, name, b.size) == 0) ++found;
    xffi_object_dec_ref(names[i]);
  }
  free(names);
  return found;
}

static void test_register_get_call_and_remove(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f = make(7);
  assert_int_equal(xffi_function_global_register("test.registry.seven", f, 0), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(f), 2);
  xffi_object_dec_ref(f);
  assert_int_equal(call_global("test.registry.seven"), 7);
  assert_int_equal(count_name("test.registry.seven"), 1);
  assert_int_equal(xffi_function_global_erase("test.registry.seven"), XFFI_OK);
  assert_int_equal(finalized, 1); /* the registry held the last reference */
  assert_int_equal(call_global("test.registry.seven"), -1);
  assert_int_equal(count_name("test.registry.seven"), 0);
}

static void test_missing_name_is_ok_with_null_not_an_error(void **state) {
  (void)state;
  xffi_object *f = (xffi_object *)1;
  assert_int_equal(xffi_function_global_lookup(&f, "test.registry.never.registered"), XFFI_OK);
  assert_null(f);
  assert_nothing_raised();
}

static void test_duplicate_fails_unless_override_which_releases_the_old(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *a = make(1), *b = make(2);
  assert_int_equal(xffi_function_global_register("test.registry.dup", a, 0), XFFI_OK);
  assert_int_equal(xffi_function_global_register("test.registry.dup", b, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_function_global_register: Global Function `test.registry.dup` is already registered "
                "(pass allow_override to replace it)");
  assert_int_equal(xffi_object_strong_count(b), 1);
  assert_int_equal(call_global("test.registry.dup"), 1);
  xffi_object_dec_ref(a);
  assert_int_equal(finalized, 0);
  assert_int_equal(xffi_function_global_register("test.registry.dup", b, 1), XFFI_OK);
  assert_int_equal(finalized, 1); /* a's last reference was the registry's */
  assert_int_equal(call_global("test.registry.dup"), 2);
  assert_int_equal(count_name("test.registry.dup"), 1);
  xffi_object_dec_ref(b);
  assert_int_equal(xffi_function_global_erase("test.registry.dup"), XFFI_OK);
  assert_int_equal(finalized, 2);
}

static void test_function_held_by_a_caller_survives_removal(void **state) {
  (void)state;
  finalized = 0;
  xffi_object *f = make(3), *held = NULL;
  assert_int_equal(xffi_function_global_register("test.registry.held", f, 0), XFFI_OK);
  xffi_object_dec_ref(f);
  assert_int_equal(xffi_function_global_lookup(&held, "test.registry.held"), XFFI_OK);
  assert_int_equal(xffi_function_global_erase("test.registry.held"), XFFI_OK);
  assert_int_equal(finalized, 0);
  xffi_any result;
  assert_int_equal(xffi_function_call(held, NULL, 0, &result), XFFI_OK);
  assert_int_equal(result.v_int64, 3);
  xffi_object_dec_ref(held);
  assert_int_equal(finalized, 1);
}

static void test_names_are_bytes_and_get_bytes_needs_no_nul(void **state) {
  (void)state;
  xffi_object *f = make(11), *got = NULL;
  assert_int_equal(xffi_function_global_register("test.registry.bytes", f, 0), XFFI_OK);
  const char buffer[] = "test.registry.bytesXYZ";
  xffi_byte_array name = {buffer, strlen("test.registry.bytes")};
  assert_int_equal(xffi_function_global_lookup_bytes(&got, name), XFFI_OK);
  assert_ptr_equal(got, f);
  xffi_object_dec_ref(got);
  name.size = 5;
  assert_int_equal(xffi_function_global_lookup_bytes(&got, name), XFFI_OK);
  assert_null(got);
  assert_int_equal(xffi_function_global_erase("test.registry.bytes"), XFFI_OK);
  xffi_object_dec_ref(f);
}

static void test_many_names_survive_growth_and_tombstone_sweeps(void **state) {
  (void)state;
  enum { N = 2000 };
  char name[64];
  for (int round = 0; round < 3; ++round) {
    for (intptr_t i = 0; i < N; ++i) {
      snprintf(name, sizeof name, "test.registry.many.%ld", (long)i);
      xffi_object *f = make(i);
      assert_int_equal(xffi_function_global_register(name, f, 0), XFFI_OK);
      xffi_object_dec_ref(f);
    }
    for (intptr_t i = 0; i < N; i += 2) {
      snprintf(name, sizeof name, "test.registry.many.%ld", (long)i);
      assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
    }
    for (intptr_t i = 0; i < N; ++i) {
      snprintf(name, sizeof name, "test.registry.many.%ld", (long)i);
      assert_int_equal(call_global(name), i % 2 ? i : -1);
    }
    for (intptr_t i = 1; i < N; i += 2) {
      snprintf(name, sizeof name, "test.registry.many.%ld", (long)i);
      assert_int_equal(xffi_function_global_erase(name), XFFI_OK);
    }
  }
  assert_int_equal(count_name("test.registry.many.1"), 0);
}

static void test_lookup_allocates_nothing(void **state) {
  (void)state;
  xffi_object *f = make(5), *got = NULL;
  assert_int_equal(xffi_function_global_register("test.registry.no_malloc", f, 0), XFFI_OK);
  assert_int_equal(xffi_function_global_lookup(&got, "test.registry.no_malloc"), XFFI_OK);
  xffi_object_dec_ref(got);
  uint64_t before = failing_allocator_attempts();
  for (int i = 0; i < 1000; ++i) {
    assert_int_equal(xffi_function_global_lookup(&got, "test.registry.no_malloc"), XFFI_OK);
    xffi_object_dec_ref(got);
    assert_int_equal(xffi_function_global_lookup(&got, "test.registry.missing"), XFFI_OK);
  }
  assert_int_equal(failing_allocator_attempts(), before);
  assert_int_equal(xffi_function_global_erase("test.registry.no_malloc"), XFFI_OK);
  xffi_object_dec_ref(f);
}

/* A finalizer that uses the registry: writers release references after
 * dropping their lock, so this must not deadlock. */
static void finalizer_using_registry(void *resource) {
  (void)resource;
  xffi_object *f = make(1);
  assert_int_equal(xffi_function_global_register("test.registry.from_finalizer", f, 1), XFFI_OK);
  xffi_object_dec_ref(f);
}

static void test_finalizer_may_use_the_registry(void **state) {
  (void)state;
  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, return_resource, NULL, finalizer_using_registry), XFFI_OK);
  assert_int_equal(xffi_function_global_register("test.registry.reentrant", f, 0), XFFI_OK);
  xffi_object_dec_ref(f);
  assert_int_equal(xffi_function_global_erase("test.registry.reentrant"), XFFI_OK);
  assert_int_equal(call_global("test.registry.from_finalizer"), 1);
  assert_int_equal(xffi_function_global_erase("test.registry.from_finalizer"), XFFI_OK);
}

static void test_out_of_memory_changes_nothing(void **state) {
  (void)state;
  xffi_object *f = make(9), *got = (xffi_object *)1;
  /* Fail each allocation of a registration in turn (entry, then the table
   * growth when the table must grow): until one succeeds. */
  char name[64];
  int registered = 0;
  int failures = 0;
  for (int64_t fail_at = 0; fail_at < 4 && !registered; ++fail_at) {
    snprintf(name, sizeof name, "test.registry.oom");
    failing_allocator_fail_after(fail_at);
    int status = xffi_function_global_register(name, f, 0);
    failing_allocator_fail_after(-1);
    if (status == XFFI_OK) {
      registered = 1;
      break;
    }
    assert_raised(XFFI_KIND_MEMORY, "");
    ++failures;
    assert_int_equal(xffi_object_strong_count(f), 1);
    assert_int_equal(xffi_function_global_lookup(&got, name), XFFI_OK);
    assert_null(got);
  }
  assert_true(registered);
  assert_int_equal(failures, 2); /* the entry, then the first table */
  /* list: the String for a long name needs an allocation. */
  int64_t count = 0;
  xffi_object *names[4096];
  failing_allocator_fail_after(0);
  int status = xffi_function_global_names(names, &count, 4096);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_FAIL);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_int_equal(xffi_function_global_erase("test.registry.oom"), XFFI_OK);
  xffi_object_dec_ref(f);
}

/* Asserts that the string value v holds exactly text, and releases it. */
static void assert_text(xffi_any *v, const char *text) {
  xffi_byte_array b;
  assert_int_equal(xffi_any_to_str(&b, v), XFFI_OK);
  assert_int_equal(b.size, strlen(text));
  assert_memory_equal(b.data, text, b.size);
  xffi_any_release(v);
}

static void test_register_with_info_keeps_copies_of_doc_and_metadata(void **state) {
  (void)state;
  xffi_object *f = make(3);
  char doc[] = "Returns three.";
  char metadata[] = "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}";
  const char *kept_metadata = "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"}\"}";
  assert_int_equal(xffi_function_global_register_with_info("test.registry.info", f, (xffi_byte_array){doc, strlen(doc)},
                                                           (xffi_byte_array){metadata, strlen(metadata)}, 0),
                   XFFI_OK);
  memset(doc, 'x', strlen(doc)); /* borrowed: the registry kept copies */
  memset(metadata, 'x', strlen(metadata));
  assert_int_equal(call_global("test.registry.info"), 3);
  xffi_any got_doc, got_metadata;
  int found = 0;
  xffi_byte_array name = {"test.registry.info", strlen("test.registry.info")};
  assert_int_equal(xffi_function_global_info(&got_doc, &got_metadata, &found, name), XFFI_OK);
  assert_int_equal(found, 1);
  assert_text(&got_doc, "Returns three.");
  assert_text(&got_metadata, kept_metadata);
  /* A taken name is refused as by xffi_function_global_register; empty texts are none. */
  xffi_byte_array none = {NULL, 0};
  assert_int_equal(xffi_function_global_register_with_info("test.registry.info", f, none, none, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_function_global_register_with_info: Global Function `test.registry.info` is "
                "already registered");
  assert_int_equal(xffi_function_global_register_with_info("test.registry.info", f, none, none, 1), XFFI_OK);
  assert_int_equal(xffi_function_global_info(&got_doc, &got_metadata, &found, name), XFFI_OK);
  assert_text(&got_doc, "");
  assert_text(&got_metadata, "");
  assert_int_equal(xffi_function_global_erase("test.registry.info"), XFFI_OK);
  xffi_object_dec_ref(f);
}

static void test_bad_input_is_reported(void **state) {
  (void)state;
  xffi_object *f = make(1), *s = NULL, *got = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "not a function"), XFFI_OK);
  assert_int_equal(xffi_function_global_register(NULL, f, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_register: name is NULL");
  assert_int_equal(xffi_function_global_register("", f, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_register: name is empty");
  assert_int_equal(xffi_function_global_register("test.registry.bad", NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_register: func is NULL");
  assert_int_equal(xffi_function_global_register("test.registry.bad", s, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_function_global_register: func expected ffi.Function, got ffi.String");
  xffi_byte_array none = {NULL, 0}, dangling = {NULL, 4};
  assert_int_equal(xffi_function_global_register_with_info(NULL, f, none, none, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_register_with_info: name is NULL");
  assert_int_equal(xffi_function_global_register_with_info("test.registry.bad", s, none, none, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_TYPE, "xffi_function_global_register_with_info: func expected ffi.Function, got ffi.String");
  assert_int_equal(xffi_function_global_register_with_info("test.registry.bad", f, dangling, none, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_register_with_info: doc.data is NULL but doc.size is 4");
  assert_int_equal(xffi_function_global_register_with_info("test.registry.bad", f, none, dangling, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE,
                "xffi_function_global_register_with_info: metadata.data is NULL but metadata.size is 4");
  assert_int_equal(count_name("test.registry.bad"), 0);
  assert_int_equal(xffi_function_global_lookup(NULL, "x"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_lookup: out is NULL");
  assert_int_equal(xffi_function_global_lookup(&got, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_lookup: name is NULL");
  xffi_byte_array bad = {NULL, 3};
  assert_int_equal(xffi_function_global_lookup_bytes(&got, bad), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_lookup_bytes: name.data is NULL but name.size is 3");
  assert_int_equal(xffi_function_global_erase(NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_erase: name is NULL");
  assert_int_equal(xffi_function_global_erase(""), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_erase: name is empty");
  assert_int_equal(xffi_function_global_erase("test.registry.absent"), XFFI_FAIL);
  assert_raised(XFFI_KIND_KEY, "xffi_function_global_erase: no global function named 'test.registry.absent'");
  int64_t count;
  assert_int_equal(xffi_function_global_names(NULL, NULL, 0), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_names: out_count is NULL");
  assert_int_equal(xffi_function_global_names(NULL, &count, 2), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_names: out_names is NULL but capacity is 2");
  xffi_object *one_name[1];
  assert_int_equal(xffi_function_global_names(one_name, &count, -1), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_function_global_names: capacity is negative (-1)");
  assert_int_equal(xffi_object_strong_count(f), 1);
  xffi_object_dec_ref(f);
  xffi_object_dec_ref(s);
}

/* Every name listed, as new references (*out_count of them; free the array). */
static xffi_object **list_names(int64_t *out_count) {
  int64_t total = 0;
  assert_int_equal(xffi_function_global_names(NULL, &total, 0), XFFI_OK);
  xffi_object **names = calloc((size_t)total + 1, sizeof *names);
  assert_non_null(names);
  assert_int_equal(xffi_function_global_names(names, out_count, total), XFFI_OK);
  assert_int_equal(*out_count, total);
  return names;
}

static xffi_object *find_listed(xffi_object **names, int64_t count, const char *name) {
  for (int64_t i = 0; i < count; ++i) {
    xffi_byte_array b = xffi_string_cell_of_unchecked(names[i]);
    if (b.size == strlen(name) && memcmp(b.data, name, b.size) == 0) return names[i];
  }
  return NULL;
}

static void release_names(xffi_object **names, int64_t count) {
  for (int64_t i = 0; i < count; ++i) xffi_object_dec_ref(names[i]);
  free(names);
}

/* Clients list the names again and again (the tvm_ffi package once per API
 * namespace): each name's String is made once and shared after that. */
static void test_listing_again_shares_each_names_string_and_allocates_nothing(void **state) {
  (void)state;
  xffi_object *f = make(3);
  assert_int_equal(xffi_function_global_register("test.registry.listed.twice", f, 0), XFFI_OK);
  int64_t first_count = 0, second_count = 0;
  xffi_object **first = list_names(&first_count);
  xffi_object *listed = find_listed(first, first_count, "test.registry.listed.twice");
  assert_non_null(listed);
  assert_int_equal(xffi_object_strong_count(listed), 2); /* the registry's and this list's */

  int64_t total = 0;
  assert_int_equal(xffi_function_global_names(NULL, &total, 0), XFFI_OK);
  xffi_object **second = calloc((size_t)total + 1, sizeof *second);
  assert_non_null(second);
  failing_allocator_fail_after(0); /* any allocation would now fail the listing */
  int status = xffi_function_global_names(second, &second_count, total);
  failing_allocator_fail_after(-1);
  assert_int_equal(status, XFFI_OK);
  assert_int_equal(second_count, first_count);
  for (int64_t i = 0; i < first_count; ++i) assert_ptr_equal(second[i], first[i]);
  assert_int_equal(xffi_object_strong_count(listed), 3);

  /* Removing the function releases the registry's String; the lists keep theirs. */
  assert_int_equal(xffi_function_global_erase("test.registry.listed.twice"), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(listed), 2);
  xffi_byte_array text = xffi_string_cell_of_unchecked(listed);
  assert_memory_equal(text.data, "test.registry.listed.twice", text.size);
  release_names(second, second_count);
  release_names(first, first_count);
  /* A name registered again is a String of its own, made when next listed. */
  assert_int_equal(xffi_function_global_register("test.registry.listed.twice", f, 0), XFFI_OK);
  first = list_names(&first_count);
  listed = find_listed(first, first_count, "test.registry.listed.twice");
  assert_non_null(listed);
  assert_int_equal(xffi_object_strong_count(listed), 2);
  release_names(first, first_count);
  assert_int_equal(xffi_function_global_erase("test.registry.listed.twice"), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(f), 1);
  xffi_object_dec_ref(f);
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      /* First: the registry's first table is then allocated inside it. */
      cmocka_unit_test(test_out_of_memory_changes_nothing),
      cmocka_unit_test(test_register_get_call_and_remove),
      cmocka_unit_test(test_missing_name_is_ok_with_null_not_an_error),
      cmocka_unit_test(test_duplicate_fails_unless_override_which_releases_the_old),
      cmocka_unit_test(test_function_held_by_a_caller_survives_removal),
      cmocka_unit_test(test_names_are_bytes_and_get_bytes_needs_no_nul),
      cmocka_unit_test(test_many_names_survive_growth_and_tombstone_sweeps),
      cmocka_unit_test(test_lookup_allocates_nothing),
      cmocka_unit_test(test_listing_again_shares_each_names_string_and_allocates_nothing),
      cmocka_unit_test(test_finalizer_may_use_the_registry),
      cmocka_unit_test(test_register_with_info_keeps_copies_of_doc_and_metadata),
      cmocka_unit_test(test_bad_input_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
