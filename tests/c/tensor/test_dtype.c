/* dtype and device text: parse, print, round trips and every bad input. */
#include "test_util.h"

#include <xffi/dtype.h>

static void check_dtype(const char *text, uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType t = xffi_dtype_make(99, 99, 99);
  assert_int_equal(xffi_dtype_parse(&t, text), XFFI_OK);
  assert_int_equal(t.code, code);
  assert_int_equal(t.bits, bits);
  assert_int_equal(t.lanes, lanes);
  char buf[XFFI_DTYPE_STR_MAX];
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), t), XFFI_OK);
  assert_string_equal(buf, text);
}

static void test_parse_and_print_scalar_types(void **state) {
  (void)state;
  check_dtype("int8", kDLInt, 8, 1);
  check_dtype("int64", kDLInt, 64, 1);
  check_dtype("int4", kDLInt, 4, 1);
  check_dtype("uint1", kDLUInt, 1, 1);
  check_dtype("uint16", kDLUInt, 16, 1);
  check_dtype("float16", kDLFloat, 16, 1);
  check_dtype("float32", kDLFloat, 32, 1);
  check_dtype("float64", kDLFloat, 64, 1);
  check_dtype("bfloat16", kDLBfloat, 16, 1);
  check_dtype("complex64", kDLComplex, 64, 1);
  check_dtype("complex128", kDLComplex, 128, 1);
  check_dtype("bool", kDLBool, 8, 1);
  check_dtype("handle", kDLOpaqueHandle, 64, 1);
}

static void test_parse_and_print_narrow_floats(void **state) {
  (void)state;
  check_dtype("float8_e3m4", kDLFloat8_e3m4, 8, 1);
  check_dtype("float8_e4m3", kDLFloat8_e4m3, 8, 1);
  check_dtype("float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8, 1);
  check_dtype("float8_e4m3fn", kDLFloat8_e4m3fn, 8, 1);
  check_dtype("float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8, 1);
  check_dtype("float8_e5m2", kDLFloat8_e5m2, 8, 1);
  check_dtype("float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8, 1);
  check_dtype("float8_e8m0fnu", kDLFloat8_e8m0fnu, 8, 1);
  check_dtype("float6_e2m3fn", kDLFloat6_e2m3fn, 6, 1);
  check_dtype("float6_e3m2fn", kDLFloat6_e3m2fn, 6, 1);
  check_dtype("float4_e2m1fn", kDLFloat4_e2m1fn, 4, 1);
}

static void test_parse_and_print_vector_types(void **state) {
  (void)state;
  check_dtype("int8x4", kDLInt, 8, 4);
  check_dtype("float32x8", kDLFloat, 32, 8);
  check_dtype("boolx2", kDLBool, 8, 2);
  check_dtype("float8_e4m3fnx16", kDLFloat8_e4m3fn, 8, 16);
  check_dtype("float8_e4m3b11fnuzx65535", kDLFloat8_e4m3b11fnuz, 8, 65535);
  /* "x1" is accepted and printed without the suffix. */
  DLDataType t;
  assert_int_equal(xffi_dtype_parse(&t, "float32x1"), XFFI_OK);
  assert_true(xffi_dtype_equal(t, xffi_dtype_make(kDLFloat, 32, 1)));
}

static void check_bad_dtype(const char *text, const char *fragment) {
  DLDataType t = xffi_dtype_make(7, 7, 7);
  assert_int_equal(xffi_dtype_parse(&t, text), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment);
  assert_true(xffi_dtype_equal(t, xffi_dtype_make(7, 7, 7))); /* unchanged */
}

static void test_parse_rejects_bad_text(void **state) {
  (void)state;
  check_bad_dtype("", "xffi_dtype_parse: \"\" is not a data type");
  check_bad_dtype("float", "xffi_dtype_parse: \"float\" is not a data type");
  check_bad_dtype("Float32", "\"Float32\" is not a data type");
  check_bad_dtype("float31", "xffi_dtype_parse: \"float31\": float takes 16, 32 or 64 bits, got 31");
  check_bad_dtype("float8", "float takes 16, 32 or 64 bits, got 8");
  check_bad_dtype("int0", "int takes 1..64 bits, got 0");
  check_bad_dtype("int65", "int takes 1..64 bits, got 65");
  check_bad_dtype("int99999999999999999999", "int takes 1..64 bits, got 99999999999999999999");
  check_bad_dtype("bfloat32", "bfloat takes 16 bits, got 32");
  check_bad_dtype("complex16", "complex takes 32, 64 or 128 bits, got 16");
  check_bad_dtype("int8x0", "xffi_dtype_parse: \"int8x0\": lanes after 'x' must be 1..65535");
  check_bad_dtype("int8x65536", "lanes after 'x' must be 1..65535");
  check_bad_dtype("int8x", "lanes after 'x' must be 1..65535");
  check_bad_dtype("int8 ", "xffi_dtype_parse: \"int8 \": unexpected \" \" after the type");
  check_bad_dtype("int8x4y", "unexpected \"y\" after the type");
  check_bad_dtype("boolean", "\"boolean\" is not a data type");
}

static void test_parse_rejects_null(void **state) {
  (void)state;
  DLDataType t;
  assert_int_equal(xffi_dtype_parse(NULL, "int8"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_parse: out is NULL");
  assert_int_equal(xffi_dtype_parse(&t, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_parse: text is NULL");
}

static void test_print_rejects_bad_dtype_and_small_buffer(void **state) {
  (void)state;
  char buf[XFFI_DTYPE_STR_MAX];
  assert_int_equal(xffi_dtype_to_str(NULL, 8, xffi_dtype_make(kDLInt, 8, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: buf is NULL");
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), xffi_dtype_make(kDLInt, 0, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: dtype has 0 bits and 1 lanes, both must be non-zero");
  assert_string_equal(buf, "");
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), xffi_dtype_make(kDLInt, 8, 0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "dtype has 8 bits and 0 lanes");
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), xffi_dtype_make(200, 8, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: unknown type code 200");
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), xffi_dtype_make(kDLBool, 1, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: type code 6 (bool) has 8 bits, got 1");
  assert_int_equal(xffi_dtype_to_str(buf, sizeof(buf), xffi_dtype_make(kDLFloat, 12, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: float takes 16, 32 or 64 bits, got 12");
  /* "float32" needs 8 bytes: 7 is too small, 8 is enough. */
  char small[8];
  assert_int_equal(xffi_dtype_to_str(small, 7, xffi_dtype_make(kDLFloat, 32, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_dtype_to_str: buf_size 7 is too small, 8 bytes needed");
  assert_string_equal(small, "");
  assert_int_equal(xffi_dtype_to_str(small, 8, xffi_dtype_make(kDLFloat, 32, 1)), XFFI_OK);
  assert_string_equal(small, "float32");
  assert_int_equal(xffi_dtype_to_str(small, 0, xffi_dtype_make(kDLFloat, 32, 1)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "buf_size 0 is too small");
}

static void check_device(const char *text, int32_t type, int32_t id, const char *printed) {
  DLDevice d = xffi_device_make(99, 99);
  assert_int_equal(xffi_device_parse(&d, text), XFFI_OK);
  assert_int_equal(d.device_type, type);
  assert_int_equal(d.device_id, id);
  char buf[XFFI_DEVICE_STR_MAX];
  assert_int_equal(xffi_device_to_str(buf, sizeof(buf), d), XFFI_OK);
  assert_string_equal(buf, printed);
}

static void test_device_parse_and_print(void **state) {
  (void)state;
  check_device("cpu", kDLCPU, 0, "cpu:0");
  check_device("cpu:0", kDLCPU, 0, "cpu:0");
  check_device("cuda:1", kDLCUDA, 1, "cuda:1");
  check_device("cuda_host:0", kDLCUDAHost, 0, "cuda_host:0");
  check_device("opencl:2", kDLOpenCL, 2, "opencl:2");
  check_device("vulkan:0", kDLVulkan, 0, "vulkan:0");
  check_device("metal:0", kDLMetal, 0, "metal:0");
  check_device("vpi:0", kDLVPI, 0, "vpi:0");
  check_device("rocm:3", kDLROCM, 3, "rocm:3");
  check_device("rocm_host:0", kDLROCMHost, 0, "rocm_host:0");
  check_device("ext_dev:0", kDLExtDev, 0, "ext_dev:0");
  check_device("cuda_managed:0", kDLCUDAManaged, 0, "cuda_managed:0");
  check_device("oneapi:0", kDLOneAPI, 0, "oneapi:0");
  check_device("webgpu:0", kDLWebGPU, 0, "webgpu:0");
  check_device("hexagon:0", kDLHexagon, 0, "hexagon:0");
  check_device("maia:0", kDLMAIA, 0, "maia:0");
  check_device("trn:7", 18, 7, "trn:7");
  check_device("cuda:2147483647", kDLCUDA, 2147483647, "cuda:2147483647");
  assert_string_equal(xffi_device_type_name(kDLCPU), "cpu");
  assert_null(xffi_device_type_name(0));
  assert_null(xffi_device_type_name(5));
  assert_null(xffi_device_type_name(19));
  assert_null(xffi_device_type_name(-1));
}

static void check_bad_device(const char *text, const char *fragment) {
  DLDevice d = xffi_device_make(5, 5);
  assert_int_equal(xffi_device_parse(&d, text), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, fragment);
  assert_int_equal(d.device_type, 5);
  assert_int_equal(d.device_id, 5);
}

static void test_device_parse_rejects_bad_text(void **state) {
  (void)state;
  check_bad_device("gpu:0", "xffi_device_parse: \"gpu:0\": unknown device \"gpu\"");
  check_bad_device("", "unknown device \"\"");
  check_bad_device("CPU", "unknown device \"CPU\"");
  check_bad_device("cpu:", "xffi_device_parse: \"cpu:\": the id after ':' must be a number 0..2147483647");
  check_bad_device("cpu:-1", "the id after ':' must be a number");
  check_bad_device("cpu:1x", "the id after ':' must be a number");
  check_bad_device("cuda:2147483648", "the id after ':' must be a number");
  DLDevice d;
  assert_int_equal(xffi_device_parse(NULL, "cpu"), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_device_parse: out is NULL");
  assert_int_equal(xffi_device_parse(&d, NULL), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_device_parse: text is NULL");
}

static void test_device_print_rejects_bad_device(void **state) {
  (void)state;
  char buf[XFFI_DEVICE_STR_MAX];
  assert_int_equal(xffi_device_to_str(NULL, 8, xffi_device_make(kDLCPU, 0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_device_to_str: buf is NULL");
  assert_int_equal(xffi_device_to_str(buf, sizeof(buf), xffi_device_make(6, 0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_device_to_str: unknown device type 6");
  assert_int_equal(xffi_device_to_str(buf, 5, xffi_device_make(kDLCPU, 0)), XFFI_FAIL);
  assert_raised(XFFI_KIND_VALUE, "xffi_device_to_str: buf_size 5 is too small, 6 bytes needed");
  /* The longest device text fits in XFFI_DEVICE_STR_MAX. */
  assert_int_equal(xffi_device_to_str(buf, sizeof(buf), xffi_device_make(kDLCUDAManaged, INT32_MIN)), XFFI_OK);
  assert_string_equal(buf, "cuda_managed:-2147483648");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_and_print_scalar_types),
      cmocka_unit_test(test_parse_and_print_narrow_floats),
      cmocka_unit_test(test_parse_and_print_vector_types),
      cmocka_unit_test(test_parse_rejects_bad_text),
      cmocka_unit_test(test_parse_rejects_null),
      cmocka_unit_test(test_print_rejects_bad_dtype_and_small_buffer),
      cmocka_unit_test(test_device_parse_and_print),
      cmocka_unit_test(test_device_parse_rejects_bad_text),
      cmocka_unit_test(test_device_print_rejects_bad_device),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
