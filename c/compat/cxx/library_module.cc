// c/compat/cxx/library_module.cc: this runtime's library modules as C++ ModuleObjs,
// and the module operations of the ffi.* globals for every Module.
//
// A library module is allocated by the C side (c/lib/module/module.c) in
// ModuleObj's Itanium layout: the vtable pointer, then the Object header,
// then imports_ and import_lookup_cache_. The C side asks this file to build
// the C++ part in place (placement new of LibraryModuleObj, whose virtual
// functions answer from the C side's symbol lookups), then sets up the
// header itself; it calls the destructor before freeing the memory. So C++
// code calls mod->GetFunction(...) on it like on any ModuleObj, and the C
// side serves ffi.ModuleGetFunction and its siblings through ModuleObj's
// functions, for its own modules and C++ libraries' subclasses alike.
//
// The table is installed while libtvm_ffi.so loads (a static object's
// constructor), before any module can exist.
#include <tvm/ffi/extra/module.h>

#include <new>

#include "compat/cxx/cxx_half.h"

namespace xffi_cxx {

// ModuleObj::InternalUnsafe::GetFunctionFromImports (c/compat/cxx/module_obj.cc).
TVMFFIObject *LookupFromImports(ffi::ModuleObj *module, const char *name);

namespace {

using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::Module;
using ffi::ModuleObj;
using ffi::Object;
using ffi::Optional;
using ffi::String;

class LibraryModuleObj final : public ModuleObj {
 public:
  const char *kind() const final { return "library"; }

  int GetPropertyMask() const final { return Module::kBinarySerializable | Module::kRunnable; }

  Optional<Function> GetFunction(const String &name) final {
    xffi_object *function = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(xffi_module_own_function(&function, Self(), name.data(), name.size()));
    if (function == nullptr) return std::nullopt;
    return ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<Function>(
        ffi::detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(AsObject(function)));
  }

  Optional<String> GetFunctionDoc(const String &name) final { return Text(ffi::symbol::tvm_ffi_doc_prefix, name); }
  Optional<String> GetFunctionMetadata(const String &name) final {
    return Text(ffi::symbol::tvm_ffi_metadata_prefix, name);
  }

  // Reachable only in the ways the C side built it.
  LibraryModuleObj() = default;

 private:
  xffi_object *Self() { return reinterpret_cast<xffi_object *>(static_cast<Object *>(this)); }

  Optional<String> Text(const char *prefix, const String &name) {
    TVMFFIAny text;
    TVM_FFI_CHECK_SAFE_CALL(xffi_module_own_text(AsCAny(&text), Self(), prefix, name.data(), name.size()));
    Any value = TakeFromC(&text);
    if (value == nullptr) return std::nullopt;
    return value.cast<String>();
  }

  friend struct Shell;
};

ModuleObj *AsModule(xffi_object *module) { return static_cast<ModuleObj *>(AsObject(module)); }

String ByteString(const char *data, size_t size) { return String(data, size); }

struct Shell {
  static int Construct(void *shell) {
    TVM_FFI_SAFE_CALL_BEGIN();
    new (shell) LibraryModuleObj();
    TVM_FFI_SAFE_CALL_END();
  }

  static void Destruct(void *shell) { static_cast<LibraryModuleObj *>(shell)->~LibraryModuleObj(); }
};

int GetFunction(xffi_object **out, xffi_object *module, const char *name, size_t name_len, int query_imports) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = nullptr;
  Optional<Function> function = AsModule(module)->GetFunction(ByteString(name, name_len), query_imports != 0);
  if (function.has_value()) *out = ReleaseToC(*std::move(function));
  TVM_FFI_SAFE_CALL_END();
}

int GetText(xffi_any *out, xffi_object *module, const char *prefix, const char *name, size_t name_len,
            int query_imports) {
  TVM_FFI_SAFE_CALL_BEGIN();
  bool doc = std::strcmp(prefix, ffi::symbol::tvm_ffi_doc_prefix) == 0;
  String key = ByteString(name, name_len);
  ModuleObj *m = AsModule(module);
  Optional<String> text =
      doc ? m->GetFunctionDoc(key, query_imports != 0) : m->GetFunctionMetadata(key, query_imports != 0);
  ReleaseToC(out, text.has_value() ? Any(*std::move(text)) : Any());
  TVM_FFI_SAFE_CALL_END();
}

int Implements(int *out, xffi_object *module, const char *name, size_t name_len, int query_imports) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = AsModule(module)->ImplementsFunction(ByteString(name, name_len), query_imports != 0);
  TVM_FFI_SAFE_CALL_END();
}

Module Borrow(xffi_object *module) {
  return ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<Module>(
      ffi::detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(AsObject(module)));
}

int ImportModule(xffi_object *module, xffi_object *other) {
  TVM_FFI_SAFE_CALL_BEGIN();
  AsModule(module)->ImportModule(Borrow(other));
  TVM_FFI_SAFE_CALL_END();
}

int ClearImports(xffi_object *module) {
  TVM_FFI_SAFE_CALL_BEGIN();
  AsModule(module)->ClearImports();
  TVM_FFI_SAFE_CALL_END();
}

int Imports(xffi_object **out, xffi_object *module) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = ReleaseToC(AsModule(module)->imports());
  TVM_FFI_SAFE_CALL_END();
}

int LookupFromImports(xffi_object **out, xffi_object *module, const char *name) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = reinterpret_cast<xffi_object *>(xffi_cxx::LookupFromImports(AsModule(module), name));
  TVM_FFI_SAFE_CALL_END();
}

int Describe(xffi_any *out, int what, xffi_object *module, const xffi_any *string_args) {
  TVM_FFI_SAFE_CALL_BEGIN();
  ModuleObj *m = AsModule(module);
  const ffi::AnyView *strings = ViewOf(string_args);
  Any answer;
  switch (what) {
    case XFFI_MODULE_KIND: answer = String(m->kind()); break;
    case XFFI_MODULE_PROPERTY_MASK: answer = m->GetPropertyMask(); break;
    case XFFI_MODULE_WRITE_FORMATS: answer = m->GetWriteFormats(); break;
    case XFFI_MODULE_INSPECT_SOURCE: answer = m->InspectSource(strings[0].cast<String>()); break;
    case XFFI_MODULE_WRITE_TO_FILE: m->WriteToFile(strings[0].cast<String>(), strings[1].cast<String>()); break;
    default: TVM_FFI_THROW(InternalError) << "no module question " << what;
  }
  ReleaseToC(out, std::move(answer));
  TVM_FFI_SAFE_CALL_END();
}

// The C side's layout must be the one this compiler gives ModuleObj.
bool LayoutMatches() {
  alignas(LibraryModuleObj) unsigned char probe_storage[sizeof(LibraryModuleObj)];
  auto *probe = reinterpret_cast<LibraryModuleObj *>(probe_storage);
  const char *start = reinterpret_cast<const char *>(probe);
  const char *header = reinterpret_cast<const char *>(static_cast<Object *>(probe));
  return static_cast<size_t>(header - start) == xffi_module_shell_prefix() &&
         sizeof(LibraryModuleObj) == xffi_module_shell_prefix() + sizeof(TVMFFIObject) + 2 * sizeof(void *);
}

const xffi_module_cxx_half kHalf = {
    sizeof(LibraryModuleObj),
    Shell::Construct,
    Shell::Destruct,
    GetFunction,
    GetText,
    Implements,
    ImportModule,
    ClearImports,
    Imports,
    LookupFromImports,
    Describe,
};

struct Installer {
  Installer() {
    if (LayoutMatches()) xffi_module_cxx_half_set(&kHalf);
  }
} installer;

}  // namespace
}  // namespace xffi_cxx
