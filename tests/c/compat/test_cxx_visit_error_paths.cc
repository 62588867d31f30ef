// test_cxx_visit_error_paths: tvm::ffi::VisitErrorContext::FindAccessPaths
// (the C++ half's export, c/compat/cxx/extra_functions.cc), from a program
// built as tvm-ffi's users build it (the wheel's headers): a C++ visitor over
// reflected C++ objects throws with TVM_FFI_VISIT_THROW and records its
// frames with TVM_FFI_VISIT_BEGIN/END, so the context and the objects are
// the C++ headers' own; FindAccessPaths turns the context back into access
// paths from the root (through fields, Array and List items, Map and Dict
// values). The same source is built twice (tests/cmake/cxx_visit_error_paths.cmake):
// linked to the drop-in, and linked to the wheel's libtvm_ffi.so, so both
// runtimes give the expected paths.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/registry.h>
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
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Array;
using ffi::ObjectRef;
using ffi::String;
using refl::AccessKind;
using refl::AccessPath;

namespace {

// A reflected node with two Any fields, declared and registered as a
// tvm-ffi user does.
class PairObj : public ffi::Object {
 public:
  Any left, right;
  PairObj() = default;
  PairObj(Any l, Any r) : left(std::move(l)), right(std::move(r)) {}
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("xffi.test.VisitPathPair", PairObj, ffi::Object);
};

class Pair : public ObjectRef {
 public:
  Pair(Any l, Any r) : ObjectRef(ffi::make_object<PairObj>(std::move(l), std::move(r))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Pair, ObjectRef, PairObj);
};

void RegisterPair() {
  static bool done = false;
  if (done) return;
  refl::ObjectDef<PairObj>().def_ro("left", &PairObj::left).def_ro("right", &PairObj::right);
  done = true;
}

// A visitor that descends through Pairs' fields, Arrays, Maps and Dicts (not
// Lists), recording
// each Pair it leaves by an error (TVM_FFI_VISIT_END), and throws at `bad`
// (TVM_FFI_VISIT_THROW seeds the context with it).
struct FailingVisitor {
  ObjectRef bad;

  void Visit(const Any &value) {
    if (auto pair = value.as<Pair>()) {
      VisitPair(*pair);
    } else if (auto array = value.as<Array<Any>>()) {
      for (const Any &item : *array) Visit(item);
    } else if (auto map = value.as<ffi::Map<Any, Any>>()) {
      for (const auto &kv : *map) Visit(kv.second);
    } else if (auto dict = value.as<ffi::Dict<Any, Any>>()) {
      for (const auto &kv : *dict) Visit(kv.second);
    }
  }

  void VisitPair(const Pair &node) {
    TVM_FFI_VISIT_BEGIN();
    if (node.same_as(bad)) TVM_FFI_VISIT_THROW(ValueError, node) << "bad node";
    Visit(node->left);
    Visit(node->right);
    TVM_FFI_VISIT_END(node);
  }
};

// The context the visitor's error carries, visiting root.
ffi::VisitErrorContext ContextOfFailure(const ObjectRef &root, const ObjectRef &bad) {
  try {
    FailingVisitor{bad}.Visit(root);
  } catch (const ffi::Error &error) {
    assert_string_equal(error.message().c_str(), "bad node");
    ffi::Optional<ffi::VisitErrorContext> context = ffi::VisitErrorContext::TryGetFromError(error);
    assert_true(context.has_value());
    return *context;
  }
  fail_msg("the visitor did not throw");
  return ffi::VisitErrorContext(ffi::make_object<ffi::VisitErrorContextObj>());
}

// "<root>.left[1]["k"]": a path's steps as text.
std::string Describe(const AccessPath &path) {
  std::string out = "<root>";
  for (const refl::AccessStep &step : path->ToSteps()) {
    switch (step->kind) {
      case AccessKind::kAttr: out += "." + std::string(step->key.cast<String>()); break;
      case AccessKind::kArrayItem: out += "[" + std::to_string(step->key.cast<int64_t>()) + "]"; break;
      case AccessKind::kMapItem: out += "[\"" + std::string(step->key.cast<String>()) + "\"]"; break;
      default: out += "<other step>"; break;
    }
  }
  return out;
}

std::vector<std::string> DescribeAll(const Array<AccessPath> &paths) {
  std::vector<std::string> out;
  for (const AccessPath &path : paths) out.push_back(Describe(path));
  return out;
}

void assert_paths(const Array<AccessPath> &got, const std::vector<std::string> &want) {
  std::vector<std::string> described = DescribeAll(got);
  std::string joined;
  for (const std::string &d : described) joined += d + " ";
  if (described != want) fail_msg("paths: %s", joined.c_str());
}

ffi::List<ObjectRef> PatternOf(const ffi::VisitErrorContext &context) { return context->reverse_visit_pattern; }

void test_the_path_runs_through_fields_arrays_and_maps(void **) {
  RegisterPair();
  Pair target(1, 2);
  Pair middle(Any(), ffi::Map<Any, Any>{{String("k"), target}});
  Pair root(Array<Any>{Pair(3, 4), middle}, 5);
  ffi::VisitErrorContext context = ContextOfFailure(root, target);
  // Innermost first: the throw site, then each Pair left on the way out
  // (the throw site's own END collapses with it).
  ffi::List<ObjectRef> pattern = PatternOf(context);
  assert_int_equal(pattern.size(), 4);
  assert_true(pattern[0].same_as(target) && pattern[1].same_as(target));
  assert_true(pattern[2].same_as(middle) && pattern[3].same_as(root));
  Array<AccessPath> paths = ffi::VisitErrorContext::FindAccessPaths(root, context);
  assert_paths(paths, {"<root>.left[1].right[\"k\"]"});
  // The path is made of the runtime's AccessPaths: equal to one built here.
  AccessPath expected = AccessPath::Root()->Attr("left")->ArrayItem(1)->Attr("right")->MapItem(String("k"));
  assert_true(paths[0]->PathEqual(expected));
  assert_int_equal(paths[0]->depth, 4);
}

void test_a_node_reached_twice_gives_two_paths(void **) {
  RegisterPair();
  Pair shared(1, 2);
  Pair root(shared, ffi::List<Any>{7, shared});
  // The visitor only follows Arrays and Maps: the pattern is [shared, root]
  // found first through .left; the finder also walks the List.
  ffi::VisitErrorContext context = ContextOfFailure(root, shared);
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context), {"<root>.left", "<root>.right[1]"});
}

void test_the_root_itself_is_the_empty_path(void **) {
  RegisterPair();
  Pair root(1, 2);
  ffi::VisitErrorContext context = ContextOfFailure(root, root);
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context), {"<root>"});
}

// A context built here: records innermost first.
ffi::VisitErrorContext MakeContext(std::vector<ObjectRef> records) {
  ffi::ObjectPtr<ffi::VisitErrorContextObj> made = ffi::make_object<ffi::VisitErrorContextObj>();
  for (const ObjectRef &record : records) made->reverse_visit_pattern.push_back(record);
  return ffi::VisitErrorContext(made);
}

void test_a_path_through_a_dict_value(void **) {
  RegisterPair();
  Pair target(1, 2);
  Pair root(ffi::Dict<Any, Any>{{String("d"), target}}, 3);
  ffi::VisitErrorContext context = ContextOfFailure(root, target);
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context), {"<root>.left[\"d\"]"});
}

void test_a_pattern_cut_short_matches_as_a_prefix_only_when_asked(void **) {
  RegisterPair();
  Pair missing(8, 9), inner(1, 2);
  Pair root(ffi::Dict<Any, Any>{{String("d"), inner}}, 3);
  // The innermost record is nowhere under root: no full match; the deepest
  // matched node is reported when prefixes are allowed.
  ffi::VisitErrorContext context = MakeContext({missing, inner, root});
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context), {});
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context, true), {"<root>.left[\"d\"]"});
  // Only the root matched: an object below it under which nothing was
  // recorded is reported (inner, reached through the Dict; the root's own
  // path is empty and never reported).
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, MakeContext({missing, root}), true),
               {"<root>.left[\"d\"]"});
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(missing, MakeContext({inner, missing}), true), {});
}

void test_a_context_made_here_with_gaps_and_repeats(void **) {
  RegisterPair();
  Pair leaf(1, 2);
  Pair root(Array<Any>{0, leaf}, leaf);
  // Innermost first, with a repeated record and a None among them: both
  // are dropped before matching.
  ffi::VisitErrorContext context = MakeContext({leaf, leaf, ObjectRef(), root, root});
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(root, context), {"<root>.left[1]", "<root>.right"});
  // A root that is not the outermost record finds nothing.
  assert_paths(ffi::VisitErrorContext::FindAccessPaths(leaf, context), {});
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_path_runs_through_fields_arrays_and_maps),
      cmocka_unit_test(test_a_node_reached_twice_gives_two_paths),
      cmocka_unit_test(test_the_root_itself_is_the_empty_path),
      cmocka_unit_test(test_a_path_through_a_dict_value),
      cmocka_unit_test(test_a_pattern_cut_short_matches_as_a_prefix_only_when_asked),
      cmocka_unit_test(test_a_context_made_here_with_gaps_and_repeats),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
