/* Fuzz target: Any conversions. One value of any kind (a hostile foreign
 * object and unknown plain type indices included) goes through every checked
 * accessor, the argument getters, xffi_any_copy and the kind name; a
 * reference model predicts which succeed and what they yield. */
#include <math.h>

#include "fuzz_common.h"

static void check_to_object(const xffi_any *v, int kind, int32_t type_index, const fuzz_value_pool *pool) {
  xffi_object *obj = (xffi_object *)0x1;
  int expect;
  if (kind == FK_NONE) {
    expect = 1;
  } else if (!fuzz_kind_is_object(kind)) {
    expect = 0;
  } else if (type_index == XFFI_TYPE_OBJECT || type_index == v->v_obj->type_index) {
    expect = 1;
  } else {
    expect = type_index == pool->base_type && kind == FK_DERIVED;
  }
  int status = xffi_any_to_object(&obj, v, type_index);
  if (expect) {
    FUZZ_CHECK(status == XFFI_OK);
    FUZZ_CHECK(obj == (kind == FK_NONE ? NULL : v->v_obj));
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    FUZZ_CHECK(obj == (xffi_object *)0x1);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_object");
  }
  /* The argument getter refuses None (a required object). */
  status = xffi_arg_to_object(&obj, v, 1, 0, type_index, "fuzz_fn");
  if (expect && kind != FK_NONE) {
    FUZZ_CHECK(status == XFFI_OK && obj == v->v_obj);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  }
}

/* A malformed value: every entry point raises ValueError "<fn>: <argument>
 * is malformed: ..." and writes nothing. */
static void expect_malformed(const char *fn) {
  xffi_object *err = xffi_error_move_raised();
  FUZZ_CHECK(err != NULL && xffi_error_is_kind(err, XFFI_KIND_VALUE));
  const char *msg = xffi_error_cell_of_unchecked(err)->message.data;
  size_t n = strlen(fn);
  FUZZ_CHECK(strncmp(msg, fn, n) == 0 && msg[n] == ':' && strstr(msg, " is malformed: ") != NULL);
  xffi_object_dec_ref(err);
}

static void check_malformed(const xffi_any *v) {
  int64_t i = 5;
  FUZZ_CHECK(xffi_any_to_int(&i, v) == XFFI_FAIL && i == 5);
  expect_malformed("xffi_any_to_int");
  int b = 5;
  FUZZ_CHECK(xffi_any_to_bool(&b, v) == XFFI_FAIL && b == 5);
  expect_malformed("xffi_any_to_bool");
  double f = 0.5;
  FUZZ_CHECK(xffi_any_to_float(&f, v) == XFFI_FAIL && f == 0.5);
  expect_malformed("xffi_any_to_float");
  void *p = (void *)0x2;
  FUZZ_CHECK(xffi_any_to_ptr(&p, v) == XFFI_FAIL && p == (void *)0x2);
  expect_malformed("xffi_any_to_ptr");
  DLDataType dt = xffi_dtype_make(1, 2, 3);
  FUZZ_CHECK(xffi_any_to_dtype(&dt, v) == XFFI_FAIL && dt.code == 1);
  expect_malformed("xffi_any_to_dtype");
  DLDevice dev = xffi_device_make(9, 9);
  FUZZ_CHECK(xffi_any_to_device(&dev, v) == XFFI_FAIL && dev.device_id == 9);
  expect_malformed("xffi_any_to_device");
  xffi_byte_array text = {NULL, 99};
  FUZZ_CHECK(xffi_any_to_str(&text, v) == XFFI_FAIL && text.size == 99);
  expect_malformed("xffi_any_to_str");
  FUZZ_CHECK(xffi_any_to_bytes(&text, v) == XFFI_FAIL && text.size == 99);
  expect_malformed("xffi_any_to_bytes");
  xffi_object *obj = (xffi_object *)0x1;
  FUZZ_CHECK(xffi_any_to_object(&obj, v, XFFI_TYPE_OBJECT) == XFFI_FAIL && obj == (xffi_object *)0x1);
  expect_malformed("xffi_any_to_object");
  FUZZ_CHECK(xffi_arg_to_int(&i, v, 1, 0, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_to_float(&f, v, 1, 0, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_to_bool(&b, v, 1, 0, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_to_str(&text, v, 1, 0, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_to_ptr(&p, v, 1, 0, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_to_object(&obj, v, 1, 0, XFFI_TYPE_OBJECT, "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  FUZZ_CHECK(xffi_arg_check_signature(v, 1, "*", "fuzz_fn") == XFFI_FAIL);
  expect_malformed("fuzz_fn");
  xffi_any copy = xffi_any_int(3);
  FUZZ_CHECK(xffi_any_copy(&copy, v) == XFFI_FAIL && copy.type_index == XFFI_TYPE_NONE);
  expect_malformed("xffi_any_copy");
  FUZZ_CHECK(xffi_any_kind_name(v) != NULL);
}

/* The bytes a string-like kind holds (its model value). */
static xffi_byte_array text_model(const xffi_any *v, int kind) {
  xffi_byte_array t = {NULL, 0};
  switch (kind) {
    case FK_RAW_STR:
      t.data = v->v_c_str;
      t.size = strlen(v->v_c_str);
      break;
    case FK_BYTE_ARRAY: t = *v->v_bytes_ptr; break;
    case FK_SMALL_STR:
    case FK_SMALL_BYTES:
      t.data = v->v_small;
      t.size = v->small_len;
      break;
    case FK_STRING:
    case FK_BYTES: t = xffi_string_cell_of_unchecked(v->v_obj); break;
    default: break;
  }
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  fuzz_value_pool pool;
  fuzz_pool_init(&pool);
  int kind;
  xffi_any v = fuzz_make_value(&in, &pool, &kind);
  const xffi_any before = v;
  if (kind == FK_MALFORMED) {
    check_malformed(&v);
    FUZZ_CHECK(memcmp(&before, &v, sizeof(v)) == 0);
    FUZZ_NOTHING_RAISED();
    fuzz_pool_release(&pool);
    return 0;
  }

  const char *name = xffi_any_kind_name(&v);
  FUZZ_CHECK(name != NULL && name[0] != '\0');

  int64_t i = 12345;
  int status = xffi_any_to_int(&i, &v);
  if (fuzz_kind_is_intlike(kind)) {
    FUZZ_CHECK(status == XFFI_OK && i == v.v_int64);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && i == 12345);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_int");
  }
  int b = 7;
  status = xffi_any_to_bool(&b, &v);
  if (fuzz_kind_is_intlike(kind)) {
    FUZZ_CHECK(status == XFFI_OK && b == (v.v_int64 != 0));
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && b == 7);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_bool");
  }
  double f = 0.5;
  status = xffi_any_to_float(&f, &v);
  if (kind == FK_FLOAT) {
    FUZZ_CHECK(status == XFFI_OK && memcmp(&f, &v.v_float64, sizeof(f)) == 0);
  } else if (fuzz_kind_is_intlike(kind)) {
    FUZZ_CHECK(status == XFFI_OK && f == (double)v.v_int64);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && f == 0.5);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_float");
  }
  void *p = (void *)0x2;
  status = xffi_any_to_ptr(&p, &v);
  if (kind == FK_PTR || kind == FK_NONE) {
    FUZZ_CHECK(status == XFFI_OK && p == (kind == FK_NONE ? NULL : v.v_ptr));
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && p == (void *)0x2);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_ptr");
  }
  DLDataType dt = xffi_dtype_make(1, 2, 3);
  status = xffi_any_to_dtype(&dt, &v);
  if (kind == FK_DTYPE) {
    FUZZ_CHECK(status == XFFI_OK && xffi_dtype_equal(dt, v.v_dtype));
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && dt.code == 1 && dt.bits == 2 && dt.lanes == 3);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_dtype");
  }
  DLDevice dev = xffi_device_make(9, 9);
  status = xffi_any_to_device(&dev, &v);
  if (kind == FK_DEVICE) {
    FUZZ_CHECK(status == XFFI_OK && dev.device_type == v.v_device.device_type && dev.device_id == v.v_device.device_id);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && dev.device_id == 9);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_device");
  }
  xffi_byte_array text = {NULL, 99};
  xffi_byte_array model = text_model(&v, kind);
  status = xffi_any_to_str(&text, &v);
  if (fuzz_kind_is_str(kind)) {
    FUZZ_CHECK(status == XFFI_OK && text.size == model.size && memcmp(text.data, model.data, model.size) == 0);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && text.size == 99);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_str");
  }
  text.size = 99;
  status = xffi_any_to_bytes(&text, &v);
  if (fuzz_kind_is_bytes(kind)) {
    FUZZ_CHECK(status == XFFI_OK && text.size == model.size && memcmp(text.data, model.data, model.size) == 0);
  } else {
    FUZZ_CHECK(status == XFFI_FAIL && text.size == 99);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_bytes");
  }

  /* The argument getters agree with the accessors. */
  status = xffi_arg_to_int(&i, &v, 1, 0, "fuzz_fn");
  FUZZ_CHECK((status == XFFI_OK) == fuzz_kind_is_intlike(kind));
  if (status) fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  status = xffi_arg_to_float(&f, &v, 1, 0, "fuzz_fn");
  FUZZ_CHECK((status == XFFI_OK) == (fuzz_kind_is_intlike(kind) || kind == FK_FLOAT));
  if (status) fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  status = xffi_arg_to_bool(&b, &v, 1, 0, "fuzz_fn");
  FUZZ_CHECK((status == XFFI_OK) == fuzz_kind_is_intlike(kind));
  if (status) fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  status = xffi_arg_to_str(&text, &v, 1, 0, "fuzz_fn");
  FUZZ_CHECK((status == XFFI_OK) == fuzz_kind_is_str(kind));
  if (status) fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  status = xffi_arg_to_ptr(&p, &v, 1, 0, "fuzz_fn");
  FUZZ_CHECK((status == XFFI_OK) == (kind == FK_PTR || kind == FK_NONE));
  if (status) fuzz_expect_raised(XFFI_KIND_TYPE, "fuzz_fn");
  /* An index past the end is "missing", whatever the value. */
  int32_t index = (int32_t)fuzz_i64(&in);
  if (index < 0 || index >= 1) {
    FUZZ_CHECK(xffi_arg_to_int(&i, &v, 1, index, "fuzz_fn") == XFFI_FAIL);
    xffi_object *err = xffi_error_move_raised();
    FUZZ_CHECK(err != NULL);
    xffi_object_dec_ref(err);
  }

  /* Object conversions against built-in, user, unregistered and arbitrary indices. */
  int32_t targets[] = {XFFI_TYPE_OBJECT, XFFI_TYPE_STRING, XFFI_TYPE_FUNCTION,
                       XFFI_TYPE_ARRAY,  pool.base_type,   pool.derived_type};
  for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); ++t) check_to_object(&v, kind, targets[t], &pool);
  int32_t bogus = (int32_t)fuzz_i64(&in);
  const xffi_type_info *info = NULL;
  if (bogus < XFFI_TYPE_STATIC_OBJECT_BEGIN || xffi_type_info_get(&info, bogus) != XFFI_OK) {
    xffi_error_set_raised(NULL);
    xffi_object *obj = NULL;
    FUZZ_CHECK(xffi_any_to_object(&obj, &v, bogus) == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_to_object");
    FUZZ_CHECK(xffi_arg_to_object(&obj, &v, 1, 0, bogus, "fuzz_fn") == XFFI_FAIL);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_arg_to_object");
  }

  /* An owned copy: same value, borrowed text copied, one more reference. */
  xffi_any copy = xffi_any_none();
  uint32_t count_before = fuzz_kind_is_object(kind) ? xffi_object_strong_count(v.v_obj) : 0;
  status = xffi_any_copy(&copy, &v);
  if (kind == FK_RVALUE) {
    FUZZ_CHECK(status == XFFI_FAIL && copy.type_index == XFFI_TYPE_NONE);
    fuzz_expect_raised(XFFI_KIND_TYPE, "xffi_any_copy");
  } else {
    FUZZ_CHECK(status == XFFI_OK);
    FUZZ_NOTHING_RAISED();
    if (kind == FK_RAW_STR || kind == FK_BYTE_ARRAY) {
      xffi_byte_array got;
      FUZZ_CHECK((kind == FK_RAW_STR ? xffi_any_to_str(&got, &copy) : xffi_any_to_bytes(&got, &copy)) == XFFI_OK);
      FUZZ_CHECK(got.size == model.size && memcmp(got.data, model.data, model.size) == 0);
      int32_t small = kind == FK_RAW_STR ? XFFI_TYPE_SMALL_STR : XFFI_TYPE_SMALL_BYTES;
      int32_t large = kind == FK_RAW_STR ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES;
      FUZZ_CHECK(copy.type_index == (model.size <= XFFI_SMALL_STR_MAX ? small : large));
      if (kind == FK_RAW_STR) { /* a String holds no NUL before its end */
        FUZZ_CHECK(got.data[got.size] == '\0');
      }
    } else {
      FUZZ_CHECK(memcmp(&copy, &v, sizeof(copy)) == 0);
      if (fuzz_kind_is_object(kind)) FUZZ_CHECK(xffi_object_strong_count(v.v_obj) == count_before + 1);
      if (kind == FK_FOREIGN) FUZZ_CHECK(xffi_object_strong_count(v.v_obj) == 2);
    }
    if (kind == FK_FOREIGN) {
      xffi_object_dec_ref(copy.v_obj); /* back to 1: its deleter must not run */
      copy = xffi_any_none();
    }
    xffi_any_release(&copy);
    FUZZ_CHECK(copy.type_index == XFFI_TYPE_NONE);
    if (fuzz_kind_is_object(kind)) FUZZ_CHECK(xffi_object_strong_count(v.v_obj) == count_before);
  }
  FUZZ_CHECK(memcmp(&before, &v, sizeof(v)) == 0); /* nothing wrote to the view */
  FUZZ_NOTHING_RAISED();
  fuzz_pool_release(&pool);
  return 0;
}
