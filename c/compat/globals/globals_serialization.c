/* c/compat/globals/globals_serialization.c: ffi.json.Parse, ffi.json.Stringify,
 * ffi.ToJSONGraph and ffi.ToJSONGraphString (c/compat/globals/builtin_globals.h), over
 * xffi_json_parse, xffi_json_stringify (c/lib/text/json_parse.c, c/lib/text/json_write.c)
 * xffi_to_json, xffi_to_json_text and xffi_from_json (c/lib/text/serialization_write.c,
 * c/lib/text/serialization_write_text.c, c/lib/text/serialization_read.c), and ffi.FromJSONGraph/FromJSONGraphString.
 */
#include <xffi/function.h>
#include <xffi/json.h>

#include "compat/globals/builtin_globals.h"
#include "runtime/global_args.h"
#include "lib/text/serialization_read.h"

/* (json_str: str) -> the value (a new reference in *result). */
static int global_json_parse(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.json.Parse";
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array text;
  if (xffi_arg_to_str(&text, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_json_parse(result, text.data, text.size);
}

/* (value, indent: int | None = None) -> str (a new String in *result). */
static int global_json_stringify(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.json.Stringify";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 1 || num_args > 2)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected 1 or 2 arguments, got %d", fn, (int)num_args);
  int64_t indent = 0;
  if (num_args == 2 && args[1].type_index != XFFI_TYPE_NONE) {
    if (xffi_arg_to_int(&indent, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
    if (indent < 0 || indent > 1024)
      return xffi_error_raise(XFFI_KIND_VALUE, "%s: argument 1 (indent): expected 0 to 1024, got %lld", fn,
                              (long long)indent);
  }
  xffi_object *text;
  if (xffi_json_stringify(&text, &args[0], (int)indent) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(text);
  return XFFI_OK;
}

/* (value, metadata = None) -> the graph (a new Map in *result). */
static int global_to_json_graph(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ToJSONGraph";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 1 || num_args > 2)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected 1 or 2 arguments, got %d", fn, (int)num_args);
  return xffi_to_json(result, &args[0], num_args == 2 ? &args[1] : NULL);
}

/* (value, metadata = None) -> the graph's compact JSON text (a new String). */
static int global_to_json_graph_string(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ToJSONGraphString";
  if (xffi_global_check_call(fn, args, num_args, XFFI_GLOBAL_ANY_COUNT, result) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 1 || num_args > 2)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected 1 or 2 arguments, got %d", fn, (int)num_args);
  xffi_object *text;
  if (xffi_to_json_text(&text, &args[0], num_args == 2 ? &args[1] : NULL) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(text);
  return XFFI_OK;
}

/* (graph) -> the value (a new reference in *result). */
static int global_from_json_graph(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  if (xffi_global_check_call("ffi.FromJSONGraph", args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  return xffi_from_json(result, &args[0]);
}

/* (json_str: str) -> the value (a new reference in *result). */
static int global_from_json_graph_string(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.FromJSONGraphString";
  if (xffi_global_check_call(fn, args, num_args, 1, result) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array text;
  if (xffi_arg_to_str(&text, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_from_json_text(result, text.data, text.size);
}

XFFI_BUILTIN_FUNCTION(json_parse_function, global_json_parse);
XFFI_BUILTIN_FUNCTION(json_stringify_function, global_json_stringify);
XFFI_BUILTIN_FUNCTION(to_json_graph_function, global_to_json_graph);
XFFI_BUILTIN_FUNCTION(to_json_graph_string_function, global_to_json_graph_string);
XFFI_BUILTIN_FUNCTION(from_json_graph_function, global_from_json_graph);
XFFI_BUILTIN_FUNCTION(from_json_graph_string_function, global_from_json_graph_string);

static const xffi_builtin_global serialization_globals[] = {
    {"ffi.json.Parse", &json_parse_function, "Any(ffi.String)"},
    {"ffi.json.Stringify", &json_stringify_function, "ffi.String(Any,Optional<int>)"},
    {"ffi.ToJSONGraph", &to_json_graph_function, "Any(Any,Any)"},
    {"ffi.ToJSONGraphString", &to_json_graph_string_function, "ffi.String(Any,Any)"},
    {"ffi.FromJSONGraph", &from_json_graph_function, "Any(Any)"},
    {"ffi.FromJSONGraphString", &from_json_graph_string_function, "Any(ffi.String)"},
};

const xffi_builtin_table xffi_globals_serialization = {
    serialization_globals, sizeof(serialization_globals) / sizeof(serialization_globals[0])};
