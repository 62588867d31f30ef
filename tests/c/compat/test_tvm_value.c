/* tvm-ffi's value functions: owning views (rvalue references moved out, raw
 * strings and byte arrays owned), strings and bytes from byte arrays, and
 * dtype text with tvm-ffi's grammar, aliases and errors. */
#include "failing_allocator.h"

#include "test_util.h"

#include <xffi/tvm_ffi.h>

static xffi_byte_array text(const char *s) { return (xffi_byte_array){s, strlen(s)}; }

static void test_view_to_owned_objects_and_pods(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "a string of some length"), XFFI_OK);
  xffi_any view = xffi_any_object(s), out;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&view, &out), 0);
  assert_ptr_equal(out.v_obj, s);
  assert_int_equal(xffi_object_strong_count(s), 2); /* a new reference */
  xffi_any_release(&out);
  xffi_any pod = xffi_any_float(2.5);
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&pod, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_FLOAT);
  assert_true(out.v_float64 == 2.5);
  DLTensor t;
  memset(&t, 0, sizeof(t));
  xffi_any tv = xffi_any_dltensor(&t); /* copied bit for bit */
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&tv, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_DLTENSOR_PTR);
  assert_ptr_equal(out.v_dltensor, &t);
  xffi_object_dec_ref(s);
}

static void test_view_to_owned_strings_and_bytes(void **state) {
  (void)state;
  xffi_any raw = {0}, out;
  raw.type_index = XFFI_TYPE_RAW_STR;
  raw.v_c_str = "short";
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&raw, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_SMALL_STR);
  raw.v_c_str = "a raw string longer than seven";
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&raw, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_STRING);
  assert_string_equal(xffi_string_cell_of_unchecked(out.v_obj).data, "a raw string longer than seven");
  xffi_any_release(&out);
  xffi_byte_array bytes = {"\0\1\2\3\4\5\6\7\x08", 9};
  xffi_any ba = {0};
  ba.type_index = XFFI_TYPE_BYTE_ARRAY_PTR;
  ba.v_bytes_ptr = &bytes;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&ba, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_BYTES);
  assert_memory_equal(xffi_string_cell_of_unchecked(out.v_obj).data, bytes.data, 9);
  xffi_any_release(&out);
  /* In place, as tvm-ffi converts: view and out are one Any. */
  raw.v_c_str = "converted in place, long";
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&raw, &raw), 0);
  assert_int_equal(raw.type_index, XFFI_TYPE_STRING);
  xffi_any_release(&raw);
}

/* An object rvalue reference is moved out: the slot is cleared, no count changes. */
static void test_view_to_owned_moves_rvalue_refs(void **state) {
  (void)state;
  xffi_object *s = NULL;
  assert_int_equal(xffi_string_from_c_str(&s, "moved string, not copied"), XFFI_OK);
  xffi_object *slot = s;
  xffi_any rv = {0}, out;
  rv.type_index = XFFI_TYPE_OBJECT_RVALUE;
  rv.v_ptr = &slot;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&rv, &out), 0);
  assert_null(slot);
  assert_int_equal(out.type_index, XFFI_TYPE_STRING);
  assert_ptr_equal(out.v_obj, s);
  assert_int_equal(xffi_object_strong_count(s), 1);
  /* Moving twice is an error. */
  xffi_any again;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&rv, &again), -1);
  expect_error(XFFI_KIND_RUNTIME, "TVMFFIAnyViewToOwnedAny: RValueRef already moved");
  assert_int_equal(again.type_index, XFFI_TYPE_NONE);
  rv.v_ptr = NULL;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&rv, &again), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIAnyViewToOwnedAny: any_view is an object rvalue reference with a NULL slot");
  xffi_any_release(&out);
}

static void test_view_to_owned_bad_input(void **state) {
  (void)state;
  xffi_any v = xffi_any_int(1), out;
  assert_int_equal(TVMFFIAnyViewToOwnedAny(NULL, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIAnyViewToOwnedAny: any_view is NULL");
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&v, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIAnyViewToOwnedAny: out is NULL");
  xffi_any raw = {0};
  raw.type_index = XFFI_TYPE_RAW_STR; /* NULL string */
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&raw, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "malformed");
  xffi_any obj = {0};
  obj.type_index = XFFI_TYPE_STRING; /* NULL object */
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&obj, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "malformed");
}

static void test_view_to_owned_out_of_memory(void **state) {
  (void)state;
  xffi_any raw = {0}, out;
  raw.type_index = XFFI_TYPE_RAW_STR;
  raw.v_c_str = "a raw string longer than seven";
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFIAnyViewToOwnedAny(&raw, &out), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
}

static void test_string_and_bytes_from_byte_array(void **state) {
  (void)state;
  xffi_any out;
  xffi_byte_array small = text("seven!!"), big = text("eight!!!");
  assert_int_equal(TVMFFIStringFromByteArray(&small, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(out.small_len, 7);
  assert_int_equal(TVMFFIStringFromByteArray(&big, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_STRING);
  assert_int_equal(xffi_object_strong_count(out.v_obj), 1);
  xffi_any_release(&out);
  assert_int_equal(TVMFFIBytesFromByteArray(&small, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_SMALL_BYTES);
  assert_int_equal(TVMFFIBytesFromByteArray(&big, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_BYTES);
  xffi_any_release(&out);
  xffi_byte_array empty = {NULL, 0};
  assert_int_equal(TVMFFIStringFromByteArray(&empty, &out), 0);
  assert_int_equal(out.type_index, XFFI_TYPE_SMALL_STR);
  assert_int_equal(out.small_len, 0);
}

static void test_string_and_bytes_bad_input(void **state) {
  (void)state;
  xffi_any out = xffi_any_int(5);
  xffi_byte_array broken = {NULL, 9};
  assert_int_equal(TVMFFIStringFromByteArray(NULL, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIStringFromByteArray: input is NULL");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE); /* None first, as tvm-ffi */
  assert_int_equal(TVMFFIBytesFromByteArray(&broken, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBytesFromByteArray: input->data is NULL but input->size is 9");
  assert_int_equal(TVMFFIBytesFromByteArray(&broken, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIBytesFromByteArray: out is NULL");
  xffi_byte_array big = text("longer than seven bytes");
  failing_allocator_fail_after(0);
  assert_int_equal(TVMFFIStringFromByteArray(&big, &out), -1);
  failing_allocator_fail_after(-1);
  assert_raised(XFFI_KIND_MEMORY, "out of memory");
  assert_int_equal(out.type_index, XFFI_TYPE_NONE);
}

static DLDataType parse_ok(const char *s) {
  DLDataType d = {99, 99, 99};
  xffi_byte_array t = text(s);
  if (TVMFFIDataTypeFromString(&t, &d) != 0) fail_msg("TVMFFIDataTypeFromString(\"%s\") failed", s);
  return d;
}

static void assert_dtype(const char *s, int code, int bits, int lanes) {
  DLDataType d = parse_ok(s);
  if (d.code != code || d.bits != bits || d.lanes != (uint16_t)lanes)
    fail_msg("%s: got {%d, %d, %d}, expected {%d, %d, %d}", s, d.code, d.bits, d.lanes, code, bits, lanes);
}

static void test_dtype_from_string_grammar_and_aliases(void **state) {
  (void)state;
  assert_dtype("", kDLOpaqueHandle, 0, 0);
  assert_dtype("void", kDLOpaqueHandle, 0, 0);
  assert_dtype("int8", kDLInt, 8, 1);
  assert_dtype("i8", kDLInt, 8, 1);
  assert_dtype("int", kDLInt, 32, 1);
  assert_dtype("int0", kDLInt, 32, 1); /* zero bits keep the default */
  assert_dtype("u32", kDLUInt, 32, 1);
  assert_dtype("uint1", kDLUInt, 1, 1);
  assert_dtype("f16", kDLFloat, 16, 1);
  assert_dtype("float32x4", kDLFloat, 32, 4);
  assert_dtype("bf16", kDLBfloat, 16, 1);
  assert_dtype("bfloat", kDLBfloat, 16, 1);
  assert_dtype("bool", kDLBool, 8, 1);
  assert_dtype("boolx4", kDLBool, 8, 4);
  assert_dtype("handle", kDLOpaqueHandle, 64, 1);
  assert_dtype("fp8_e4m3fn", kDLFloat8_e4m3fn, 8, 1);
  assert_dtype("float8_e4m3fnx2", kDLFloat8_e4m3fn, 8, 2);
  assert_dtype("f8_e5m2", kDLFloat8_e5m2, 8, 1);
  assert_dtype("float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8, 1);
  assert_dtype("float8_e8m0fnu", kDLFloat8_e8m0fnu, 8, 1);
  assert_dtype("fp6_e3m2fn", kDLFloat6_e3m2fn, 6, 1);
  assert_dtype("fp4_e2m1fn", kDLFloat4_e2m1fn, 4, 1);
  assert_dtype("float4_e2m1fn_x2", kDLFloat4_e2m1fn, 4, 2);
  assert_dtype("float32xvscalex4", kDLFloat, 32, -4);
}

static void assert_parse_error(const char *s, const char *message) {
  DLDataType d = {1, 2, 3};
  xffi_byte_array t = text(s);
  assert_int_equal(TVMFFIDataTypeFromString(&t, &d), -1);
  expect_error(XFFI_KIND_VALUE, message);
  assert_int_equal(d.code, 1); /* untouched */
}

static void test_dtype_from_string_errors(void **state) {
  (void)state;
  assert_parse_error("int8x", "Invalid lanes specification in dtype 'int8x'. Lanes must be a positive integer.");
  assert_parse_error("int8x0", "Invalid lanes specification in dtype 'int8x0'. Lanes must be a positive integer.");
  assert_parse_error("int8x70000", "Lanes value 70000 is out of range for uint16_t in dtype 'int8x70000'");
  assert_parse_error("int300", "Bits value 300 is out of range for uint8_t in dtype 'int300'");
  assert_parse_error("int99999999999999999999",
                     "Integer value in dtype string '99999999999999999999' is out of range for uint32_t");
  assert_parse_error("complex64", "unknown dtype `complex64`");
  assert_parse_error("i8q", "unknown dtype `int8q`"); /* messages show the rewritten alias */
  assert_parse_error("fp8_e9m9", "unknown float8 type `float8_e9m9`");
  assert_parse_error("float6_x", "unknown float6 type `float6_x`");
  assert_parse_error("float4_e2m1", "unknown float4 type `float4_e2m1`");
  assert_parse_error("float8_e5m2y", "unknown float8 type `float8_e5m2y`");
  assert_parse_error("custom", "expected opening brace after 'custom' type incustom");
  assert_parse_error("custom[abc", "expected closing brace after 'custom' type incustom[abc");
  assert_parse_error("custom[abc]",
                     "custom dtype `custom[abc]` needs the global function dtype.get_custom_type_code, which is not "
                     "registered");
  DLDataType d;
  xffi_byte_array broken = {NULL, 3}, t = text("int8");
  assert_int_equal(TVMFFIDataTypeFromString(NULL, &d), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIDataTypeFromString: str is NULL");
  assert_int_equal(TVMFFIDataTypeFromString(&t, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIDataTypeFromString: out is NULL");
  assert_int_equal(TVMFFIDataTypeFromString(&broken, &d), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIDataTypeFromString: str->data is NULL but str->size is 3");
}

static void assert_to_string(DLDataType d, const char *expected) {
  xffi_any out = xffi_any_none();
  assert_int_equal(TVMFFIDataTypeToString(&d, &out), 0);
  xffi_byte_array s;
  assert_int_equal(xffi_any_to_str(&s, &out), XFFI_OK);
  if (s.size != strlen(expected) || memcmp(s.data, expected, s.size) != 0)
    fail_msg("{%d,%d,%d}: got \"%.*s\", expected \"%s\"", d.code, d.bits, d.lanes, (int)s.size, s.data, expected);
  xffi_any_release(&out);
}

static void test_dtype_to_string(void **state) {
  (void)state;
  assert_to_string((DLDataType){kDLInt, 8, 1}, "int8");
  assert_to_string((DLDataType){kDLUInt, 32, 4}, "uint32x4");
  assert_to_string((DLDataType){kDLFloat, 16, 1}, "float16");
  assert_to_string((DLDataType){kDLBfloat, 16, 1}, "bfloat16");
  assert_to_string((DLDataType){kDLBool, 8, 1}, "bool");
  assert_to_string((DLDataType){kDLBool, 8, 4}, "boolx4");
  assert_to_string((DLDataType){kDLBool, 1, 1}, "bool1");
  assert_to_string((DLDataType){kDLOpaqueHandle, 0, 0}, "");
  assert_to_string((DLDataType){kDLOpaqueHandle, 64, 1}, "handle");
  assert_to_string((DLDataType){kDLFloat8_e4m3fn, 8, 1}, "float8_e4m3fn");
  assert_to_string((DLDataType){kDLFloat4_e2m1fn, 4, 2}, "float4_e2m1fnx2");
  assert_to_string((DLDataType){kDLFloat, 32, (uint16_t)-4}, "float32xvscalex4");
  /* Round trip of every name parsed above. */
  const char *names[] = {"int8", "uint1", "float64x2", "float8_e5m2fnuz", "float6_e2m3fn", "bfloat16x8"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) assert_to_string(parse_ok(names[i]), names[i]);
}

static void test_dtype_to_string_errors(void **state) {
  (void)state;
  xffi_any out;
  DLDataType complex64 = {kDLComplex, 64, 1}, unknown = {100, 8, 1}, custom = {130, 8, 1};
  assert_int_equal(TVMFFIDataTypeToString(&complex64, &out), -1);
  expect_error(XFFI_KIND_VALUE, "DLDataType contains unknown type_code=5"); /* as tvm-ffi */
  assert_int_equal(TVMFFIDataTypeToString(&unknown, &out), -1);
  expect_error(XFFI_KIND_VALUE, "DLDataType contains unknown type_code=100");
  assert_int_equal(TVMFFIDataTypeToString(&custom, &out), -1);
  assert_raised(XFFI_KIND_VALUE, "dtype.get_custom_type_name");
  assert_int_equal(TVMFFIDataTypeToString(NULL, &out), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIDataTypeToString: dtype is NULL");
  assert_int_equal(TVMFFIDataTypeToString(&unknown, NULL), -1);
  expect_error(XFFI_KIND_VALUE, "TVMFFIDataTypeToString: out is NULL");
  DLDataType wide = {kDLFloat, 32, 4};
  for (int n = 0;; ++n) {
    uint64_t live = failing_successes - failing_frees;
    failing_allocator_fail_after(n);
    int status = TVMFFIDataTypeToString(&wide, &out);
    failing_allocator_fail_after(-1);
    if (status == 0) {
      xffi_any_release(&out);
      break;
    }
    assert_raised(XFFI_KIND_MEMORY, "out of memory");
    assert_int_equal(failing_successes - failing_frees, live);
  }
}

/* Custom type names come from the globals tvm-ffi uses. */
static int custom_code(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource;
  xffi_byte_array name;
  if (num_args != 1 || xffi_any_to_str(&name, &args[0]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(name.size == 4 && memcmp(name.data, "posit", 4) == 0 ? 131 : 200);
  return XFFI_OK;
}
static int custom_name(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args;
  return xffi_any_from_str(result, "posi", 4);
}

static void test_dtype_custom_types(void **state) {
  (void)state;
  xffi_object *code = NULL, *name = NULL;
  assert_int_equal(xffi_function_new(&code, custom_code, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_new(&name, custom_name, NULL, NULL), XFFI_OK);
  assert_int_equal(xffi_function_global_register("dtype.get_custom_type_code", code, 1), XFFI_OK);
  assert_int_equal(xffi_function_global_register("dtype.get_custom_type_name", name, 1), XFFI_OK);
  assert_dtype("custom[posi]16", 131, 16, 1);
  assert_dtype("custom[posi]", 131, 32, 1);
  assert_to_string((DLDataType){131, 16, 2}, "custom[posi]x2"); /* tvm-ffi prints no bits for custom types */
  xffi_object_dec_ref(code);
  xffi_object_dec_ref(name);
  xffi_function_global_erase("dtype.get_custom_type_code");
  xffi_function_global_erase("dtype.get_custom_type_name");
}

int main(void) {
  failing_allocator_install();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_view_to_owned_objects_and_pods),
      cmocka_unit_test(test_view_to_owned_strings_and_bytes),
      cmocka_unit_test(test_view_to_owned_moves_rvalue_refs),
      cmocka_unit_test(test_view_to_owned_bad_input),
      cmocka_unit_test(test_view_to_owned_out_of_memory),
      cmocka_unit_test(test_string_and_bytes_from_byte_array),
      cmocka_unit_test(test_string_and_bytes_bad_input),
      cmocka_unit_test(test_dtype_from_string_grammar_and_aliases),
      cmocka_unit_test(test_dtype_from_string_errors),
      cmocka_unit_test(test_dtype_to_string),
      cmocka_unit_test(test_dtype_to_string_errors),
      cmocka_unit_test(test_dtype_custom_types),
  };
  return cmocka_run_group_tests_name("tvm_value", tests, NULL, NULL);
}
