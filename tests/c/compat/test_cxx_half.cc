// test_cxx_half: the C++ half of tvm-ffi's ABI in the drop-in libtvm_ffi.so
// (c/compat/cxx/), from a program built as tvm-ffi's users build (the wheel's
// headers) and linked to the drop-in only: xffi's library modules are C++
// ModuleObjs (virtual calls, imports), a ModuleObj subclass made here (a
// kernel runner, as flashinfer's) works through the ffi.Module* globals and
// TVMFFIEnvModLookupFromImports, and the free functions (JSON, structural,
// recursive, repr, deep copy) answer with tvm-ffi's results and errors.
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/tvm_ffi.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {  // this cmocka declares its functions without C linkage for C++
#include <cmocka.h>
}

#include <string>
#include <vector>

namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Array;
using ffi::Function;
using ffi::Module;
using ffi::ModuleObj;
using ffi::Optional;
using ffi::String;

namespace {

// A module of kernels made by a C++ library, as flashinfer's runners are:
// its functions live in a table, not in a shared library's symbols.
class RunnerModule : public ModuleObj {
 public:
  RunnerModule() {
    functions_.Set("run", Function::FromTyped([](int64_t x) { return x * 3; }));
  }
  const char *kind() const final { return "runner"; }
  int GetPropertyMask() const final { return Module::kRunnable; }
  Optional<Function> GetFunction(const String &name) final {
    auto it = functions_.find(name);
    if (it == functions_.end()) return std::nullopt;
    return (*it).second;
  }
  Optional<String> GetFunctionDoc(const String &name) final {
    if (name == "run") return String("Triples an int.");
    return std::nullopt;
  }

 private:
  ffi::Map<String, Function> functions_;
};

Module MakeRunner() { return Module(ffi::make_object<RunnerModule>()); }

Any CallGlobal(const char *name, std::vector<ffi::AnyView> args) {
  Function f = Function::GetGlobalRequired(std::string_view(name));
  Any result;
  f.CallPacked(args.data(), static_cast<int32_t>(args.size()), &result);
  return result;
}

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const ffi::Error &error) {
    return error.kind() + ": " + error.message();
  }
  return "(no error)";
}

bool Contains(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

void test_library_module_answers_virtual_calls(void **) {
  Module lib = Module::LoadFromFile(XFFI_TEST_PLUGIN_TVM_MODULE);
  assert_string_equal(lib->kind(), "library");
  assert_int_equal(lib->GetPropertyMask(), Module::kBinarySerializable | Module::kRunnable);
  Optional<Function> add_one = lib->GetFunction("add_one");
  assert_true(add_one.has_value());
  assert_int_equal((*add_one)(41).cast<int64_t>(), 42);
  assert_false(lib->GetFunction("no_such_function").has_value());
  assert_true(lib->ImplementsFunction("add_one"));
  assert_false(lib->ImplementsFunction("no_such_function"));
  assert_string_equal(lib->GetFunctionDoc("add_one").value().c_str(), "Adds one to an int.");
  assert_string_equal(lib->GetFunctionMetadata("add_one").value().c_str(), "{\"type_schema\":\"int\"}");
  assert_false(lib->GetFunctionDoc("twice").has_value());
  // A getter's error comes back as the C++ exception.
  assert_true(Contains(ErrorOf([&] { lib->GetFunctionDoc("add_one_bad"); }), "no doc today"));
  assert_int_equal(lib->imports().size(), 0);
}

void test_imports_answer_with_and_without_query(void **) {
  Module lib = Module::LoadFromFile(XFFI_TEST_PLUGIN_TVM_MODULE);
  Module dep = Module::LoadFromFile(XFFI_TEST_PLUGIN_TVM_MODULE_DEP);
  lib->ImportModule(dep);
  assert_int_equal(lib->imports().size(), 1);
  assert_false(lib->GetFunction("twice", false).has_value());
  Optional<Function> twice = lib->GetFunction("twice", true);
  assert_true(twice.has_value());
  assert_int_equal((*twice)(5).cast<int64_t>(), 10);
  // The module's own function comes before an import's of the same name.
  assert_int_equal(lib->GetFunction("add_one", true).value()(1).cast<int64_t>(), 2);
  assert_true(lib->ImplementsFunction("twice", true));
  assert_false(lib->ImplementsFunction("twice", false));
  assert_true(Contains(lib->GetFunctionDoc("twice", true).value(), "Doubles an int"));
  assert_string_equal(lib->GetFunctionMetadata("twice", true).value().c_str(), "{}");
  std::string cycle = ErrorOf([&] { dep->ImportModule(lib); });
  assert_true(Contains(cycle, "RuntimeError"));
  assert_true(Contains(cycle, "yclic dependency"));
  // The globals see the same imports.
  assert_true(CallGlobal("ffi.ModuleGetFunction", {lib, "twice", true}) != nullptr);
  lib->ClearImports();
  assert_int_equal(lib->imports().size(), 0);
  assert_false(lib->GetFunction("twice", true).has_value());
}

void test_cxx_module_works_through_the_globals(void **) {
  Module runner = MakeRunner();
  Any run = CallGlobal("ffi.ModuleGetFunction", {runner, "run", false});
  assert_int_equal(run.cast<Function>()(7).cast<int64_t>(), 21);
  assert_true(CallGlobal("ffi.ModuleGetFunction", {runner, "missing", true}) == nullptr);
  assert_string_equal(CallGlobal("ffi.ModuleGetKind", {runner}).cast<String>().c_str(), "runner");
  assert_int_equal(CallGlobal("ffi.ModuleGetPropertyMask", {runner}).cast<int64_t>(), Module::kRunnable);
  assert_true(CallGlobal("ffi.ModuleImplementsFunction", {runner, "run", false}).cast<bool>());
  assert_string_equal(CallGlobal("ffi.ModuleGetFunctionDoc", {runner, "run", false}).cast<String>().c_str(),
                      "Triples an int.");
  assert_true(CallGlobal("ffi.ModuleGetFunctionMetadata", {runner, "run", false}) == nullptr);
  assert_int_equal(CallGlobal("ffi.ModuleGetWriteFormats", {runner}).cast<Array<String>>().size(), 0);
  assert_string_equal(CallGlobal("ffi.ModuleInspectSource", {runner, "asm"}).cast<String>().c_str(), "");
  std::string write = ErrorOf([&] { CallGlobal("ffi.ModuleWriteToFile", {runner, "/tmp/x", "so"}); });
  assert_true(Contains(write, "Module[runner] does not support WriteToFile"));

  // A library module imports the runner: found with query_imports only.
  Module lib = Module::LoadFromFile(XFFI_TEST_PLUGIN_TVM_MODULE);
  CallGlobal("ffi.ModuleImportModule", {lib, runner});
  assert_true(CallGlobal("ffi.ModuleGetFunction", {lib, "run", false}) == nullptr);
  assert_int_equal(CallGlobal("ffi.ModuleGetFunction", {lib, "run", true}).cast<Function>()(2).cast<int64_t>(), 6);
  assert_string_equal(CallGlobal("ffi.ModuleGetFunctionDoc", {lib, "run", true}).cast<String>().c_str(),
                      "Triples an int.");
  // The library's own code finds it through TVMFFIEnvModLookupFromImports
  // (its __tvm_ffi__library_ctx is the library module).
  Function call_imported = lib->GetFunction("call_imported").value();
  assert_int_equal(call_imported("run", 4).cast<int64_t>(), 12);
  std::string cycle = ErrorOf([&] { CallGlobal("ffi.ModuleImportModule", {runner, lib}); });
  assert_true(Contains(cycle, "yclic dependency"));
}

void test_lookup_from_imports_on_a_cxx_module(void **) {
  Module runner = MakeRunner();
  runner->ImportModule(Module::LoadFromFile(XFFI_TEST_PLUGIN_TVM_MODULE_DEP));
  TVMFFIObjectHandle handle = ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(runner);
  void *found = nullptr, *again = nullptr;
  assert_int_equal(TVMFFIEnvModLookupFromImports(handle, "twice", &found), 0);
  assert_non_null(found);
  assert_int_equal(TVMFFIEnvModLookupFromImports(handle, "twice", &again), 0);
  assert_ptr_equal(found, again);  // cached in the module, borrowed
  // The global registry comes after the imports.
  assert_int_equal(TVMFFIEnvModLookupFromImports(handle, "ffi.String", &found), 0);
  assert_non_null(found);
  assert_int_equal(TVMFFIEnvModLookupFromImports(handle, "no.such.function", &found), -1);
  TVMFFIObjectHandle error = nullptr;
  TVMFFIErrorMoveFromRaised(&error);
  assert_non_null(error);
  ffi::Error e = ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Error>(
      ffi::detail::ObjectUnsafe::ObjectPtrFromOwned<ffi::Object>(static_cast<TVMFFIObject *>(error)));
  assert_string_equal(e.message().c_str(),
                      "Cannot find function no.such.function in the imported modules or global registry");
}

int context_target;

void test_context_symbols_are_visited(void **) {
  assert_int_equal(TVMFFIEnvModRegisterContextSymbol("xffi_cxx_half_context", &context_target), 0);
  std::vector<std::string> names;
  void *address = nullptr;
  Module::VisitContextSymbols(ffi::TypedFunction<void(String, void *)>([&](String name, void *symbol) {
    names.push_back(name);
    if (name == "xffi_cxx_half_context") address = symbol;
  }));
  assert_ptr_equal(address, &context_target);
  // A visitor's exception stops the walk and comes out.
  std::string stopped = ErrorOf([] {
    Module::VisitContextSymbols(
        ffi::TypedFunction<void(String, void *)>([](String, void *) { TVM_FFI_THROW(ValueError) << "stop here"; }));
  });
  assert_true(Contains(stopped, "ValueError: stop here"));
}

void test_json_functions(void **) {
  Any parsed = ffi::json::Parse("{\"a\": [1, 2.5, \"x\", null, true]}");
  ffi::Map<String, Any> object = parsed.cast<ffi::Map<String, Any>>();
  Array<Any> items = object["a"].cast<Array<Any>>();
  assert_int_equal(items.size(), 5);
  assert_int_equal(items[0].cast<int64_t>(), 1);
  assert_string_equal(ffi::json::Stringify(items).c_str(), "[1,2.5,\"x\",null,true]");
  assert_true(Contains(ffi::json::Stringify(items, 2), "\n  1,"));
  String why;
  Any bad = ffi::json::Parse("[1, ", &why);
  assert_true(bad == nullptr);
  assert_true(why.size() > 0);
  assert_true(ErrorOf([] { ffi::json::Parse("[1, "); }) != "(no error)");
}

void test_structural_and_recursive_functions(void **) {
  Array<Any> a{1, 2, String("three")}, b{1, 2, String("three")}, c{1, 2, String("four")};
  assert_true(ffi::StructuralEqual::Equal(a, b));
  assert_false(ffi::StructuralEqual::Equal(a, c));
  assert_false(ffi::StructuralEqual::GetFirstMismatch(a, b).has_value());
  assert_true(ffi::StructuralEqual::GetFirstMismatch(a, c).has_value());
  assert_true(ffi::StructuralHash::Hash(a) == ffi::StructuralHash::Hash(b));
  assert_true(ffi::StructuralHash::Hash(a) != ffi::StructuralHash::Hash(c));
  assert_true(ffi::RecursiveEq(a, b));
  assert_false(ffi::RecursiveEq(a, c));
  assert_true(ffi::RecursiveLt(Array<Any>{1, 2}, Array<Any>{1, 3}));
  assert_true(ffi::RecursiveLe(a, b));
  assert_true(ffi::RecursiveGt(Array<Any>{2}, Array<Any>{1, 9}));
  assert_true(ffi::RecursiveGe(a, b));
  assert_true(ffi::RecursiveHash(a) == ffi::RecursiveHash(b));
  Any copy = ffi::DeepCopy(a);
  assert_true(copy.cast<Array<Any>>().get() != a.get());
  assert_true(ffi::RecursiveEq(copy, a));
  assert_string_equal(ffi::ReprPrint(Array<Any>{1, 2}).c_str(), "(1, 2)");
  Any graph = ffi::ToJSONGraph(a);
  assert_true(ffi::StructuralEqual::Equal(ffi::FromJSONGraph(graph), a));
  // An error inside comes back as ffi::Error, caught by its type.
  std::string bad = ErrorOf([] { ffi::FromJSONGraph(Any(1)); });
  assert_true(bad != "(no error)");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_library_module_answers_virtual_calls),
      cmocka_unit_test(test_imports_answer_with_and_without_query),
      cmocka_unit_test(test_cxx_module_works_through_the_globals),
      cmocka_unit_test(test_lookup_from_imports_on_a_cxx_module),
      cmocka_unit_test(test_context_symbols_are_visited),
      cmocka_unit_test(test_json_functions),
      cmocka_unit_test(test_structural_and_recursive_functions),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
