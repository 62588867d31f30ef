/* tests/c/test_util.h: what every cmocka test of xffi needs. */
#ifndef XFFI_TEST_UTIL_H
#define XFFI_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xffi/xffi.h>

/* Asserts that the last call raised an error of `kind` whose message
 * contains `fragment`, then clears the raised slot. */
#define assert_raised(kind, fragment) assert_raised_at((kind), (fragment), __FILE__, __LINE__)

static inline void assert_raised_at(const char *kind, const char *fragment, const char *file, int line) {
  xffi_object *err = xffi_error_move_raised();
  if (!err) {
    fail_msg("%s:%d: expected a raised %s, but nothing was raised", file, line, kind);
    return;
  }
  const xffi_error_cell *cell = xffi_error_cell_of(err);
  if (strcmp(cell->kind.data, kind) != 0 || !strstr(cell->message.data, fragment)) {
    char got[512];
    snprintf(got, sizeof(got), "%s: %s", cell->kind.data, cell->message.data);
    xffi_object_dec_ref(err);
    fail_msg("%s:%d: expected %s containing \"%s\", got %s", file, line, kind, fragment, got);
    return;
  }
  xffi_object_dec_ref(err);
}

/* Asserts that nothing is left in the raised slot. */
#define assert_nothing_raised() assert_null(xffi_error_peek_raised())

#endif /* XFFI_TEST_UTIL_H */
