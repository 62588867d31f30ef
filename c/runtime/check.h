/* c/runtime/check.h: argument checks and the messages they raise (private).
 *
 * Every entry point checks its arguments before it touches anything, and a
 * failed check raises an error saying which function, which argument, what
 * was expected and what came, in the form "<function>: <argument> <detail>":
 *   "xffi_string_new: data is NULL but size is 5"
 *   "xffi_map_set: map expected Map, got Array".
 * The XFFI_CHECK_* macros name the function with __func__ and the argument
 * with the stringified argument expression, so no message spells a function
 * name by hand. Each returns XFFI_FAIL from the calling function when the
 * check fails; a function that must release something first calls the
 * xffi_raise_* helpers below instead, passing __func__. */
#ifndef XFFI_CHECK_H
#define XFFI_CHECK_H

#include "runtime/internal.h"

/* Raises kind with the message "<function>: <argument> " followed by the
 * formatted detail, and returns XFFI_FAIL. */
XFFI_PRINTF(4, 5)
int xffi_raise_arg(const char *kind, const char *function, const char *argument, const char *detail_format, ...);

/* ValueError "<function>: <argument> is NULL"; returns XFFI_FAIL. */
int xffi_raise_null_arg(const char *function, const char *argument);

/* TypeError "<function>: expected <expected>, got <kind of got>" (got
 * borrowed, may be NULL); returns XFFI_FAIL. */
int xffi_raise_type_mismatch(const char *function, const char *expected, const xffi_any *got);

/* Object-kind check with a clear TypeError: "<function>: <argument> expected
 * <type key>, got <kind>". Returns XFFI_OK or XFFI_FAIL (raised). NULL obj is
 * a ValueError. obj is borrowed. */
int xffi_check_object_arg(const char *function, const char *argument, const xffi_object *obj, int32_t type_index);

/* XFFI_OK when type_index names a registered object type; else a TypeError
 * "<function>: <argument> <index> is not a registered object type". */
int xffi_check_object_type_arg(const char *function, const char *argument, int32_t type_index);

/* The registry's record of type_index (borrowed, immortal), or NULL when no
 * type has that index. Raises nothing: a question, not a check (c/runtime/type.c). */
const xffi_type_info *xffi_type_info_find(int32_t type_index);

/* Returns XFFI_FAIL from the calling function, with the error raised, when
 * ok is false. arg is the argument the check is about (named in the
 * message); detail_format and what follows describe what was expected and
 * what came, e.g.
 *   XFFI_CHECK_ARG(data, data || !size, XFFI_KIND_VALUE, "is NULL but size is %zu", size); */
#define XFFI_CHECK_ARG(arg, ok, kind, ...)                                                \
  do {                                                                                    \
    if (XFFI_UNLIKELY(!(ok))) return xffi_raise_arg((kind), __func__, #arg, __VA_ARGS__); \
  } while (0)

/* A pointer argument that must not be NULL: ValueError "<function>: <arg> is
 * NULL". It needs nothing but xffi_error_raise, so the leaves (c/runtime/error.c,
 * c/runtime/type.c) use it too. */
#define XFFI_CHECK_ARG_NOT_NULL(arg)                                                                              \
  do {                                                                                                            \
    if (XFFI_UNLIKELY((arg) == NULL)) return xffi_error_raise(XFFI_KIND_VALUE, "%s: %s is NULL", __func__, #arg); \
  } while (0)

/* An object argument that must be an instance of type_index (NULL is a
 * ValueError, another kind a TypeError naming both types). */
#define XFFI_CHECK_ARG_OBJECT(arg, type_index)                                                                  \
  do {                                                                                                          \
    if (XFFI_UNLIKELY(xffi_check_object_arg(__func__, #arg, (arg), (type_index)) != XFFI_OK)) return XFFI_FAIL; \
  } while (0)

/* A type index argument that must name a registered object type. */
#define XFFI_CHECK_ARG_OBJECT_TYPE(arg)                                                                \
  do {                                                                                                 \
    if (XFFI_UNLIKELY(xffi_check_object_type_arg(__func__, #arg, (arg)) != XFFI_OK)) return XFFI_FAIL; \
  } while (0)

/* An Any argument (a pointer to it, not NULL) that must be well formed
 * (xffi_any_is_well_formed): else the ValueError of xffi_any_raise_malformed. */
#define XFFI_CHECK_ARG_ANY(arg)                                                            \
  do {                                                                                     \
    if (XFFI_UNLIKELY(xffi_any_check(__func__, #arg, (arg)) != XFFI_OK)) return XFFI_FAIL; \
  } while (0)

#endif /* XFFI_CHECK_H */
