/* tests/c/helpers/test_globals_util.h: calling the runtime's built-in ffi.* globals
 * from their static tables (c/builtin_globals.h), for the tests of each
 * area's globals. */
#ifndef XFFI_TEST_GLOBALS_UTIL_H
#define XFFI_TEST_GLOBALS_UTIL_H

#include "compat/globals/builtin_globals.h"
#include "test_util.h"

/* The table entry named name, in any table (NULL if none). */
static inline const xffi_builtin_global *builtin_entry(const char *name) {
  for (size_t t = 0; t < xffi_builtin_table_count; ++t) {
    const xffi_builtin_table *table = xffi_builtin_tables[t];
    for (size_t i = 0; i < table->count; ++i)
      if (strcmp(table->entries[i].name, name) == 0) return &table->entries[i];
  }
  return NULL;
}

/* The static Function named name (borrowed); fails the test if absent. */
static inline xffi_object *builtin(const char *name) {
  const xffi_builtin_global *entry = builtin_entry(name);
  if (!entry) fail_msg("no built-in global named %s", name);
  return &entry->function->header;
}

/* Calls the built-in name with n argument views; *result receives the owned result. */
static inline int call_builtin(const char *name, const xffi_any *args, int32_t n, xffi_any *result) {
  return xffi_function_call(builtin(name), args, n, result);
}

#define CALL(name, result, ...)                         \
  call_builtin((name), (const xffi_any[]){__VA_ARGS__}, \
               (int32_t)(sizeof((const xffi_any[]){__VA_ARGS__}) / sizeof(xffi_any)), (result))

/* Calls name and asserts success, returning the owned result. */
static inline xffi_any call_builtin_ok(const char *name, const xffi_any *args, int32_t n) {
  xffi_any result = xffi_any_none();
  if (call_builtin(name, args, n, &result) != XFFI_OK) {
    xffi_object *err = xffi_error_move_raised();
    fail_msg("%s failed: %s", name, err ? xffi_error_cell_of_unchecked(err)->message.data : "(nothing raised)");
  }
  return result;
}

#define CALL_OK(name, ...)                                 \
  call_builtin_ok((name), (const xffi_any[]){__VA_ARGS__}, \
                  (int32_t)(sizeof((const xffi_any[]){__VA_ARGS__}) / sizeof(xffi_any)))

#endif /* XFFI_TEST_GLOBALS_UTIL_H */
