/* c/compat/globals/globals_container.h: the safe calls behind the runtime's container
 * globals (private). c/compat/globals/globals_container.c wraps each in a static Function
 * and lists them; each group lives in its own file. All have the safe-call
 * signature (xffi_safe_call): handle is the static Function itself (unused),
 * args are borrowed views, *result receives an owned value; on failure an
 * error is raised (messages name the global: "ffi.ListInsert: ...") and
 * nothing has changed. They follow tvm-ffi's conventions
 * (src/ffi/container.cc), except that bad input is an error where tvm-ffi
 * aborts or reads out of bounds (docs/bad-input.md). */
#ifndef XFFI_GLOBALS_CONTAINER_H
#define XFFI_GLOBALS_CONTAINER_H

#include "runtime/internal.h"

#define XFFI_DECLARE_GLOBAL_CALL(name) \
  int name(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) XFFI_INTERNAL

/* Array and List (c/compat/globals/globals_container_seq.c). */
XFFI_DECLARE_GLOBAL_CALL(xffi_global_array);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_array_get_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_array_size);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_array_contains);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_get_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_set_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_size);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_contains);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_append);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_insert);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_pop);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_erase);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_erase_range);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_replace_slice);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_reverse);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_clear);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_list_reserve);

/* Map and Dict (c/compat/globals/globals_container_map.c). */
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map_size);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map_get_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map_count);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map_forward_iter_functor);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_map_get_item_or_missing);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_size);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_get_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_set_item);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_count);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_erase);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_clear);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_forward_iter_functor);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_dict_get_item_or_missing);

/* Shape and the device search (c/compat/globals/globals_container_device.c). */
XFFI_DECLARE_GLOBAL_CALL(xffi_global_shape);
XFFI_DECLARE_GLOBAL_CALL(xffi_global_container_find_first_non_cpu_device);

#endif /* XFFI_GLOBALS_CONTAINER_H */
