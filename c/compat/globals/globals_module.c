/* c/compat/globals/globals_module.c: the runtime's ffi.* global functions of the module
 * side (c/compat/globals/builtin_globals.h), with tvm-ffi's names, arguments and results
 * (its module.cc, library_module_dynamic_lib.cc, library_module_system_lib.cc).
 * Every module this runtime makes is a library module (a shared library or
 * the system library): kind "library", runnable and binary-serialisable, no
 * write formats, no source. Each function checks its arguments (count and
 * kinds) and raises a TypeError or ValueError naming the global. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/string.h>

#include "compat/globals/builtin_globals.h"
#include "lib/module/module_internal.h"
#include "lib/module/module_cxx.h"

#define LOAD_FROM_FILE_PREFIX "ffi.Module.load_from_file."

/* Argument index of args as a Module this runtime can read (borrowed): its
 * own, or with the C++ half linked any C++ ModuleObj. */
static int module_at(xffi_object **out, const xffi_any *args, int32_t num_args, int32_t index, const char *fn) {
  if (xffi_arg_to_object(out, args, num_args, index, XFFI_TYPE_MODULE, fn) != XFFI_OK) return XFFI_FAIL;
  if (!xffi_module_is_readable(*out))
    return xffi_error_raise(
        XFFI_KIND_TYPE, "%s: argument %d is a Module of another runtime, which this one cannot read", fn, (int)index);
  return XFFI_OK;
}

/* (Module, name, query_imports), the shape of the lookup globals. */
static int lookup_args(xffi_object **module, xffi_byte_array *name, int *query_imports, const xffi_any *args,
                       int32_t num_args, const char *fn) {
  if (xffi_arg_check_signature(args, num_args, "osb", fn) != XFFI_OK) return XFFI_FAIL;
  if (module_at(module, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(name, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_arg_to_bool(query_imports, args, num_args, 2, fn);
}

/* A NUL-terminated copy of a byte run (new allocation, xffi_free), or NULL
 * with an error raised (ValueError for a NUL inside, naming fn and what). */
static char *c_string(xffi_byte_array s, const char *fn, const char *what) {
  if (s.size && memchr(s.data, '\0', s.size)) {
    xffi_error_raise(XFFI_KIND_VALUE, "%s: %s holds a NUL character", fn, what);
    return NULL;
  }
  char *copy = xffi_alloc(s.size + 1);
  if (!copy) {
    xffi_error_raise_out_of_memory();
    return NULL;
  }
  if (s.size) memcpy(copy, s.data, s.size);
  copy[s.size] = '\0';
  return copy;
}

static int load_from_file(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.ModuleLoadFromFile";
  xffi_byte_array path;
  if (xffi_arg_check_signature(args, num_args, "s", fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&path, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  size_t dot = path.size;
  while (dot > 0 && path.data[dot - 1] != '.') --dot;
  if (dot == 0)
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: failed to get the file format from '%.*s' (no extension)", fn,
                            (int)(path.size > 512 ? 512 : path.size), path.data);
  xffi_byte_array format = {path.data + dot, path.size - dot};
  /* The shared-library extensions of other systems load as "so", as in tvm-ffi. */
  static const char *const library_formats[] = {"dll", "dylib", "dso"};
  for (size_t i = 0; i < sizeof library_formats / sizeof library_formats[0]; ++i)
    if (format.size == strlen(library_formats[i]) && memcmp(format.data, library_formats[i], format.size) == 0)
      format = (xffi_byte_array){"so", 2};
  char loader_name[128];
  if (format.size > sizeof loader_name - sizeof LOAD_FROM_FILE_PREFIX || memchr(format.data, '\0', format.size))
    return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: no loader for files named '%.*s' (the extension is too long)", fn,
                            (int)(path.size > 512 ? 512 : path.size), path.data);
  memcpy(loader_name, LOAD_FROM_FILE_PREFIX, sizeof LOAD_FROM_FILE_PREFIX - 1);
  memcpy(loader_name + sizeof LOAD_FROM_FILE_PREFIX - 1, format.data, format.size);
  loader_name[sizeof LOAD_FROM_FILE_PREFIX - 1 + format.size] = '\0';
  xffi_object *loader;
  if (xffi_function_global_lookup(&loader, loader_name) != XFFI_OK) return XFFI_FAIL;
  if (!loader)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: the loader for '.%.*s' files is not registered (the global function %s)", fn,
                            (int)format.size, format.data, loader_name);
  xffi_any call_args[2] = {args[0], xffi_any_none()};
  xffi_object *format_string;
  int status = xffi_string_new(&format_string, format.data, format.size);
  if (status == XFFI_OK) {
    call_args[1] = xffi_any_object(format_string);
    status = xffi_function_call(loader, call_args, 2, result);
    xffi_object_dec_ref(format_string);
  }
  xffi_object_dec_ref(loader);
  if (status != XFFI_OK) return XFFI_FAIL;
  if (result->type_index != XFFI_TYPE_MODULE) {
    const char *got = xffi_any_kind_name(result);
    xffi_any_release(result);
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s returned %s, not a Module", fn, loader_name, got);
  }
  return XFFI_OK;
}

static int load_shared_library(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = LOAD_FROM_FILE_PREFIX "so";
  xffi_byte_array path;
  if (xffi_arg_check_signature(args, num_args, "ss", fn) != XFFI_OK) return XFFI_FAIL;
  if (xffi_arg_to_str(&path, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  char *c_path = c_string(path, fn, "the path");
  if (!c_path) return XFFI_FAIL;
  xffi_object *module;
  int status = xffi_module_load(&module, c_path);
  xffi_free(c_path);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(module);
  return XFFI_OK;
}

static int get_function(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *module, *function;
  xffi_byte_array name;
  int query_imports;
  if (lookup_args(&module, &name, &query_imports, args, num_args, "ffi.ModuleGetFunction") != XFFI_OK) return XFFI_FAIL;
  if (xffi_module_get_function(&function, module, name, query_imports) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(function); /* None when absent */
  return XFFI_OK;
}

static int get_text(const char *fn, const char *prefix, const xffi_any *args, int32_t num_args, xffi_any *result) {
  xffi_object *module;
  xffi_byte_array name;
  int query_imports;
  if (lookup_args(&module, &name, &query_imports, args, num_args, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_module_get_text(result, module, prefix, name, query_imports);
}

static int get_function_doc(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return get_text("ffi.ModuleGetFunctionDoc", XFFI_DOC_PREFIX, args, num_args, result);
}

static int get_function_metadata(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return get_text("ffi.ModuleGetFunctionMetadata", XFFI_METADATA_PREFIX, args, num_args, result);
}

static int implements_function(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  xffi_object *module;
  xffi_byte_array name;
  int query_imports, implements;
  if (lookup_args(&module, &name, &query_imports, args, num_args, "ffi.ModuleImplementsFunction") != XFFI_OK)
    return XFFI_FAIL;
  if (xffi_module_implements(&implements, module, name, query_imports) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(implements);
  return XFFI_OK;
}

/* The globals taking the module alone (and maybe strings after it). */
static int module_only(xffi_object **module, const xffi_any *args, int32_t num_args, const char *signature,
                       const char *fn) {
  if (xffi_arg_check_signature(args, num_args, signature, fn) != XFFI_OK) return XFFI_FAIL;
  return module_at(module, args, num_args, 0, fn);
}

/* The globals that ask a module about itself (ffi.ModuleGetKind, ...): with
 * the C++ half its virtual function answers, for any Module; without it,
 * every Module is this runtime's library module, and the answers are fixed. */
static int describe(int what, const char *signature, const char *fn, const xffi_any *args, int32_t num_args,
                    xffi_any *result) {
  xffi_object *module, *formats;
  if (module_only(&module, args, num_args, signature, fn) != XFFI_OK) return XFFI_FAIL;
  const xffi_module_cxx_half *half = xffi_module_cxx_half_get();
  if (half) return half->describe(result, what, module, &args[1]);
  switch (what) {
    case XFFI_MODULE_KIND: return xffi_any_from_str(result, "library", 7);
    case XFFI_MODULE_PROPERTY_MASK:
      *result = xffi_any_int(XFFI_MODULE_BINARY_SERIALIZABLE | XFFI_MODULE_RUNNABLE);
      return XFFI_OK;
    case XFFI_MODULE_WRITE_FORMATS:
      if (xffi_array_new(&formats, NULL, 0) != XFFI_OK) return XFFI_FAIL;
      *result = xffi_any_object(formats);
      return XFFI_OK;
    case XFFI_MODULE_INSPECT_SOURCE: return xffi_any_from_str(result, "", 0);
    default: return xffi_error_raise(XFFI_KIND_RUNTIME, "%s: Module[library] does not support WriteToFile", fn);
  }
}

static int get_kind(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return describe(XFFI_MODULE_KIND, "o", "ffi.ModuleGetKind", args, num_args, result);
}

static int get_property_mask(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return describe(XFFI_MODULE_PROPERTY_MASK, "o", "ffi.ModuleGetPropertyMask", args, num_args, result);
}

static int get_write_formats(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return describe(XFFI_MODULE_WRITE_FORMATS, "o", "ffi.ModuleGetWriteFormats", args, num_args, result);
}

static int inspect_source(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return describe(XFFI_MODULE_INSPECT_SOURCE, "os", "ffi.ModuleInspectSource", args, num_args, result);
}

static int write_to_file(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  return describe(XFFI_MODULE_WRITE_TO_FILE, "oss", "ffi.ModuleWriteToFile", args, num_args, result);
}

static int import_module(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  (void)result;
  static const char fn[] = "ffi.ModuleImportModule";
  xffi_object *module, *other;
  if (module_only(&module, args, num_args, "oo", fn) != XFFI_OK) return XFFI_FAIL;
  if (module_at(&other, args, num_args, 1, fn) != XFFI_OK) return XFFI_FAIL;
  return xffi_module_import(module, other);
}

static int clear_imports(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  (void)result;
  xffi_object *module;
  if (module_only(&module, args, num_args, "o", "ffi.ModuleClearImports") != XFFI_OK) return XFFI_FAIL;
  return xffi_module_clear_imports(module);
}

static int globals_add(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  (void)result;
  xffi_object *module;
  if (module_only(&module, args, num_args, "o", "ffi.ModuleGlobalsAdd") != XFFI_OK) return XFFI_FAIL;
  return xffi_module_globals_add(module);
}

static int globals_remove(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  (void)result;
  xffi_object *module;
  if (module_only(&module, args, num_args, "o", "ffi.ModuleGlobalsRemove") != XFFI_OK) return XFFI_FAIL;
  return xffi_module_globals_remove(module);
}

static int system_lib(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  static const char fn[] = "ffi.SystemLib";
  xffi_byte_array prefix = {"", 0};
  if (num_args > 0 && xffi_arg_check_signature(args, num_args, "s", fn) != XFFI_OK) return XFFI_FAIL;
  if (num_args < 0) return xffi_arg_check_signature(args, num_args, "", fn);
  if (num_args == 1 && xffi_arg_to_str(&prefix, args, num_args, 0, fn) != XFFI_OK) return XFFI_FAIL;
  char *c_prefix = c_string(prefix, fn, "the symbol prefix");
  if (!c_prefix) return XFFI_FAIL;
  xffi_object *module;
  int status = xffi_system_lib_module(&module, c_prefix, prefix.size);
  xffi_free(c_prefix);
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_object(module);
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(load_from_file_function, load_from_file);
XFFI_BUILTIN_FUNCTION(load_shared_library_function, load_shared_library);
XFFI_BUILTIN_FUNCTION(get_function_function, get_function);
XFFI_BUILTIN_FUNCTION(get_function_doc_function, get_function_doc);
XFFI_BUILTIN_FUNCTION(get_function_metadata_function, get_function_metadata);
XFFI_BUILTIN_FUNCTION(implements_function_function, implements_function);
XFFI_BUILTIN_FUNCTION(get_kind_function, get_kind);
XFFI_BUILTIN_FUNCTION(get_property_mask_function, get_property_mask);
XFFI_BUILTIN_FUNCTION(get_write_formats_function, get_write_formats);
XFFI_BUILTIN_FUNCTION(inspect_source_function, inspect_source);
XFFI_BUILTIN_FUNCTION(write_to_file_function, write_to_file);
XFFI_BUILTIN_FUNCTION(import_module_function, import_module);
XFFI_BUILTIN_FUNCTION(clear_imports_function, clear_imports);
XFFI_BUILTIN_FUNCTION(globals_add_function, globals_add);
XFFI_BUILTIN_FUNCTION(globals_remove_function, globals_remove);
XFFI_BUILTIN_FUNCTION(system_lib_function, system_lib);

static const xffi_builtin_global module_globals[] = {
    {"ffi.ModuleLoadFromFile", &load_from_file_function, "ffi.Module(ffi.String)"},
    {LOAD_FROM_FILE_PREFIX "so", &load_shared_library_function, "ffi.Module(ffi.String,ffi.String)"},
    {"ffi.ModuleGetFunction", &get_function_function, "Optional<ffi.Function>(ffi.Module,ffi.String,bool)"},
    {"ffi.ModuleGetFunctionDoc", &get_function_doc_function, "Optional<ffi.String>(ffi.Module,ffi.String,bool)"},
    {"ffi.ModuleGetFunctionMetadata", &get_function_metadata_function,
     "Optional<ffi.String>(ffi.Module,ffi.String,bool)"},
    {"ffi.ModuleImplementsFunction", &implements_function_function, "bool(ffi.Module,ffi.String,bool)"},
    {"ffi.ModuleGetKind", &get_kind_function, "ffi.String(ffi.Module)"},
    {"ffi.ModuleGetPropertyMask", &get_property_mask_function, "int(ffi.Module)"},
    {"ffi.ModuleGetWriteFormats", &get_write_formats_function, "ffi.Array<ffi.String>(ffi.Module)"},
    {"ffi.ModuleInspectSource", &inspect_source_function, "ffi.String(ffi.Module,ffi.String)"},
    {"ffi.ModuleWriteToFile", &write_to_file_function, "None(ffi.Module,ffi.String,ffi.String)"},
    {"ffi.ModuleImportModule", &import_module_function, "None(ffi.Module,ffi.Module)"},
    {"ffi.ModuleClearImports", &clear_imports_function, "None(ffi.Module)"},
    {"ffi.ModuleGlobalsAdd", &globals_add_function, "None(ffi.Module)"},
    {"ffi.ModuleGlobalsRemove", &globals_remove_function, "None(ffi.Module)"},
    {"ffi.SystemLib", &system_lib_function, "*"},
};

const xffi_builtin_table xffi_globals_module = {module_globals, sizeof module_globals / sizeof module_globals[0]};
