/* tests/plugin_matrix/runtime_errors_only.c: a stand-in for a tvm-ffi
 * runtime that xffi cannot bind to, built as libtvm_ffi.so in a directory of
 * its own: it has the error entry points and TVMFFIGetVersion but none of
 * the type registry's (an older or partial runtime). Its version is 0.1.16,
 * or the one XFFI_TEST_RUNTIME_VERSION gives as "MAJOR.MINOR.PATCH" (a
 * runtime of another ABI). test_bind_lacking.c loads it beside libxffi. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#  define EXPORTED __attribute__((visibility("default")))
#else
#  define EXPORTED
#endif

typedef struct {
  uint32_t major, minor, patch;
} stand_in_version;

static void *raised; /* one slot is enough for the test's one thread */
static char raised_text[512];

EXPORTED void TVMFFIGetVersion(stand_in_version *out);
EXPORTED void TVMFFIErrorSetRaised(void *error);
EXPORTED void TVMFFIErrorMoveFromRaised(void **result);
EXPORTED void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message);
EXPORTED const char *stand_in_raised_text(void);

void TVMFFIGetVersion(stand_in_version *out) {
  const char *given = getenv("XFFI_TEST_RUNTIME_VERSION");
  unsigned major = 0, minor = 1, patch = 16;
  if (given) sscanf(given, "%u.%u.%u", &major, &minor, &patch);
  out->major = major, out->minor = minor, out->patch = patch;
}

void TVMFFIErrorSetRaised(void *error) { raised = error; } /* the test raises no object through it */
void TVMFFIErrorMoveFromRaised(void **result) {
  *result = raised;
  raised = NULL;
}

/* Errors from a runtime that cannot bind arrive as text: kept for the test. */
void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message) {
  snprintf(raised_text, sizeof raised_text, "%s: %s", kind, message);
}
const char *stand_in_raised_text(void) { return raised_text; }
