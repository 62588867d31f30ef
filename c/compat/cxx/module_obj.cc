// c/compat/cxx/module_obj.cc: the out-of-line members of tvm-ffi's ModuleObj and
// Module (its extra/module.h), which C++ code built against tvm-ffi's
// headers imports from libtvm_ffi.so. Defining ImportModule, ModuleObj's
// first virtual function that is not inline, emits its vtable and type info
// here. They work on any ModuleObj through its virtual functions: this
// runtime's library modules (c/compat/cxx/library_module.cc) and C++
// libraries' subclasses alike.
#include <tvm/ffi/extra/module.h>

#include <mutex>
#include <vector>

#include "compat/cxx/cxx_half.h"

namespace tvm {
namespace ffi {

// The friend that reaches ModuleObj's private lookup cache.
struct ModuleObj::InternalUnsafe {
  // TVMFFIEnvModLookupFromImports: the cache, then the imports (each with
  // its own imports), then the global registry; a miss is a RuntimeError.
  // Returns a Function borrowed from self's cache.
  static TVMFFIObject *GetFunctionFromImports(ModuleObj *self, const char *name) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    String key(name);
    auto cached = self->import_lookup_cache_.find(key);
    if (cached != self->import_lookup_cache_.end()) {
      return detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef((*cached).second);
    }
    Optional<Function> found;
    for (const Any &import : self->imports_) {
      found = import.cast<Module>()->GetFunction(key, true);
      if (found.has_value()) break;
    }
    if (!found.has_value()) found = Function::GetGlobal(std::string_view(name));
    if (!found.has_value()) {
      TVM_FFI_THROW(RuntimeError) << "Cannot find function " << name << " in the imported modules or global registry";
    }
    self->import_lookup_cache_.Set(key, *found);
    return detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*found);
  }
};

Optional<Function> ModuleObj::GetFunction(const String &name, bool query_imports) {
  if (Optional<Function> own = this->GetFunction(name)) return own;
  if (query_imports) {
    for (const Any &import : imports_) {
      if (Optional<Function> found = import.cast<Module>()->GetFunction(name, query_imports)) return found;
    }
  }
  return std::nullopt;
}

bool ModuleObj::ImplementsFunction(const String &name, bool query_imports) {
  if (this->ImplementsFunction(name)) return true;
  if (query_imports) {
    for (const Any &import : imports_) {
      if (import.cast<Module>()->ImplementsFunction(name, query_imports)) return true;
    }
  }
  return false;
}

Optional<String> ModuleObj::GetFunctionDoc(const String &name, bool query_imports) {
  if (Optional<String> own = this->GetFunctionDoc(name)) return own;
  if (query_imports) {
    for (const Any &import : imports_) {
      if (Optional<String> found = import.cast<Module>()->GetFunctionDoc(name, query_imports)) return found;
    }
  }
  return std::nullopt;
}

Optional<String> ModuleObj::GetFunctionMetadata(const String &name, bool query_imports) {
  if (Optional<String> own = this->GetFunctionMetadata(name)) return own;
  if (query_imports) {
    for (const Any &import : imports_) {
      if (Optional<String> found = import.cast<Module>()->GetFunctionMetadata(name, query_imports)) return found;
    }
  }
  return std::nullopt;
}

// Refuses an import that would close a cycle: this module reachable from
// other (other itself included), searched with a heap stack.
void ModuleObj::ImportModule(const Module &other) {
  std::vector<const ModuleObj *> stack{other.get()};
  std::vector<const ModuleObj *> seen;
  while (!stack.empty()) {
    const ModuleObj *next = stack.back();
    stack.pop_back();
    if (next == this) TVM_FFI_THROW(RuntimeError) << "Cyclic dependency detected during import";
    bool visited = false;
    for (const ModuleObj *m : seen) visited = visited || m == next;
    if (visited) continue;
    seen.push_back(next);
    for (const Any &import : next->imports()) stack.push_back(import.cast<Module>().get());
  }
  imports_.push_back(other);
}

void ModuleObj::ClearImports() { imports_.clear(); }

Module Module::LoadFromFile(const String &file_name) {
  return xffi_cxx::CallGlobal("ffi.ModuleLoadFromFile", file_name).cast<Module>();
}

void Module::VisitContextSymbols(const TypedFunction<void(String, void *)> &callback) {
  // The visitor runs C++ code: an exception stops the walk and is thrown
  // again once the C side has returned.
  struct Walk {
    const TypedFunction<void(String, void *)> *callback;
    std::exception_ptr error;
  } walk{&callback, nullptr};
  xffi_context_symbols_visit(
      [](void *payload, const char *name, void *address) -> int {
        Walk *w = static_cast<Walk *>(payload);
        try {
          (*w->callback)(String(name), address);
          return 0;
        } catch (...) {
          w->error = std::current_exception();
          return 1;
        }
      },
      &walk);
  if (walk.error) std::rethrow_exception(walk.error);
}

}  // namespace ffi
}  // namespace tvm

namespace xffi_cxx {
TVMFFIObject *LookupFromImports(ffi::ModuleObj *module, const char *name) {
  return ffi::ModuleObj::InternalUnsafe::GetFunctionFromImports(module, name);
}
}  // namespace xffi_cxx
