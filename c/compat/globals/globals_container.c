/* c/compat/globals/globals_container.c: the runtime's container ffi.* globals
 * (c/compat/globals/builtin_globals.h): Array, List, Map, Dict, Shape and
 * ContainerFindFirstNonCPUDevice, 35 static Function objects in one static
 * table (nothing runs or allocates at load). The calls themselves are in
 * c/compat/globals/globals_container_seq.c, _map.c and _device.c (c/compat/globals/globals_container.h). */
#include "compat/globals/builtin_globals.h"
#include "compat/globals/globals_container.h"

XFFI_BUILTIN_FUNCTION(array_function, xffi_global_array);
XFFI_BUILTIN_FUNCTION(array_get_item_function, xffi_global_array_get_item);
XFFI_BUILTIN_FUNCTION(array_size_function, xffi_global_array_size);
XFFI_BUILTIN_FUNCTION(array_contains_function, xffi_global_array_contains);
XFFI_BUILTIN_FUNCTION(list_function, xffi_global_list);
XFFI_BUILTIN_FUNCTION(list_get_item_function, xffi_global_list_get_item);
XFFI_BUILTIN_FUNCTION(list_set_item_function, xffi_global_list_set_item);
XFFI_BUILTIN_FUNCTION(list_size_function, xffi_global_list_size);
XFFI_BUILTIN_FUNCTION(list_contains_function, xffi_global_list_contains);
XFFI_BUILTIN_FUNCTION(list_append_function, xffi_global_list_append);
XFFI_BUILTIN_FUNCTION(list_insert_function, xffi_global_list_insert);
XFFI_BUILTIN_FUNCTION(list_pop_function, xffi_global_list_pop);
XFFI_BUILTIN_FUNCTION(list_erase_function, xffi_global_list_erase);
XFFI_BUILTIN_FUNCTION(list_erase_range_function, xffi_global_list_erase_range);
XFFI_BUILTIN_FUNCTION(list_replace_slice_function, xffi_global_list_replace_slice);
XFFI_BUILTIN_FUNCTION(list_reverse_function, xffi_global_list_reverse);
XFFI_BUILTIN_FUNCTION(list_clear_function, xffi_global_list_clear);
XFFI_BUILTIN_FUNCTION(list_reserve_function, xffi_global_list_reserve);
XFFI_BUILTIN_FUNCTION(map_function, xffi_global_map);
XFFI_BUILTIN_FUNCTION(map_size_function, xffi_global_map_size);
XFFI_BUILTIN_FUNCTION(map_get_item_function, xffi_global_map_get_item);
XFFI_BUILTIN_FUNCTION(map_count_function, xffi_global_map_count);
XFFI_BUILTIN_FUNCTION(map_forward_iter_functor_function, xffi_global_map_forward_iter_functor);
XFFI_BUILTIN_FUNCTION(map_get_item_or_missing_function, xffi_global_map_get_item_or_missing);
XFFI_BUILTIN_FUNCTION(dict_function, xffi_global_dict);
XFFI_BUILTIN_FUNCTION(dict_size_function, xffi_global_dict_size);
XFFI_BUILTIN_FUNCTION(dict_get_item_function, xffi_global_dict_get_item);
XFFI_BUILTIN_FUNCTION(dict_set_item_function, xffi_global_dict_set_item);
XFFI_BUILTIN_FUNCTION(dict_count_function, xffi_global_dict_count);
XFFI_BUILTIN_FUNCTION(dict_erase_function, xffi_global_dict_erase);
XFFI_BUILTIN_FUNCTION(dict_clear_function, xffi_global_dict_clear);
XFFI_BUILTIN_FUNCTION(dict_forward_iter_functor_function, xffi_global_dict_forward_iter_functor);
XFFI_BUILTIN_FUNCTION(dict_get_item_or_missing_function, xffi_global_dict_get_item_or_missing);
XFFI_BUILTIN_FUNCTION(shape_function, xffi_global_shape);
XFFI_BUILTIN_FUNCTION(container_find_first_non_cpu_device_function, xffi_global_container_find_first_non_cpu_device);

static const xffi_builtin_global container_globals[] = {
    {"ffi.Array", &array_function, NULL},
    {"ffi.ArrayGetItem", &array_get_item_function, NULL},
    {"ffi.ArraySize", &array_size_function, NULL},
    {"ffi.ArrayContains", &array_contains_function, NULL},
    {"ffi.List", &list_function, NULL},
    {"ffi.ListGetItem", &list_get_item_function, NULL},
    {"ffi.ListSetItem", &list_set_item_function, NULL},
    {"ffi.ListSize", &list_size_function, NULL},
    {"ffi.ListContains", &list_contains_function, NULL},
    {"ffi.ListAppend", &list_append_function, NULL},
    {"ffi.ListInsert", &list_insert_function, NULL},
    {"ffi.ListPop", &list_pop_function, NULL},
    {"ffi.ListErase", &list_erase_function, NULL},
    {"ffi.ListEraseRange", &list_erase_range_function, NULL},
    {"ffi.ListReplaceSlice", &list_replace_slice_function, NULL},
    {"ffi.ListReverse", &list_reverse_function, NULL},
    {"ffi.ListClear", &list_clear_function, NULL},
    {"ffi.ListReserve", &list_reserve_function, NULL},
    {"ffi.Map", &map_function, NULL},
    {"ffi.MapSize", &map_size_function, NULL},
    {"ffi.MapGetItem", &map_get_item_function, NULL},
    {"ffi.MapCount", &map_count_function, NULL},
    {"ffi.MapForwardIterFunctor", &map_forward_iter_functor_function, NULL},
    {"ffi.MapGetItemOrMissing", &map_get_item_or_missing_function, NULL},
    {"ffi.Dict", &dict_function, NULL},
    {"ffi.DictSize", &dict_size_function, NULL},
    {"ffi.DictGetItem", &dict_get_item_function, NULL},
    {"ffi.DictSetItem", &dict_set_item_function, NULL},
    {"ffi.DictCount", &dict_count_function, NULL},
    {"ffi.DictErase", &dict_erase_function, NULL},
    {"ffi.DictClear", &dict_clear_function, NULL},
    {"ffi.DictForwardIterFunctor", &dict_forward_iter_functor_function, NULL},
    {"ffi.DictGetItemOrMissing", &dict_get_item_or_missing_function, NULL},
    {"ffi.Shape", &shape_function, NULL},
    {"ffi.ContainerFindFirstNonCPUDevice", &container_find_first_non_cpu_device_function, NULL},
};

const xffi_builtin_table xffi_globals_container = {container_globals,
                                                   sizeof(container_globals) / sizeof(container_globals[0])};
