/* xffi/xffi.h: the umbrella header. Including it gives the whole everyday C API.
 *
 * The naming grammar of the public C API. Every name follows these rules, so
 * a name says what the function does, who owns what, and how it fails.
 *
 * 1. Prefix. xffi_<module>_<verb or noun>[_<qualifier>], module spelled in
 *    full, one module per concept: object, weak, type, any, error, string,
 *    bytes, shape, dims, dtype, device, tensor, array, list, map, dict,
 *    function, arg, module, testing (xffi_version and xffi_abi_version name
 *    the library itself). Types are xffi_<noun>, macros XFFI_*.
 *      xffi_function_new (never an abbreviation), xffi_bytes_hash (module, then verb)
 * 2. Verbs.
 *      new[_<how>]  makes an object: *out gets a new reference
 *                   (xffi_array_new, xffi_function_new_direct)
 *      get          an element by index or key, an owned copy; absent is an
 *                   error (IndexError, KeyError): xffi_array_get, xffi_map_get
 *      lookup       the same where absent is not an error (*out NULL):
 *                   xffi_map_lookup, xffi_function_global_lookup
 *      set, push, pop, insert, erase, clear, reserve: change a container;
 *                   erase removes (never "remove"), pop removes and hands the
 *                   removed value to the caller
 *      to_<kind>    checked conversion into *out: xffi_any_to_int, xffi_arg_to_int
 *      from_<form>, to_<form>  between representations: xffi_tensor_from_dlpack
 *      cell_of      checked access to an object's cell (the struct after the
 *                   header), borrowed: xffi_string_cell_of(&bytes, obj)
 *      a noun       a property: xffi_array_length, xffi_module_path, xffi_type_key
 * 3. Containers. Array/List and Map/Dict have the same changing operations:
 *    on Array and Map they are copy-on-write (`xffi_object **` in/out), on
 *    List and Dict in place. Read-only operations exist once, under the
 *    immutable kind's name, and accept both kinds:
 *      xffi_array_reserve(&array, 8) and xffi_list_reserve(list, 8);
 *      xffi_map_pop(&out, &map, &key) and xffi_dict_pop(&out, dict, &key);
 *      xffi_array_get(&out, list, 0), xffi_map_length(&n, dict).
 * 4. Parameters. Outputs first (out, then out_<what>), then the object acted
 *    on, then inputs; in/out state (a cursor) after the object:
 *      xffi_function_global_names(out_names, &out_count, capacity)
 *      xffi_map_next(&item, map, &cursor)
 * 5. Status. A function that can fail returns int XFFI_OK or XFFI_FAIL with an
 *    Error in the thread's raised slot (xffi/error.h); its name and argument
 *    appear in the message: "xffi_array_get: index 5 is out of range ...".
 * 6. Predicates. is_, has_, contains, equal. One that cannot fail returns 1
 *    or 0; one that checks its arguments returns a status and writes 1 or 0
 *    to `int *out`:
 *      xffi_any_is_object(&v); xffi_object_is_a(&yes, obj, XFFI_TYPE_STRING)
 * 7. Sizes. Element counts and indices are int64_t (xffi_array_length);
 *    ndim and argument counts are int32_t as in DLPack (xffi_shape_new,
 *    xffi_tensor_new, num_args); bytes of host memory are size_t
 *    (xffi_map_memory_bytes); a tensor's byte size is uint64_t, since device
 *    memory may exceed the host's size_t (xffi_tensor_nbytes).
 * 8. Ownership words in every doc comment: "new reference" (the caller
 *    releases it), "borrowed" (the caller keeps its own, valid while the
 *    source lives), "stolen" (the callee takes the caller's reference):
 *      "*out receives a new reference", "obj (borrowed)", "err ... (stolen)".
 * 9. Suffixes.
 *      _unchecked   trusts what the plain form checks (an object's type, a
 *                   range); breaking it is undefined behaviour, not an error:
 *                   xffi_string_cell_of_unchecked(obj), xffi_object_is_a_unchecked
 *      _inline      the same contract as the exported function without the
 *                   suffix, inlined: xffi_object_inc_ref_inline
 *      _raw         the bare tvm-ffi style operation, status passed on as is:
 *                   xffi_function_call_raw
 *      _v           takes a va_list: xffi_error_raise_v
 *      trailing _   exported only for the headers' own inline code and macros;
 *                   never call it: xffi_type_table_, xffi_export_failed_
 * 10. Tiers. Everyday API in include/xffi/<name>.h (this header includes them
 *    all). Cells, unchecked inline helpers and trailing-underscore exports
 *    live in include/xffi/sys/<name>.h, included on purpose by runtimes, bindings
 *    and hot loops: #include <xffi/sys/string.h>. An everyday header includes
 *    a sys header only where its own inline code needs it.
 * Compatibility names (TVMFFI*) and tvm-ffi layouts are not renamed. */
#ifndef XFFI_XFFI_H
#define XFFI_XFFI_H

#include <xffi/export.h>
#include <xffi/version.h>
#include <xffi/dlpack.h>
#include <xffi/object.h>
#include <xffi/type.h>
#include <xffi/any.h>
#include <xffi/error.h>
#include <xffi/string.h>
#include <xffi/dtype.h>
#include <xffi/shape.h>
#include <xffi/tensor.h>
#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/function.h>
#include <xffi/module.h>
#include <xffi/recursive.h>
#include <xffi/structural.h>
#include <xffi/json.h>

#endif /* XFFI_XFFI_H */
