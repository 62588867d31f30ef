/* tests/c/runtime/test_alloc_failure.c: out of memory at every allocation of
 * representative operations.
 *
 * Each test sweeps n = 0, 1, 2...: the operation runs with its nth heap
 * allocation failing (failing_allocator_fail_after(n)), and must return
 * XFFI_FAIL with a MemoryError raised, leave its inputs exactly as they were
 * and keep no reference it took; the sweep ends when n is past the
 * operation's last allocation and it succeeds. A failing run must free every
 * block it allocated before the failure (the failing allocator's count of
 * live blocks is back where it was); LeakSanitizer in the sanitizer suite
 * checks the whole program too. */
#define _POSIX_C_SOURCE 200809L

#include "test_util.h"

#include "failing_allocator.h"

/* More than any operation here allocates: a sweep that reaches it is a bug. */
enum { SWEEP_LIMIT = 200 };

/* Live blocks when the current failing run was armed. */
static int64_t live_when_armed;

/* Arms failure injection for the nth allocation from now. */
static void fail_nth(int64_t n) {
  live_when_armed = failing_allocator_live();
  failing_allocator_fail_after(n);
}
static void disarm(void) { failing_allocator_fail_after(-1); }

/* The operation failed with a MemoryError; it may keep what its inputs own
 * (a container's grown buffer, the type table), and the caller checks for
 * leaks once the inputs are released (expect_no_leak). */
static void expect_out_of_memory_keeping(int rc, int64_t n) {
  if (rc != XFFI_FAIL) fail_msg("allocation %lld failed but the operation returned %d", (long long)n, rc);
  assert_raised(XFFI_KIND_MEMORY, "");
}

/* Asserts that the blocks live now are the ones live at live_before. */
static void expect_no_leak(int64_t live_before, int64_t n) {
  int64_t kept = failing_allocator_live() - live_before;
  if (kept != 0) fail_msg("allocation %lld failed and %lld blocks were not freed", (long long)n, (long long)kept);
}

/* The operation failed with a MemoryError and freed every block it took. */
static void expect_out_of_memory(int rc, int64_t n) {
  expect_out_of_memory_keeping(rc, n);
  expect_no_leak(live_when_armed, n);
}

/* Ends a sweep: the operation allocated at least min_allocations times. */
static void sweep_done(int64_t n, int64_t min_allocations) {
  if (n < min_allocations)
    fail_msg("the operation made %lld allocations, expected at least %lld", (long long)n, (long long)min_allocations);
  if (n >= SWEEP_LIMIT) fail_msg("the sweep did not end");
}

static const char *const long_texts[] = {"a string long enough to be a String object", "another long string value",
                                         "and a third one, also a String"};

static int64_t int_at(const xffi_object *seq, int64_t i) { return xffi_seq_items_unchecked(seq)[i].v_int64; }

/* Appends int i to an Array (*seq) or, given a List, i encoded as -1 - i. */
static int push_int(xffi_object **seq, int64_t i) {
  if (i < 0) {
    xffi_any v = xffi_any_int(-1 - i);
    return xffi_list_push(*seq, &v);
  }
  xffi_any v = xffi_any_int(i);
  return xffi_array_push(seq, &v);
}

/* ---- Containers ---- */

static void test_array_new_and_list_new_fail_cleanly_at_every_allocation(void **state) {
  (void)state;
  xffi_any items[5] = {xffi_any_int(1), xffi_any_c_str(long_texts[0]), xffi_any_c_str(long_texts[1]),
                       xffi_any_c_str("short"), xffi_any_c_str(long_texts[2])};
  for (int list = 0; list < 2; ++list) {
    int64_t n = 0;
    for (; n < SWEEP_LIMIT; ++n) {
      xffi_object *out = (xffi_object *)0x1;
      fail_nth(n);
      int rc = list ? xffi_list_new(&out, items, 5) : xffi_array_new(&out, items, 5);
      disarm();
      if (rc == XFFI_OK) {
        assert_int_equal(xffi_seq_size_unchecked(out), 5);
        xffi_object_dec_ref(out);
        break;
      }
      expect_out_of_memory(rc, n);
      assert_null(out);
    }
    sweep_done(n, 4); /* the container and three Strings */
  }
}

static void test_array_push_and_insert_unique_and_shared_fail_cleanly(void **state) {
  (void)state;
  xffi_any value = xffi_any_c_str(long_texts[0]);
  for (int shared = 0; shared < 2; ++shared) {
    for (int insert = 0; insert < 2; ++insert) {
      int64_t n = 0;
      for (; n < SWEEP_LIMIT; ++n) {
        xffi_object *array = NULL;
        assert_int_equal(xffi_array_new_with_capacity(&array, 4), XFFI_OK);
        for (int i = 0; i < 4; ++i) assert_int_equal(push_int(&array, i), XFFI_OK);
        xffi_object *before = array, *other = NULL;
        if (shared) {
          other = array;
          xffi_object_inc_ref(other);
        }
        fail_nth(n); /* the array is full: a push must grow it (or copy it, when shared) */
        int rc = insert ? xffi_array_insert(&array, 1, &value) : xffi_array_push(&array, &value);
        disarm();
        if (rc == XFFI_OK) {
          assert_int_equal(xffi_seq_size_unchecked(array), 5);
          if (shared) assert_ptr_not_equal(array, other);
        } else {
          expect_out_of_memory(rc, n);
          assert_ptr_equal(array, before);
          assert_int_equal(xffi_seq_size_unchecked(array), 4);
          for (int i = 0; i < 4; ++i) assert_int_equal(int_at(array, i), i);
          assert_int_equal(xffi_object_strong_count(array), shared ? 2 : 1);
        }
        if (shared) {
          assert_int_equal(xffi_seq_size_unchecked(other), 4); /* the other holder never sees a change */
          xffi_object_dec_ref(other);
        }
        xffi_object_dec_ref(array);
        if (rc == XFFI_OK) break;
      }
      sweep_done(n, 2);
    }
  }
}

static void test_list_push_insert_and_reserve_fail_cleanly(void **state) {
  (void)state;
  xffi_any value = xffi_any_c_str(long_texts[1]);
  for (int op = 0; op < 3; ++op) {
    int64_t n = 0;
    for (; n < SWEEP_LIMIT; ++n) {
      xffi_object *list = NULL;
      assert_int_equal(xffi_list_new(&list, NULL, 0), XFFI_OK);
      for (int i = 0; i < 4; ++i) assert_int_equal(push_int(&list, -1 - i), XFFI_OK);
      int64_t capacity = xffi_seq_cell_of_unchecked(list)->capacity;
      for (int i = 4; i < capacity; ++i) assert_int_equal(push_int(&list, -1 - i), XFFI_OK);
      int64_t size = xffi_seq_size_unchecked(list);
      fail_nth(n);
      int rc = op == 0   ? xffi_list_push(list, &value)
               : op == 1 ? xffi_list_insert(list, 0, &value)
                         : xffi_list_reserve(list, 1000);
      disarm();
      if (rc == XFFI_OK) {
        assert_int_equal(xffi_seq_size_unchecked(list), op == 2 ? size : size + 1);
      } else {
        expect_out_of_memory(rc, n);
        assert_int_equal(xffi_seq_size_unchecked(list), size);
        for (int64_t i = 0; i < size; ++i) assert_int_equal(int_at(list, i), i);
      }
      xffi_object_dec_ref(list);
      if (rc == XFFI_OK) break;
    }
    sweep_done(n, 1);
  }
}

/* Fills a Map or Dict with count int -> int entries. */
static void fill_map(xffi_object **map, int is_dict, int count) {
  for (int i = 0; i < count; ++i) {
    xffi_any k = xffi_any_int(i), v = xffi_any_int(i * 10);
    assert_int_equal(is_dict ? xffi_dict_set(*map, &k, &v) : xffi_map_set(map, &k, &v), XFFI_OK);
  }
}

static void check_map_untouched(const xffi_object *map, int count) {
  int64_t length = -1;
  assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
  assert_int_equal(length, count);
  for (int i = 0; i < count; ++i) {
    const xffi_any *found = NULL;
    xffi_any k = xffi_any_int(i);
    assert_int_equal(xffi_map_lookup(&found, map, &k), XFFI_OK);
    assert_non_null(found);
    assert_int_equal(found->v_int64, i * 10);
  }
  const xffi_any *found = (const xffi_any *)0x1;
  xffi_any k = xffi_any_c_str(long_texts[2]);
  assert_int_equal(xffi_map_lookup(&found, map, &k), XFFI_OK);
  assert_null(found);
}

static void test_map_and_dict_set_fail_cleanly_through_growth_and_copy(void **state) {
  (void)state;
  xffi_any key = xffi_any_c_str(long_texts[2]), value = xffi_any_c_str(long_texts[0]);
  /* Sizes around the growth points, for a unique Map, a shared Map and a Dict. */
  const int sizes[] = {0, 3, 12, 13, 25, 51};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    for (int mode = 0; mode < 3; ++mode) {
      int is_dict = mode == 2, shared = mode == 1;
      int64_t n = 0;
      for (; n < SWEEP_LIMIT; ++n) {
        xffi_object *map = NULL, *other = NULL;
        int64_t live_before = failing_allocator_live();
        assert_int_equal(is_dict ? xffi_dict_new(&map, NULL, NULL, 0) : xffi_map_new(&map, NULL, NULL, 0), XFFI_OK);
        fill_map(&map, is_dict, sizes[s]);
        xffi_object *before = map;
        if (shared) {
          other = map;
          xffi_object_inc_ref(other);
        }
        fail_nth(n);
        int rc = is_dict ? xffi_dict_set(map, &key, &value) : xffi_map_set(&map, &key, &value);
        disarm();
        if (rc == XFFI_OK) {
          int64_t length = 0;
          assert_int_equal(xffi_map_length(&length, map), XFFI_OK);
          assert_int_equal(length, sizes[s] + 1);
        } else {
          expect_out_of_memory_keeping(rc, n); /* the map may keep its grown tables */
          assert_ptr_equal(map, before);
          check_map_untouched(map, sizes[s]);
          assert_int_equal(xffi_object_strong_count(map), shared ? 2 : 1);
        }
        if (shared) {
          check_map_untouched(other, sizes[s]);
          xffi_object_dec_ref(other);
        }
        xffi_object_dec_ref(map);
        expect_no_leak(live_before, n);
        if (rc == XFFI_OK) break;
      }
      sweep_done(n, 2); /* the key and the value Strings at least */
    }
  }
}

static void test_map_new_from_and_copies_fail_cleanly(void **state) {
  (void)state;
  xffi_any keys[20], values[20];
  for (int i = 0; i < 20; ++i) {
    keys[i] = i % 2 ? xffi_any_int(i) : xffi_any_c_str(long_texts[i % 3]); /* repeated keys too */
    values[i] = xffi_any_c_str(long_texts[(i + 1) % 3]);
  }
  xffi_object *source = NULL;
  assert_int_equal(xffi_map_new(&source, keys, values, 20), XFFI_OK);
  for (int op = 0; op < 4; ++op) {
    int64_t n = 0;
    for (; n < SWEEP_LIMIT; ++n) {
      xffi_object *out = (xffi_object *)0x1;
      fail_nth(n);
      int rc = op == 0   ? xffi_map_new(&out, keys, values, 20)
               : op == 1 ? xffi_dict_new(&out, keys, values, 20)
               : op == 2 ? xffi_map_copy(&out, source)
                         : xffi_dict_copy(&out, source);
      disarm();
      if (rc == XFFI_OK) {
        int64_t length = 0;
        assert_int_equal(xffi_map_length(&length, out), XFFI_OK);
        assert_int_equal(length, 13); /* 10 ints and the 3 distinct strings */
        xffi_object_dec_ref(out);
        break;
      }
      expect_out_of_memory(rc, n);
      assert_null(out);
    }
    sweep_done(n, 1);
  }
  assert_int_equal(xffi_object_strong_count(source), 1);
  xffi_object_dec_ref(source);
}

/* ---- Tensors ---- */

static int deleter_calls;
static void count_deleter(DLManagedTensorVersioned *self) {
  (void)self;
  deleter_calls++;
}

static void test_tensor_import_export_and_new_fail_cleanly(void **state) {
  (void)state;
  static float data[24];
  int64_t shape[3] = {2, 3, 4};
  DLDataType f32 = xffi_dtype_make(kDLFloat, 32, 1);
  int64_t n = 0;
  for (; n < SWEEP_LIMIT; ++n) {
    DLManagedTensorVersioned m;
    memset(&m, 0, sizeof(m));
    m.version.major = 1;
    m.dl_tensor.data = data;
    m.dl_tensor.device = xffi_device_make(kDLCPU, 0);
    m.dl_tensor.ndim = 3;
    m.dl_tensor.shape = shape;
    m.dl_tensor.dtype = f32;
    m.deleter = count_deleter;
    DLManagedTensorVersioned copy = m;
    deleter_calls = 0;
    xffi_object *t = (xffi_object *)0x1;
    fail_nth(n);
    int rc = xffi_tensor_from_dlpack(&t, &m);
    disarm();
    if (rc == XFFI_OK) {
      xffi_object_dec_ref(t);
      assert_int_equal(deleter_calls, 1);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(t);
    assert_int_equal(deleter_calls, 0); /* the producer still owns its tensor */
    assert_memory_equal(&m, &copy, sizeof(m));
  }
  sweep_done(n, 1);

  for (int op = 0; op < 3; ++op) {
    xffi_object *tensor = NULL;
    assert_int_equal(xffi_tensor_new(&tensor, shape, 3, f32), XFFI_OK);
    for (n = 0; n < SWEEP_LIMIT; ++n) {
      void *out = (void *)0x1;
      fail_nth(n);
      int rc = op == 0   ? xffi_tensor_to_dlpack((DLManagedTensorVersioned **)&out, tensor)
               : op == 1 ? xffi_tensor_to_dlpack_legacy((DLManagedTensor **)&out, tensor)
                         : xffi_tensor_shape((xffi_object **)&out, tensor);
      disarm();
      if (rc == XFFI_OK) {
        if (op == 0)
          ((DLManagedTensorVersioned *)out)->deleter(out);
        else if (op == 1)
          ((DLManagedTensor *)out)->deleter(out);
        else
          xffi_object_dec_ref(out);
        break;
      }
      expect_out_of_memory(rc, n);
      assert_null(out);
      assert_int_equal(xffi_object_strong_count(tensor), 1); /* no reference kept for a failed export */
    }
    sweep_done(n, 1);
    assert_int_equal(xffi_object_strong_count(tensor), 1);
    xffi_object_dec_ref(tensor);
  }

  for (n = 0; n < SWEEP_LIMIT; ++n) {
    xffi_object *t = (xffi_object *)0x1;
    fail_nth(n);
    int rc = xffi_tensor_new(&t, shape, 3, f32);
    disarm();
    if (rc == XFFI_OK) {
      xffi_object_dec_ref(t);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(t);
  }
  sweep_done(n, 1);
}

/* ---- Errors ---- */

static void test_raising_and_making_errors_under_memory_failure(void **state) {
  (void)state;
  int64_t n = 0;
  for (; n < SWEEP_LIMIT; ++n) {
    fail_nth(n);
    int rc = xffi_error_raise(XFFI_KIND_VALUE, "my_fn: argument %d: expected %s, got %s", 2, "int", "str");
    disarm();
    assert_int_equal(rc, XFFI_FAIL); /* raising always fails... */
    xffi_object *err = xffi_error_move_raised();
    assert_non_null(err); /* ...and always leaves an error: the one asked for, or MemoryError */
    if (xffi_error_is_kind(err, XFFI_KIND_VALUE)) {
      assert_string_equal(xffi_error_cell_of_unchecked(err)->message.data, "my_fn: argument 2: expected int, got str");
      xffi_object_dec_ref(err);
      break;
    }
    assert_true(xffi_error_is_kind(err, XFFI_KIND_MEMORY));
    xffi_object_dec_ref(err);
  }
  sweep_done(n, 1);

  for (n = 0; n < SWEEP_LIMIT; ++n) {
    xffi_object *err = (xffi_object *)0x1;
    fail_nth(n);
    int rc = xffi_error_new(&err, "CustomError", "a message");
    disarm();
    if (rc == XFFI_OK) {
      assert_true(xffi_error_is_kind(err, "CustomError"));
      xffi_object_dec_ref(err);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(err);
  }
  sweep_done(n, 1);

  /* Appending a backtrace frame: the error keeps its old backtrace on failure. */
  xffi_object *err = NULL;
  assert_int_equal(xffi_error_new(&err, "ValueError", "with a backtrace"), XFFI_OK);
  assert_int_equal(xffi_error_append_frame(err, "first frame"), XFFI_OK);
  char before[256];
  snprintf(before, sizeof(before), "%s", xffi_error_cell_of_unchecked(err)->backtrace.data);
  for (n = 0; n < SWEEP_LIMIT; ++n) {
    fail_nth(n);
    int rc = xffi_error_append_frame(err, "second frame");
    disarm();
    if (rc == XFFI_OK) break;
    expect_out_of_memory(rc, n);
    assert_string_equal(xffi_error_cell_of_unchecked(err)->backtrace.data, before);
  }
  sweep_done(n, 1);
  assert_non_null(strstr(xffi_error_cell_of_unchecked(err)->backtrace.data, "second frame"));
  xffi_object_dec_ref(err);
}

/* ---- Types ---- */

static void test_type_register_fails_cleanly_and_leaves_the_key_free(void **state) {
  (void)state;
  char key[64];
  for (int round = 0; round < 3; ++round) { /* the third round makes the type table grow past 128 + 64 entries */
    int64_t n = 0;
    for (; n < SWEEP_LIMIT; ++n) {
      snprintf(key, sizeof(key), "alloc_failure.Type%d", round);
      int32_t before_count = xffi_type_count(), out = -3;
      fail_nth(n);
      int rc = xffi_type_register(&out, key, XFFI_TYPE_OBJECT);
      disarm();
      if (rc == XFFI_OK) {
        assert_int_equal(out, before_count);
        break;
      }
      /* The type table may have grown (tables live as long as the process). */
      expect_out_of_memory_keeping(rc, n);
      assert_int_equal(out, -3);
      assert_int_equal(xffi_type_count(), before_count);
      const xffi_type_info *info = NULL;
      assert_int_equal(xffi_type_info_get_by_key(&info, key), XFFI_FAIL);
      assert_raised(XFFI_KIND_KEY, key);
    }
    sweep_done(n, 1);
    /* Enough types to make the table grow on the next round's registration. */
    for (int i = 0; round == 1 && i < 70; ++i) {
      int32_t ignored;
      snprintf(key, sizeof(key), "alloc_failure.Filler%d", i);
      assert_int_equal(xffi_type_register(&ignored, key, XFFI_TYPE_OBJECT), XFFI_OK);
    }
  }
}

/* ---- Functions ---- */

static int finalized;
static void count_finalizer(void *resource) {
  (void)resource;
  finalized++;
}

/* Returns a long string (an allocation) built from its int argument. */
static int make_text(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  int64_t x;
  if (xffi_arg_to_int_inline(&x, args, num_args, 0, "make_text") != XFFI_OK) return XFFI_FAIL;
  char text[64];
  int len = snprintf(text, sizeof(text), "the number %lld, as a long string", (long long)x);
  return xffi_any_from_str(result, text, (size_t)len);
}

static void test_function_create_call_and_register_fail_cleanly(void **state) {
  (void)state;
  int resource = 0;
  int64_t n = 0;
  for (; n < SWEEP_LIMIT; ++n) {
    xffi_object *f = (xffi_object *)0x1;
    finalized = 0;
    fail_nth(n);
    int rc = xffi_function_new(&f, make_text, &resource, count_finalizer);
    disarm();
    if (rc == XFFI_OK) {
      xffi_object_dec_ref(f);
      assert_int_equal(finalized, 1);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(f);
    assert_int_equal(finalized, 0); /* the caller still owns the resource */
  }
  sweep_done(n, 1);

  xffi_object *f = NULL;
  assert_int_equal(xffi_function_new(&f, make_text, NULL, NULL), XFFI_OK);
  for (n = 0; n < SWEEP_LIMIT; ++n) {
    xffi_any result = xffi_any_int(5); /* must be reset to None */
    fail_nth(n);
    int rc = XFFI_CALL(f, &result, xffi_any_int(7));
    disarm();
    if (rc == XFFI_OK) {
      xffi_byte_array text;
      assert_int_equal(xffi_any_to_str(&text, &result), XFFI_OK);
      assert_string_equal(text.data, "the number 7, as a long string");
      xffi_any_release(&result);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_int_equal(result.type_index, XFFI_TYPE_NONE);
  }
  sweep_done(n, 1);

  /* Global registration: a failed one leaves the name free and takes no reference. */
  for (n = 0; n < SWEEP_LIMIT; ++n) {
    fail_nth(n);
    int rc = xffi_function_global_register("alloc_failure.make_text", f, 0);
    disarm();
    if (rc == XFFI_OK) break;
    expect_out_of_memory(rc, n);
    assert_int_equal(xffi_object_strong_count(f), 1);
    xffi_object *found = (xffi_object *)0x1;
    assert_int_equal(xffi_function_global_lookup(&found, "alloc_failure.make_text"), XFFI_OK);
    assert_null(found);
  }
  sweep_done(n, 1);
  assert_int_equal(xffi_object_strong_count(f), 2);
  /* Listing the names under failure writes nothing; the registry may keep
   * the Strings it made for names before the failure (it keeps each name's
   * String for later listings). */
  int64_t total = 0;
  assert_int_equal(xffi_function_global_names(NULL, &total, 0), XFFI_OK);
  xffi_object **names = calloc((size_t)total + 8, sizeof(*names));
  assert_non_null(names);
  for (n = 0; n < SWEEP_LIMIT; ++n) {
    int64_t count = 0;
    fail_nth(n);
    int rc = xffi_function_global_names(names, &count, total + 8);
    disarm();
    if (rc == XFFI_OK) {
      for (int64_t i = 0; i < count; ++i) xffi_object_dec_ref(names[i]);
      break;
    }
    expect_out_of_memory_keeping(rc, n);
    for (int64_t i = 0; i < total + 8; ++i) assert_null(names[i]);
  }
  sweep_done(n, 1);
  free(names);
  assert_int_equal(xffi_function_global_erase("alloc_failure.make_text"), XFFI_OK);
  assert_int_equal(xffi_object_strong_count(f), 1);
  xffi_object_dec_ref(f);
}

/* ---- Modules ---- */

#if XFFI_TEST_HAVE_SHARED_LIBRARIES
static void test_module_load_and_get_function_fail_cleanly(void **state) {
  (void)state;
#  ifdef XFFI_TEST_PLUGIN_TVM_ONLY
  int64_t n = 0;
  for (; n < SWEEP_LIMIT; ++n) {
    xffi_object *module = (xffi_object *)0x1;
    fail_nth(n);
    int rc = xffi_module_load(&module, XFFI_TEST_PLUGIN_TVM_ONLY);
    disarm();
    if (rc == XFFI_OK) {
      xffi_object_dec_ref(module);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(module);
  }
  sweep_done(n, 1);
  xffi_object *module = NULL;
  assert_int_equal(xffi_module_load(&module, XFFI_TEST_PLUGIN_TVM_ONLY), XFFI_OK);
  for (n = 0; n < SWEEP_LIMIT; ++n) {
    xffi_object *f = (xffi_object *)0x1;
    fail_nth(n);
    int rc = xffi_module_lookup_function(&f, module, "answer");
    disarm();
    if (rc == XFFI_OK) {
      xffi_any result = xffi_any_none();
      assert_int_equal(xffi_function_call(f, NULL, 0, &result), XFFI_OK);
      assert_int_equal(result.v_int64, 42);
      xffi_object_dec_ref(f);
      break;
    }
    expect_out_of_memory(rc, n);
    assert_null(f);
    assert_int_equal(xffi_object_strong_count(module), 1);
  }
  sweep_done(n, 1);
  assert_int_equal(xffi_object_strong_count(module), 1);
  xffi_object_dec_ref(module);
#  else
  fail_msg("XFFI_TEST_PLUGIN_TVM_ONLY is not defined (tests/cmake/alloc_failure.cmake sets it)");
#  endif
}
#endif

/* ---- The hooks themselves work per thread ---- */

#if XFFI_TEST_HAVE_THREADS
#  include <pthread.h>

static void *make_a_string_elsewhere(void *arg) {
  xffi_object **out = arg;
  uint64_t before = failing_allocator_attempts();
  if (xffi_string_from_c_str(out, "a string longer than the inline limit") != XFFI_OK) *out = NULL;
  /* this thread's count saw its own allocation only */
  if (failing_allocator_attempts() != before + 1) {
    xffi_object_dec_ref(*out);
    *out = NULL;
  }
  return NULL;
}

static void test_injection_and_count_are_per_thread(void **state) {
  (void)state;
  uint64_t before = failing_allocator_attempts();
  failing_allocator_fail_after(0);
  /* another thread allocates freely while this one would fail */
  xffi_object *other = NULL;
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, make_a_string_elsewhere, &other), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_non_null(other);
  xffi_object *mine = (xffi_object *)1;
  assert_int_equal(xffi_string_from_c_str(&mine, "a string longer than the inline limit"), XFFI_FAIL);
  assert_raised(XFFI_KIND_MEMORY, "");
  assert_null(mine);
  /* every later allocation of this thread fails too, until injection is off */
  assert_int_equal(xffi_string_from_c_str(&mine, "a string longer than the inline limit"), XFFI_FAIL);
  assert_raised(XFFI_KIND_MEMORY, "");
  failing_allocator_fail_after(-1);
  /* the two failed attempts were counted, the other thread's allocation was not */
  assert_int_equal(failing_allocator_attempts(), before + 2);
  assert_int_equal(xffi_string_from_c_str(&mine, "a string longer than the inline limit"), XFFI_OK);
  assert_int_equal(failing_allocator_attempts(), before + 3);
  xffi_object_dec_ref(mine);
  xffi_object_dec_ref(other);
}
#endif

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_array_new_and_list_new_fail_cleanly_at_every_allocation),
    cmocka_unit_test(test_array_push_and_insert_unique_and_shared_fail_cleanly),
    cmocka_unit_test(test_list_push_insert_and_reserve_fail_cleanly),
    cmocka_unit_test(test_map_and_dict_set_fail_cleanly_through_growth_and_copy),
    cmocka_unit_test(test_map_new_from_and_copies_fail_cleanly),
    cmocka_unit_test(test_tensor_import_export_and_new_fail_cleanly),
    cmocka_unit_test(test_raising_and_making_errors_under_memory_failure),
    cmocka_unit_test(test_type_register_fails_cleanly_and_leaves_the_key_free),
    cmocka_unit_test(test_function_create_call_and_register_fail_cleanly),
#if XFFI_TEST_HAVE_SHARED_LIBRARIES
    cmocka_unit_test(test_module_load_and_get_function_fail_cleanly),
#endif
#if XFFI_TEST_HAVE_THREADS
    cmocka_unit_test(test_injection_and_count_are_per_thread),
#endif
  };
  return cmocka_run_group_tests_name("alloc_failure", tests, NULL, NULL);
}
