/* tests/plugin_matrix/test_bind_lacking.c: libxffi in a process whose
 * tvm-ffi runtime lacks the type registry's entry points
 * (runtime_errors_only.c, loaded globally as libtvm_ffi.so): registering a
 * type is a RuntimeError that names the runtime's lack, and nothing is
 * registered (the next registration says so again); xffi works on otherwise. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xffi/sys/error.h>
#include <xffi/xffi.h>

static int failures;

#define EXPECT(cond)                                         \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "%d: expected %s\n", __LINE__, #cond); \
      ++failures;                                            \
    }                                                        \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s RUNTIME.so\n", argv[0]);
    return 2;
  }
  void *runtime = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!runtime) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  int32_t index = -7;
  EXPECT(xffi_type_register(&index, "bind.Lacking", XFFI_TYPE_OBJECT) == XFFI_FAIL);
  EXPECT(index == -7);
  xffi_object *err = xffi_error_move_raised();
  EXPECT(err && xffi_error_is_kind(err, XFFI_KIND_RUNTIME));
  const char *message = err ? xffi_error_cell_of_unchecked(err)->message.data : "";
  /* The first registration registers tvm-ffi's own reflected types first
   * (ffi.EnumState, ...): the error names the first key that needed one. */
  EXPECT(strncmp(message, "registering '", 13) == 0);
  EXPECT(strstr(message, "': the process's tvm-ffi runtime has no TVMFFITypeKeyToIndex") != NULL);
  if (err) xffi_object_dec_ref(err);
  EXPECT(xffi_type_register(&index, "bind.Lacking", XFFI_TYPE_OBJECT) == XFFI_FAIL);
  xffi_object_dec_ref(xffi_error_move_raised());
  const xffi_type_info *info = NULL;
  EXPECT(xffi_type_info_get_by_key(&info, "bind.Lacking") == XFFI_FAIL);
  xffi_object_dec_ref(xffi_error_move_raised());
  xffi_object *text = NULL;
  EXPECT(xffi_string_new(&text, "still works", 11) == XFFI_OK);
  xffi_object_dec_ref(text);
  if (failures)
    fprintf(stderr, "message: %s\n", message);
  else
    printf("ok\n");
  return failures != 0;
}
