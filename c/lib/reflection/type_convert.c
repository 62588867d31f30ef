/* c/lib/reflection/type_convert.c: the "__ffi_convert__" type attribute of the built-in
 * object types (ffi.Object, String, Bytes, Error, Function, Shape, Tensor,
 * Array, List, Map, Dict), which the tvm_ffi package's type converter calls
 * to turn a value into an object of the type (tvm-ffi registers them at
 * startup). Each is a static Function of one argument (borrowed) whose
 * result is a new reference, or a TypeError "Cannot cast from `<kind>` to
 * `<type>`".
 *
 * What converts: a value of the type itself; for ffi.Object any object (and
 * None, which stays None); for String and Bytes their inline and borrowed
 * forms (copied); for ffi.Shape also an Array or List of ints. Not yet: the
 * element-wise conversions between Array and List, Map and Dict, which
 * tvm-ffi's C++ container casts perform. */
#include <string.h>

#include "runtime/static_object.h"
#include "runtime/check.h"
#include "runtime/global_args.h"
#include "runtime/type_internal.h"
#include "lib/reflection/type_convert.h"

static int cannot_cast(const xffi_any *from, int32_t to) {
  return xffi_error_raise(XFFI_KIND_TYPE, "Cannot cast from `%s` to `%s`", xffi_any_kind_name(from), xffi_type_key(to));
}

/* An Array or List (borrowed) of ints as a new Shape. */
static int shape_from_sequence(xffi_any *result, const xffi_any *from) {
  const xffi_seq_cell *cell = xffi_seq_cell_of_unchecked(from->v_obj);
  const xffi_any *items = (const xffi_any *)cell->data;
  if (cell->size > INT32_MAX) return cannot_cast(from, XFFI_TYPE_SHAPE);
  int64_t *dims = cell->size ? xffi_alloc((size_t)cell->size * sizeof(int64_t)) : NULL;
  if (cell->size && !dims) return xffi_error_raise_out_of_memory();
  for (int64_t i = 0; i < cell->size; ++i) {
    if (items[i].type_index != XFFI_TYPE_INT && items[i].type_index != XFFI_TYPE_BOOL) {
      xffi_free(dims);
      return cannot_cast(from, XFFI_TYPE_SHAPE);
    }
    dims[i] = items[i].v_int64;
  }
  xffi_object *shape = NULL;
  int status = xffi_shape_new(&shape, dims, (int32_t)cell->size);
  xffi_free(dims);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(shape); /* the new reference moves into the result */
  return XFFI_OK;
}

static int convert_to(int32_t to, const xffi_any *from, xffi_any *result) {
  if (from->type_index == to) return xffi_any_copy(result, from);
  switch (to) {
    case XFFI_TYPE_OBJECT:
      if (xffi_any_is_object(from) || from->type_index == XFFI_TYPE_NONE) return xffi_any_copy(result, from);
      break;
    case XFFI_TYPE_STRING:
      if (from->type_index == XFFI_TYPE_SMALL_STR || from->type_index == XFFI_TYPE_RAW_STR)
        return xffi_any_copy(result, from);
      break;
    case XFFI_TYPE_BYTES:
      if (from->type_index == XFFI_TYPE_SMALL_BYTES || from->type_index == XFFI_TYPE_BYTE_ARRAY_PTR)
        return xffi_any_copy(result, from);
      break;
    case XFFI_TYPE_SHAPE:
      if (from->type_index == XFFI_TYPE_ARRAY || from->type_index == XFFI_TYPE_LIST)
        return shape_from_sequence(result, from);
      break;
    default: break;
  }
  return cannot_cast(from, to);
}

#define CONVERT_FUNCTION(name, to)                                                                  \
  static int name(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {         \
    (void)handle;                                                                                   \
    if (xffi_global_check_call("__ffi_convert__", args, num_args, 1, result) != XFFI_OK) return -1; \
    return convert_to((to), &args[0], result);                                                      \
  }                                                                                                 \
  XFFI_BUILTIN_FUNCTION(name##_function, name);

CONVERT_FUNCTION(to_object, XFFI_TYPE_OBJECT)
CONVERT_FUNCTION(to_string, XFFI_TYPE_STRING)
CONVERT_FUNCTION(to_bytes, XFFI_TYPE_BYTES)
CONVERT_FUNCTION(to_error, XFFI_TYPE_ERROR)
CONVERT_FUNCTION(to_function, XFFI_TYPE_FUNCTION)
CONVERT_FUNCTION(to_shape, XFFI_TYPE_SHAPE)
CONVERT_FUNCTION(to_tensor, XFFI_TYPE_TENSOR)
CONVERT_FUNCTION(to_array, XFFI_TYPE_ARRAY)
CONVERT_FUNCTION(to_map, XFFI_TYPE_MAP)
CONVERT_FUNCTION(to_list, XFFI_TYPE_LIST)
CONVERT_FUNCTION(to_dict, XFFI_TYPE_DICT)

static const struct {
  int32_t type_index;
  xffi_function_head *function;
} converters[] = {
    {XFFI_TYPE_OBJECT, &to_object_function},     {XFFI_TYPE_STRING, &to_string_function},
    {XFFI_TYPE_BYTES, &to_bytes_function},       {XFFI_TYPE_ERROR, &to_error_function},
    {XFFI_TYPE_FUNCTION, &to_function_function}, {XFFI_TYPE_SHAPE, &to_shape_function},
    {XFFI_TYPE_TENSOR, &to_tensor_function},     {XFFI_TYPE_ARRAY, &to_array_function},
    {XFFI_TYPE_MAP, &to_map_function},           {XFFI_TYPE_LIST, &to_list_function},
    {XFFI_TYPE_DICT, &to_dict_function},
};

int xffi_type_register_builtin_converters(void) {
  static const char name[] = "__ffi_convert__";
  const xffi_type_attr_column *column = xffi_type_attr_column_find(name, sizeof(name) - 1);
  for (size_t i = 0; i < sizeof(converters) / sizeof(converters[0]); ++i) {
    int32_t t = converters[i].type_index;
    /* Already there (a retry after a failure): keep it. */
    if (column && t >= column->begin_index && t - column->begin_index < column->size &&
        column->data[t - column->begin_index].type_index != XFFI_TYPE_NONE)
      continue;
    xffi_any value = xffi_any_object(&converters[i].function->header); /* the column takes its own reference */
    if (xffi_type_register_attr_in("xffi_type_runtime_ensure", t, name, sizeof(name) - 1, &value) != XFFI_OK)
      return XFFI_FAIL;
  }
  return XFFI_OK;
}
