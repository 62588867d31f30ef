/* examples/mixed/common/check.h: the checks of the C examples. Each failed
 * check prints one "FAIL" line (with the raised xffi error, if any) and is
 * counted; an example ends with CHECK_SUMMARY, which makes main return 1
 * after any failure. Header-only, C11. */
#ifndef XFFI_MIXED_CHECK_H
#define XFFI_MIXED_CHECK_H

#include <stdio.h>
#include <string.h>
#include <xffi/xffi.h>
#include <xffi/sys/error.h>

static int check_failures = 0;
static int check_passes = 0;

/* Prints and releases the error raised in this thread, if any. */
static inline void check_print_raised(void) {
  xffi_object *err = xffi_error_move_raised();
  if (err) {
    const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
    fprintf(stderr, "      raised: %s: %s\n", cell->kind.data, cell->message.data);
    xffi_object_dec_ref(err);
  }
}

/* A condition that must hold. */
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (cond) {                                                       \
      ++check_passes;                                                 \
    } else {                                                          \
      ++check_failures;                                               \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
    }                                                                 \
  } while (0)

/* A call that must return XFFI_OK; otherwise the raised error is printed. */
#define CHECK_OK(call)                                                                  \
  do {                                                                                  \
    if ((call) == XFFI_OK) {                                                            \
      ++check_passes;                                                                   \
    } else {                                                                            \
      ++check_failures;                                                                 \
      fprintf(stderr, "FAIL %s:%d: %s returned an error\n", __FILE__, __LINE__, #call); \
      check_print_raised();                                                             \
    }                                                                                   \
  } while (0)

/* A call that must fail with an error of the given kind and message
 * (message NULL: any message). The raised error is consumed. */
static inline void check_fails_(int status, const char *kind, const char *message, const char *what, const char *file,
                                int line) {
  xffi_object *err = xffi_error_move_raised();
  const xffi_error_cell *cell = err ? xffi_error_cell_of_unchecked(err) : NULL;
  if (status != XFFI_OK && cell && strcmp(cell->kind.data, kind) == 0 &&
      (!message || strcmp(cell->message.data, message) == 0)) {
    ++check_passes;
  } else {
    ++check_failures;
    fprintf(stderr, "FAIL %s:%d: %s: expected %s: %s\n      got status %d, %s: %s\n", file, line, what, kind,
            message ? message : "(any message)", status, cell ? cell->kind.data : "(no error)",
            cell ? cell->message.data : "");
  }
  xffi_object_dec_ref(err);
}
#define CHECK_FAILS(call, kind, message) check_fails_((call), (kind), (message), #call, __FILE__, __LINE__)

/* The last line of main. */
#define CHECK_SUMMARY(name)                                                            \
  do {                                                                                 \
    printf("%s: %d checks passed, %d failed\n", (name), check_passes, check_failures); \
    return check_failures == 0 ? 0 : 1;                                                \
  } while (0)

#endif /* XFFI_MIXED_CHECK_H */
