/* tests/wheel_runtime/test_bound_to_the_wheel.c: the guard of the wheel-runtime
 * test mode (tests/cmake/wheel_runtime.cmake). Linked as the library tests are
 * (xffi_static) and run as they are there, with the apache-tvm-ffi wheel's
 * libtvm_ffi.so preloaded: this copy of xffi is bound to that runtime, so the
 * mode's passes say something. A dynamic type takes the index the wheel's
 * registry has for its key, and a failing xffi callback called through the
 * wheel's TVMFFIFunctionCall leaves its error in the wheel's slot. Run without
 * the wheel, it fails. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

#include "../c/helpers/expect.h"

#include "runtime/internal.h"

typedef int (*key_to_index_fn)(const xffi_byte_array *key, int32_t *out);
typedef int (*function_call_fn)(xffi_object *f, xffi_any *args, int32_t num_args, xffi_any *result);
typedef void (*move_from_raised_fn)(xffi_object **out);
typedef int (*dec_ref_fn)(xffi_object *obj);

/* The wheel's entry point name (the global scope's: the program exports none). */
static void *wheel(const char *name) {
  union {
    void *p;
  } found = {dlsym(RTLD_DEFAULT, name)};
  if (!found.p) fprintf(stderr, "the process has no %s: run with the wheel's libtvm_ffi.so preloaded\n", name);
  return found.p;
}

static int fails_with_value_error(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "raised by an xffi callback");
}

int main(void) {
  union {
    void *p;
    key_to_index_fn f;
  } key_to_index = {wheel("TVMFFITypeKeyToIndex")};
  union {
    void *p;
    function_call_fn f;
  } call = {wheel("TVMFFIFunctionCall")};
  union {
    void *p;
    move_from_raised_fn f;
  } move_raised = {wheel("TVMFFIErrorMoveFromRaised")};
  union {
    void *p;
    dec_ref_fn f;
  } dec_ref = {wheel("TVMFFIObjectDecRef")};
  if (!key_to_index.p || !call.p || !move_raised.p || !dec_ref.p) return 1;
  EXPECT(xffi_foreign_runtime_present());

  /* Types: the wheel's registry gives the index. */
  int32_t index = -1, wheel_index = -2;
  const char key[] = "test.wheel_runtime.Guard";
  xffi_byte_array key_bytes = {key, sizeof(key) - 1};
  EXPECT(xffi_type_register(&index, key, XFFI_TYPE_OBJECT) == XFFI_OK);
  EXPECT(key_to_index.f(&key_bytes, &wheel_index) == 0 && wheel_index == index);

  /* Errors: the wheel's caller reads the xffi callback's error in its slot. */
  xffi_object *f = NULL, *err = NULL;
  xffi_any result = xffi_any_none();
  EXPECT(xffi_function_new(&f, fails_with_value_error, NULL, NULL) == XFFI_OK);
  EXPECT(f && call.f(f, NULL, 0, &result) != 0);
  move_raised.f(&err);
  EXPECT(err && strcmp(xffi_error_cell_of_unchecked(err)->kind.data, "ValueError") == 0 &&
         strstr(xffi_error_cell_of_unchecked(err)->message.data, "raised by an xffi callback"));
  if (err) dec_ref.f(err);
  xffi_object_dec_ref(f);
  if (failures) return 1;
  printf("ok: xffi is bound to the wheel's runtime (type index %d from it; errors in its slot)\n", (int)index);
  return 0;
}
