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
    {"ffi.Array", &array_function, "*"},
    {"ffi.ArrayGetItem", &array_get_item_function, "Any(ffi.Array,int)"},
    {"ffi.ArraySize", &array_size_function, "int(ffi.Array)"},
    {"ffi.ArrayContains", &array_contains_function, "bool(ffi.Array,Any)"},
    {"ffi.List", &list_function, "*"},
    {"ffi.ListGetItem", &list_get_item_function, "Any(ffi.List,int)"},
    {"ffi.ListSetItem", &list_set_item_function, "None(ffi.List<Any>,int,Any)"},
    {"ffi.ListSize", &list_size_function, "int(ffi.List)"},
    {"ffi.ListContains", &list_contains_function, "bool(ffi.List,Any)"},
    {"ffi.ListAppend", &list_append_function, "None(ffi.List<Any>,Any)"},
    {"ffi.ListInsert", &list_insert_function, "None(ffi.List<Any>,int,Any)"},
    {"ffi.ListPop", &list_pop_function, "Any(ffi.List<Any>,int)"},
    {"ffi.ListErase", &list_erase_function, "None(ffi.List<Any>,int)"},
    {"ffi.ListEraseRange", &list_erase_range_function, "None(ffi.List<Any>,int,int)"},
    {"ffi.ListReplaceSlice", &list_replace_slice_function, "None(ffi.List<Any>,int,int,ffi.List<Any>)"},
    {"ffi.ListReverse", &list_reverse_function, "None(ffi.List<Any>)"},
    {"ffi.ListClear", &list_clear_function, "None(ffi.List<Any>)"},
    {"ffi.ListReserve", &list_reserve_function, "None(ffi.List<Any>,int)"},
    {"ffi.Map", &map_function, "*"},
    {"ffi.MapSize", &map_size_function, "int(ffi.Map)"},
    {"ffi.MapGetItem", &map_get_item_function, "Any(ffi.Map,Any)"},
    {"ffi.MapCount", &map_count_function, "int(ffi.Map,Any)"},
    {"ffi.MapForwardIterFunctor", &map_forward_iter_functor_function, "ffi.Function(ffi.Map)"},
    {"ffi.MapGetItemOrMissing", &map_get_item_or_missing_function, "Any(ffi.Map,Any)"},
    {"ffi.Dict", &dict_function, "*"},
    {"ffi.DictSize", &dict_size_function, "int(ffi.Dict)"},
    {"ffi.DictGetItem", &dict_get_item_function, "Any(ffi.Dict,Any)"},
    {"ffi.DictSetItem", &dict_set_item_function, "None(ffi.Dict<Any,Any>,Any,Any)"},
    {"ffi.DictCount", &dict_count_function, "int(ffi.Dict,Any)"},
    {"ffi.DictErase", &dict_erase_function, "None(ffi.Dict<Any,Any>,Any)"},
    {"ffi.DictClear", &dict_clear_function, "None(ffi.Dict<Any,Any>)"},
    {"ffi.DictForwardIterFunctor", &dict_forward_iter_functor_function, "ffi.Function(ffi.Dict)"},
    {"ffi.DictGetItemOrMissing", &dict_get_item_or_missing_function, "Any(ffi.Dict,Any)"},
    {"ffi.Shape", &shape_function, "*"},
    {"ffi.ContainerFindFirstNonCPUDevice", &container_find_first_non_cpu_device_function, "Device(Any)"},
};

const xffi_builtin_table xffi_globals_container = {container_globals,
                                                   sizeof(container_globals) / sizeof(container_globals[0])};
