/* tests/plugin_matrix/runtime_errors_only.c: a stand-in for a tvm-ffi
 * runtime that has the error entry points but none of the type registry's
 * (an older or partial runtime), built as libtvm_ffi.so in a directory of its
 * own. test_bind_lacking.c loads it beside libxffi. */
#include <stddef.h>

#if defined(__GNUC__)
#  define EXPORTED __attribute__((visibility("default")))
#else
#  define EXPORTED
#endif

static void *raised; /* one slot is enough for the test's one thread */

EXPORTED void TVMFFIErrorSetRaised(void *error);
EXPORTED void TVMFFIErrorMoveFromRaised(void **result);

void TVMFFIErrorSetRaised(void *error) { raised = error; } /* the test raises nothing through it */
void TVMFFIErrorMoveFromRaised(void **result) {
  *result = raised;
  raised = NULL;
}
