/* Weak stand-ins for the TVMFFI* functions of other areas (values,
 * functions, environment) that the wheel's libtvm_ffi_testing.so imports,
 * just enough for its static initialisers. Weak: once the library defines
 * one, the library's wins in the link. Test-only. */
#include <string.h>
#include <xffi/reflection.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

#define STAND_IN __attribute__((weak, visibility("default")))

STAND_IN const xffi_byte_array *TVMFFIBacktrace(const char *file, int line, const char *func, int cross);
STAND_IN int TVMFFIDataTypeFromString(const xffi_byte_array *text, DLDataType *out);
STAND_IN int TVMFFIEnvCheckSignals(void);
STAND_IN int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol);
STAND_IN void TVMFFIErrorMoveFromRaised(void **result);
STAND_IN void TVMFFIErrorSetRaised(void *error);
STAND_IN int TVMFFIFunctionGetGlobal(const xffi_byte_array *name, void **out);
STAND_IN int TVMFFIFunctionSetGlobalFromMethodInfo(const xffi_method_info *info, int allow_override);
STAND_IN int TVMFFIStringFromByteArray(const xffi_byte_array *text, xffi_any *out);

const xffi_byte_array *TVMFFIBacktrace(const char *file, int line, const char *func, int cross) {
  static const xffi_byte_array empty = {"", 0};
  (void)file, (void)line, (void)func, (void)cross;
  return &empty;
}

/* A NUL-terminated copy of text in buf (cut to fit). */
static const char *c_string(char *buf, size_t capacity, const xffi_byte_array *text) {
  size_t n = text->size < capacity - 1 ? text->size : capacity - 1;
  if (n) memcpy(buf, text->data, n);
  buf[n] = '\0';
  return buf;
}

int TVMFFIDataTypeFromString(const xffi_byte_array *text, DLDataType *out) {
  char buf[128];
  return xffi_dtype_parse(out, c_string(buf, sizeof(buf), text));
}

int TVMFFIEnvCheckSignals(void) { return 0; }

int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *symbol) {
  (void)name, (void)symbol;
  return 0;
}

void TVMFFIErrorMoveFromRaised(void **result) { *result = xffi_error_move_raised(); }

void TVMFFIErrorSetRaised(void *error) {
  xffi_object_inc_ref(error); /* tvm-ffi's caller keeps its reference */
  xffi_error_set_raised(error);
}

int TVMFFIFunctionGetGlobal(const xffi_byte_array *name, void **out) {
  return xffi_function_global_lookup_bytes((xffi_object **)out, *name);
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const xffi_method_info *info, int allow_override) {
  char buf[256];
  return xffi_function_global_register(c_string(buf, sizeof(buf), &info->name), info->method.v_obj, allow_override);
}

int TVMFFIStringFromByteArray(const xffi_byte_array *text, xffi_any *out) {
  return xffi_any_from_str(out, text->data, text->size);
}
