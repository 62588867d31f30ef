/* tests/c/helpers/test_util.h: what every cmocka test of xffi needs. */
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
/* The tests check both tiers: the extension tier (cells, unchecked access). */
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>
#include <xffi/sys/function.h>
#include <xffi/sys/object.h>
#include <xffi/sys/shape.h>
#include <xffi/sys/string.h>
#include <xffi/sys/tensor.h>
#include <xffi/sys/type.h>

/* What the platform offers the tests: wasm32-wasi without the threads
 * proposal has neither threads nor shared libraries. */
#if defined(__wasi__) && !defined(_REENTRANT)
#  define XFFI_TEST_HAVE_THREADS 0
#  define XFFI_TEST_HAVE_SHARED_LIBRARIES 0
#else
#  define XFFI_TEST_HAVE_THREADS 1
#  define XFFI_TEST_HAVE_SHARED_LIBRARIES 1
#endif
/* fork, for tests that must watch a child process abort: POSIX only. */
#if defined(_WIN32) || defined(__wasi__)
#  define XFFI_TEST_HAVE_FORK 0
#else
#  define XFFI_TEST_HAVE_FORK 1
#endif

/* A Function callback that does nothing and succeeds. */
static inline int test_noop_callback(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return XFFI_OK;
}

/* Asserts that the last call raised an error of `kind` whose message
 * contains `fragment` (assert_raised) or is exactly `message`
 * (expect_error), then clears the raised slot. */
#define assert_raised(kind, fragment) check_raised((kind), (fragment), 0, __FILE__, __LINE__)
#define expect_error(kind, message) check_raised((kind), (message), 1, __FILE__, __LINE__)

static inline void check_raised(const char *kind, const char *text, int exact, const char *file, int line) {
  xffi_object *err = xffi_error_move_raised();
  if (!err) {
    fail_msg("%s:%d: expected a raised %s, but nothing was raised", file, line, kind);
    return;
  }
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  int matches = exact ? strcmp(cell->message.data, text) == 0 : strstr(cell->message.data, text) != NULL;
  if (strcmp(cell->kind.data, kind) != 0 || !matches) {
    char got[512];
    snprintf(got, sizeof(got), "%s: %s", cell->kind.data, cell->message.data);
    xffi_object_dec_ref(err);
    fail_msg("%s:%d: expected %s %s \"%s\", got %s", file, line, kind, exact ? "saying" : "containing", text, got);
    return;
  }
  xffi_object_dec_ref(err);
}

/* The kind and message of the raised error, moved out of the slot, as
 * malloc'ed copies the caller frees (for tests comparing two paths' errors). */
static inline void take_raised_error(char **kind, char **message) {
  xffi_object *err = xffi_error_move_raised();
  if (err == NULL) fail_msg("an error was expected");
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  *kind = malloc(cell->kind.size + 1);
  *message = malloc(cell->message.size + 1);
  assert_non_null(*kind);
  assert_non_null(*message);
  memcpy(*kind, cell->kind.data, cell->kind.size + 1);
  memcpy(*message, cell->message.data, cell->message.size + 1);
  xffi_object_dec_ref(err);
}

/* Plain heap objects that count how often their contents are destroyed,
 * for tests that prove every reference is released exactly once. */
static inline int *counted_destroyed_counter(void) {
  static int destroyed;
  return &destroyed;
}
#define counted_destroyed (*counted_destroyed_counter())

static inline void counted_object_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) counted_destroyed++;
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static inline xffi_object *counted_new(void) {
  xffi_object *obj = malloc(sizeof(xffi_object));
  assert_non_null(obj);
  xffi_object_init(obj, XFFI_TYPE_OBJECT, counted_object_deleter);
  return obj;
}

/* Asserts that nothing is left in the raised slot. */
#define assert_nothing_raised() assert_null(xffi_error_peek_raised())

#endif /* XFFI_TEST_UTIL_H */
