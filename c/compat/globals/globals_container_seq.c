/* c/compat/globals/globals_container_seq.c: the ffi.Array* and ffi.List* globals
 * (c/compat/globals/globals_container.h), on xffi/array.h and c/lib/container/list_edit.h.
 *
 * tvm-ffi's conventions: indices are plain (Python normalises negative ones
 * before calling), an index out of range is an IndexError; ffi.Array* accept
 * only an Array and ffi.List* only a List (a TypeError otherwise); the
 * changing List globals return None. */
#include "lib/container/container_equal.h"
#include "runtime/global_args.h"
#include "compat/globals/globals_container.h"
#include "lib/container/list_edit.h"

/* The sequence argument 0 of fn, which must be of type_index. */
static int seq_arg(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t type_index, const char *fn) {
  return xffi_global_object_arg(out, args, num_args, 0, type_index, fn);
}

static const char *seq_kind(int32_t type_index) { return type_index == XFFI_TYPE_LIST ? "List" : "Array"; }

/* Checks a call taking (sequence, index): *seq borrows the sequence and
 * *index is checked against [0, size) (or [0, size] when allow_end). */
static int seq_index_args(xffi_object **seq, int64_t *index, const xffi_any *args, int32_t num_args, int32_t expected,
                          int32_t type_index, int allow_end, const char *fn, const xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(seq, args, num_args, type_index, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(index, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  int64_t size = xffi_seq_size_unchecked(*seq);
  if (*index < 0 || *index > size || (*index == size && !allow_end))
    return xffi_global_raise_index(fn, *index, seq_kind(type_index), size);
  return XFFI_OK;
}

/* ---- shared by Array and List ---- */

static int seq_make(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  xffi_object *seq = NULL;
  int status =
      type_index == XFFI_TYPE_LIST ? xffi_list_new(&seq, args, num_args) : xffi_array_new(&seq, args, num_args);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(seq); /* the new reference moves into the result */
  return XFFI_OK;
}

static int seq_get_item(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *seq;
  int64_t index;
  if (seq_index_args(&seq, &index, args, num_args, 2, type_index, 0, fn, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_array_get(result, seq, index);
}

static int seq_size(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *seq;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&seq, args, num_args, type_index, fn) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(xffi_seq_size_unchecked(seq));
  return XFFI_OK;
}

static int seq_contains(int32_t type_index, const char *fn, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *seq;
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&seq, args, num_args, type_index, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_any *items = xffi_seq_items_unchecked(seq);
  int found = 0;
  for (int64_t i = 0, n = xffi_seq_size_unchecked(seq); i < n && !found; ++i)
    found = xffi_container_values_equal(&items[i], &args[1]);
  *result = xffi_any_bool(found);
  return XFFI_OK;
}

/* ---- Array ---- */

int xffi_global_array(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_make(XFFI_TYPE_ARRAY, "ffi.Array", args, num_args, result);
}

int xffi_global_array_get_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_get_item(XFFI_TYPE_ARRAY, "ffi.ArrayGetItem", args, num_args, result);
}

int xffi_global_array_size(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_size(XFFI_TYPE_ARRAY, "ffi.ArraySize", args, num_args, result);
}

int xffi_global_array_contains(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_contains(XFFI_TYPE_ARRAY, "ffi.ArrayContains", args, num_args, result);
}

/* ---- List ---- */

int xffi_global_list(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_make(XFFI_TYPE_LIST, "ffi.List", args, num_args, result);
}

int xffi_global_list_get_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_get_item(XFFI_TYPE_LIST, "ffi.ListGetItem", args, num_args, result);
}

int xffi_global_list_set_item(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListSetItem";
  xffi_object *list;
  int64_t index;
  if (seq_index_args(&list, &index, args, num_args, 3, XFFI_TYPE_LIST, 0, fn, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_set(list, index, &args[2]);
}

int xffi_global_list_size(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_size(XFFI_TYPE_LIST, "ffi.ListSize", args, num_args, result);
}

int xffi_global_list_contains(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return seq_contains(XFFI_TYPE_LIST, "ffi.ListContains", args, num_args, result);
}

int xffi_global_list_append(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListAppend";
  xffi_object *list;
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&list, args, num_args, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_push(list, &args[1]);
}

int xffi_global_list_insert(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListInsert";
  xffi_object *list;
  int64_t index;
  if (seq_index_args(&list, &index, args, num_args, 3, XFFI_TYPE_LIST, 1, fn, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_insert(list, index, &args[2]);
}

int xffi_global_list_pop(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListPop";
  xffi_object *list;
  int64_t index;
  if (seq_index_args(&list, &index, args, num_args, 2, XFFI_TYPE_LIST, 0, fn, result) != XFFI_OK) return XFFI_FAIL;
  /* The element's reference moves to the result: a copy, then the List's
   * own reference goes with the erase. */
  if (xffi_array_get(result, list, index) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_erase(list, index);
}

int xffi_global_list_erase(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListErase";
  xffi_object *list;
  int64_t index;
  if (seq_index_args(&list, &index, args, num_args, 2, XFFI_TYPE_LIST, 0, fn, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_erase(list, index);
}

/* Reads the (list, start, stop) arguments of fn and checks the range as
 * tvm-ffi's erase does: start == stop is always an empty range (*empty set),
 * else 0 <= start < stop <= size. */
static int list_range_args(xffi_object **list, int64_t *start, int64_t *stop, int *empty, const xffi_any *args,
                           int32_t num_args, int32_t expected, const char *fn, const xffi_any *result) {
  if (xffi_global_check_call(fn, args, num_args, expected, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(list, args, num_args, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(start, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(stop, args, num_args, 2, fn) != XFFI_OK) return XFFI_FAIL;
  int64_t size = xffi_seq_size_unchecked(*list);
  *empty = *start == *stop;
  if (!*empty && (*start < 0 || *stop > size || *start > *stop))
    return xffi_error_raise(XFFI_KIND_INDEX, "%s: range [%lld, %lld) out of bounds for a List of size %lld", fn,
                            (long long)*start, (long long)*stop, (long long)size);
  return XFFI_OK;
}

int xffi_global_list_erase_range(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *list;
  int64_t start, stop;
  int empty;
  if (list_range_args(&list, &start, &stop, &empty, args, num_args, 3, "ffi.ListEraseRange", result) != XFFI_OK)
    return XFFI_FAIL;
  return empty ? XFFI_OK : xffi_list_erase_range(list, start, stop);
}

int xffi_global_list_replace_slice(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListReplaceSlice";
  xffi_object *list, *replacement;
  int64_t start, stop;
  int empty;
  if (list_range_args(&list, &start, &stop, &empty, args, num_args, 4, fn, result) != XFFI_OK) return XFFI_FAIL;
  if (xffi_global_object_arg(&replacement, args, num_args, 3, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  /* As tvm-ffi: an empty range with nothing to put in changes nothing; an
   * empty range with items inserts them at start, which must be a position. */
  int64_t size = xffi_seq_size_unchecked(list);
  if (empty && xffi_seq_size_unchecked(replacement) == 0) return XFFI_OK;
  if (empty && (start < 0 || start > size)) return xffi_global_raise_index(fn, start, "List", size);
  if (empty) stop = start;
  /* replacement may be list itself: xffi_list_replace_slice copies the
   * items before it changes anything. */
  return xffi_list_replace_slice(list, start, stop, xffi_seq_items_unchecked(replacement),
                                 xffi_seq_size_unchecked(replacement));
}

int xffi_global_list_reverse(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListReverse";
  xffi_object *list;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&list, args, num_args, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_reverse(list);
}

int xffi_global_list_clear(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListClear";
  xffi_object *list;
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&list, args, num_args, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_list_clear(list);
}

int xffi_global_list_reserve(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ListReserve";
  xffi_object *list;
  int64_t capacity;
  if (xffi_global_check_call(fn, args, num_args, 2, result) != XFFI_OK) return XFFI_FAIL;
  if (seq_arg(&list, args, num_args, XFFI_TYPE_LIST, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_int(&capacity, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  if (capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", fn, (long long)capacity);
  return xffi_list_reserve(list, capacity);
}
