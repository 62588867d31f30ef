/* tests/plugin_matrix/test_bind_lacking.c: libxffi in a process whose
 * tvm-ffi runtime it cannot bind to (runtime_errors_only.c, loaded globally
 * as libtvm_ffi.so): one that lacks the type registry's entry points
 * (`lacking`), or one of another ABI (`other-abi`, XFFI_TEST_RUNTIME_VERSION
 * set by ctest). Either way there is no silent second runtime: registering a
 * type or a global function is a RuntimeError that names the runtime found
 * (its library) and what xffi needs, nothing is registered (the next
 * registration says so again), and an error xffi hands that runtime arrives
 * there as text. What needs no registry works on. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

#include "../c/helpers/expect.h"

static int always_fails(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return xffi_error_raise(XFFI_KIND_VALUE, "never called");
}

/* The raised error is a RuntimeError whose message starts with head and
 * holds every one of the NULL-ended parts; it is released. */
static void expect_bind_error(int line, const char *head, const char *const *parts) {
  xffi_object *err = xffi_error_move_raised();
  const char *message = err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing raised)";
  int good = err && xffi_error_is_kind(err, XFFI_KIND_RUNTIME) && strncmp(message, head, strlen(head)) == 0;
  for (; good && *parts; ++parts) good = strstr(message, *parts) != NULL;
  if (!good) {
    fprintf(stderr, "%d: unexpected error: %s\n", line, message);
    ++failures;
  }
  if (err) xffi_object_dec_ref(err);
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "lacking") && strcmp(argv[2], "other-abi"))) {
    fprintf(stderr, "usage: %s RUNTIME.so {lacking|other-abi}\n", argv[0]);
    return 2;
  }
  void *runtime = expect_load(argv[1], RTLD_NOW | RTLD_GLOBAL);
  union {
    void *p;
    const char *(*f)(void);
  } raised_text = {dlsym(runtime, "stand_in_raised_text")}; /* dlsym's object pointer, read as the function */
  int lacking = strcmp(argv[2], "lacking") == 0;
  const char *why = lacking ? "ABI 0.1.16): it has no TVMFFITypeKeyToIndex, which xffi needs"
                            : "): it serves tvm-ffi's ABI 0.2.0; xffi needs tvm-ffi's ABI 0.1";
  const char *parts[] = {"xffi cannot bind to the process's tvm-ffi runtime (", "libtvm_ffi.so", why, NULL};

  /* A type: refused, never given a private index. The first registration
   * registers tvm-ffi's own reflected types first (ffi.EnumState, ...): the
   * error names the first key that needed one. */
  int32_t index = -7;
  EXPECT(xffi_type_register(&index, "bind.Lacking", XFFI_TYPE_OBJECT) == XFFI_FAIL);
  EXPECT(index == -7);
  expect_bind_error(__LINE__, "registering '", parts);
  EXPECT(xffi_type_register(&index, "bind.Lacking", XFFI_TYPE_OBJECT) == XFFI_FAIL);
  expect_bind_error(__LINE__, "registering '", parts);
  const xffi_type_info *info = NULL;
  EXPECT(xffi_type_info_get_by_key(&info, "bind.Lacking") == XFFI_FAIL);
  xffi_object_dec_ref(xffi_error_move_raised());

  /* A global function: refused, and not registered here either. */
  xffi_object *function = NULL, *found = NULL;
  EXPECT(xffi_function_new(&function, always_fails, NULL, NULL) == XFFI_OK);
  EXPECT(xffi_function_global_register("bind.function", function, 0) == XFFI_FAIL);
  expect_bind_error(__LINE__, "registering the global function 'bind.function': ", parts);
  EXPECT(xffi_function_global_lookup(&found, "bind.function") == XFFI_OK && found == NULL);
  xffi_object_dec_ref(function);

  /* An error handed to that runtime: as its kind and message, in text. */
  xffi_error_raise(XFFI_KIND_VALUE, "bad value %d", 7);
  EXPECT(xffi_error_forward_to_tvm() == XFFI_FAIL);
  EXPECT(xffi_error_move_raised() == NULL); /* moved, nothing left here */
  EXPECT(raised_text.p && strcmp(raised_text.f(), "ValueError: bad value 7") == 0);

  xffi_object *text = NULL;
  EXPECT(xffi_string_new(&text, "still works", 11) == XFFI_OK);
  xffi_object_dec_ref(text);
  if (!failures) printf("ok\n");
  return failures != 0;
}
