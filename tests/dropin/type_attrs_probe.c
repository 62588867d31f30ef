/* tests/dropin/type_attrs_probe.c: prints the type attributes a runtime
 * (a libtvm_ffi.so, loaded by path) registers on its own types, and what
 * the native hooks among them do when called, one fact a line, so that
 * tests/dropin/test_type_attrs.py can compare the wheel's runtime with
 * xffi's drop-in line by line (each in a process of its own).
 *
 *   type_attrs_probe LIBTVM_FFI ATTR_NAME...
 *
 * Lines: "attr TYPE_KEY NAME KIND" for every registered entry (KIND: the
 * value's type index); "final TYPE_KEY VALUE" for __ffi_type_final__;
 * "new ..." for each Function __ffi_new__ called (and __ffi_shallow_copy__
 * on its result); "visit ..." and "mutate ..." for the structural hooks, called with a
 * visitor or mutator made here in tvm-ffi's layout (an object header, the
 * vtable pointer, the definition-region kind). Built against tvm-ffi's
 * c_api.h; calls the runtime only through the symbols it looks up. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

typedef const TVMFFITypeAttrColumn *(*get_column_fn)(const TVMFFIByteArray *);
typedef const TVMFFITypeInfo *(*get_type_info_fn)(int32_t);
typedef int (*key_to_index_fn)(const TVMFFIByteArray *, int32_t *);
typedef int (*get_global_fn)(const TVMFFIByteArray *, TVMFFIObjectHandle *);
typedef int (*call_fn)(TVMFFIObjectHandle, TVMFFIAny *, int32_t, TVMFFIAny *);
typedef int (*dec_ref_fn)(TVMFFIObjectHandle);
typedef int (*from_bytes_fn)(const TVMFFIByteArray *, TVMFFIAny *);
typedef void (*move_error_fn)(TVMFFIObjectHandle *);

static get_column_fn get_column;
static get_type_info_fn get_type_info;
static key_to_index_fn key_to_index;
static get_global_fn get_global;
static call_fn call;
static dec_ref_fn dec_ref, inc_ref;
static from_bytes_fn string_from_bytes, bytes_from_bytes, bigint_from_bytes;
static move_error_fn error_move_from_raised;

static void *must_find(void *lib, const char *name) {
  void *symbol = dlsym(lib, name);
  if (!symbol) {
    fprintf(stderr, "the runtime has no %s\n", name);
    exit(2);
  }
  return symbol;
}

static TVMFFIByteArray bytes_of(const char *text) { return (TVMFFIByteArray){text, strlen(text)}; }

static TVMFFIAny int_any(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny none_any(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}

static const char *key_of(int32_t type_index) {
  const TVMFFITypeInfo *info = get_type_info(type_index);
  return info ? info->type_key.data : "?";
}

/* Calls the global function name with args; exits on failure. */
static TVMFFIAny call_global(const char *name, TVMFFIAny *args, int32_t num_args) {
  TVMFFIByteArray n = bytes_of(name);
  TVMFFIObjectHandle f = NULL;
  TVMFFIAny result = none_any();
  if (get_global(&n, &f) != 0 || !f || call(f, args, num_args, &result) != 0) {
    fprintf(stderr, "calling %s failed\n", name);
    exit(2);
  }
  dec_ref(f);
  return result;
}

static const TVMFFIAny *entry_of(const char *attr, int32_t type_index) {
  TVMFFIByteArray name = bytes_of(attr);
  const TVMFFITypeAttrColumn *column = get_column(&name);
  if (!column || type_index < 0 || (size_t)type_index >= (size_t)column->size) return NULL;
  const TVMFFIAny *entry = &column->data[type_index];
  return entry->type_index == kTVMFFINone ? NULL : entry;
}

/* ---- A visitor and a mutator in tvm-ffi's layout (StructuralVisitorObj,
 * StructuralMutatorObj: the object header, the vtable, the region). ---- */
typedef TVMFFIAny (*hook_fn)(void *self, TVMFFIAny value);
typedef struct visitor_vtable {
  hook_fn visit;
} visitor_vtable;
typedef struct mutator_vtable {
  hook_fn mutate, maybe_inplace_mutate;
  void *var_remap_get, *var_remap_set;
} mutator_vtable;
typedef struct probe_walker {
  TVMFFIObject header;
  const void *vtable;
  int32_t def_region_kind;
} probe_walker;

static int visits, stop_at;
static TVMFFIAny stop_value;

static void print_value(const char *prefix, TVMFFIAny v) {
  if (v.type_index == kTVMFFIInt)
    printf("%s int %lld", prefix, (long long)v.v_int64);
  else
    printf("%s %s", prefix, key_of(v.type_index));
}

static TVMFFIAny record_visit(void *self, TVMFFIAny value) {
  (void)self;
  print_value(" ", value);
  if (++visits == stop_at) { /* a visitor's result is owned by the caller */
    inc_ref(stop_value.v_obj);
    return stop_value;
  }
  return none_any();
}

static const char *mutate_mode;
/* Ints go up by one in "add" mode; everything is left as it is in
 * "unchanged" mode (tvm-ffi's marker). */
static TVMFFIAny mutate_value(void *self, TVMFFIAny value, const char *path) {
  (void)self;
  printf(" %s", path);
  print_value("", value);
  if (strcmp(mutate_mode, "add") == 0 && value.type_index == kTVMFFIInt) return int_any(value.v_int64 + 1);
  TVMFFIAny unchanged = none_any();
  unchanged.type_index = kTVMFFIUnchanged;
  return unchanged;
}
static TVMFFIAny record_mutate(void *self, TVMFFIAny value) { return mutate_value(self, value, "mutate"); }
static TVMFFIAny record_inplace(void *self, TVMFFIAny value) { return mutate_value(self, value, "inplace"); }

static const visitor_vtable visit_table = {record_visit};
static const mutator_vtable mutate_table = {record_mutate, record_inplace, NULL, NULL};

static probe_walker walker(int32_t type_key_index, const void *vtable) {
  probe_walker w;
  memset(&w, 0, sizeof(w));
  w.header.combined_ref_count = 1u << 30; /* never released: it lives on this stack */
  w.header.type_index = type_key_index;
  w.vtable = vtable;
  return w;
}

/* Prints the elements of a container value through ffi.ArrayGetItem and
 * friends would need more globals; a seq's size and items are read through
 * ffi.ArraySize / ffi.ArrayGetItem (Array, and List by its own pair). */
static void print_seq(const char *size_fn, const char *item_fn, TVMFFIAny seq) {
  TVMFFIAny args[2] = {seq, none_any()};
  TVMFFIAny size = call_global(size_fn, args, 1);
  printf(" [");
  for (int64_t i = 0; i < size.v_int64; ++i) {
    args[1] = int_any(i);
    TVMFFIAny item = call_global(item_fn, args, 2);
    print_value(i ? "," : "", item);
    if (item.type_index >= kTVMFFIStaticObjectBegin) dec_ref(item.v_obj);
  }
  printf(" ]");
}

/* The elements of an Array or List; the value at key 10 of a Map or Dict. */
static void print_contents(TVMFFIAny v) {
  if (v.type_index == kTVMFFIArray) print_seq("ffi.ArraySize", "ffi.ArrayGetItem", v);
  if (v.type_index == kTVMFFIList) print_seq("ffi.ListSize", "ffi.ListGetItem", v);
  if (v.type_index == kTVMFFIMap || v.type_index == kTVMFFIDict) {
    TVMFFIAny args[2] = {v, int_any(10)};
    TVMFFIAny got = call_global(v.type_index == kTVMFFIMap ? "ffi.MapGetItem" : "ffi.DictGetItem", args, 2);
    print_value(" [10] =", got);
    if (got.type_index >= kTVMFFIStaticObjectBegin) dec_ref(got.v_obj);
  }
}

typedef struct sample {
  const char *type_key;
  TVMFFIAny value;
} sample;

static TVMFFIAny make_container(const char *constructor) {
  TVMFFIAny args[4] = {int_any(10), int_any(100), int_any(20), int_any(200)};
  return call_global(constructor, args, 4);
}

static void probe_visit(const sample *s, int32_t visitor_index) {
  const TVMFFIAny *hook = entry_of("__s_visit__", s->value.type_index);
  if (!hook || hook->type_index != kTVMFFIOpaquePtr) return;
  hook_fn fn;
  memcpy(&fn, &hook->v_ptr, sizeof(fn));
  probe_walker w = walker(visitor_index, &visit_table);
  TVMFFIAny args[1] = {int_any(7)};
  stop_value = call_global("ffi.VisitInterrupt", args, 1);
  for (int stop = 0; stop <= 2; stop += 2) {
    visits = 0;
    stop_at = stop;
    printf("visit %s stop_at=%d:", s->type_key, stop);
    TVMFFIAny result = fn(&w, s->value);
    printf(" -> %s%s\n", key_of(result.type_index),
           result.type_index >= kTVMFFIStaticObjectBegin && result.v_obj == stop_value.v_obj ? " (the visitor's)" : "");
    if (result.type_index >= kTVMFFIStaticObjectBegin) dec_ref(result.v_obj);
  }
  dec_ref(stop_value.v_obj);
}

static void probe_mutate(const sample *s, int32_t mutator_index, const char *attr) {
  const TVMFFIAny *hook = entry_of(attr, s->value.type_index);
  if (!hook || hook->type_index != kTVMFFIOpaquePtr) return;
  hook_fn fn;
  memcpy(&fn, &hook->v_ptr, sizeof(fn));
  probe_walker w = walker(mutator_index, &mutate_table);
  static const char *const modes[] = {"unchanged", "add"};
  for (int m = 0; m < 2; ++m) {
    mutate_mode = modes[m];
    printf("mutate %s %s mode=%s:", attr, s->type_key, mutate_mode);
    TVMFFIAny result = fn(&w, s->value);
    printf(" -> %s", key_of(result.type_index));
    if (result.type_index >= kTVMFFIStaticObjectBegin) {
      printf(result.v_obj == s->value.v_obj ? " (the same object)" : " (a new object)");
      print_contents(result);
      dec_ref(result.v_obj);
    }
    printf("\n");
  }
  /* What the value holds now (an in-place hook may have changed it). */
  printf("after %s %s:", attr, s->type_key);
  print_contents(s->value);
  printf("\n");
}

/* Calls function (borrowed) with args; prints what came back, or the error
 * kind. *result receives the value (owned), None on failure. */
static void print_call(TVMFFIObjectHandle function, TVMFFIAny *args, int32_t num_args, TVMFFIAny *result) {
  *result = none_any();
  if (call(function, args, num_args, result) != 0) {
    TVMFFIObjectHandle err = NULL;
    error_move_from_raised(&err);
    printf(" -> an error");
    if (err) dec_ref(err);
    *result = none_any();
    return;
  }
  printf(" -> %s", key_of(result->type_index));
}

/* __ffi_new__ of each type that has one as a Function, called with no
 * arguments; then its __ffi_shallow_copy__ on what came back. */
static void probe_constructors(void) {
  TVMFFIByteArray name = bytes_of("__ffi_new__");
  const TVMFFITypeAttrColumn *column = get_column(&name);
  for (int32_t t = 0; column && t < column->size; ++t) {
    if (column->data[t].type_index != kTVMFFIFunction) continue;
    TVMFFIAny made = none_any();
    printf("new %s:", key_of(t));
    print_call(column->data[t].v_obj, NULL, 0, &made);
    const TVMFFIAny *copy = entry_of("__ffi_shallow_copy__", t);
    if (copy && copy->type_index == kTVMFFIFunction && made.type_index >= kTVMFFIStaticObjectBegin) {
      TVMFFIAny copied = none_any();
      printf("; shallow copy");
      print_call(copy->v_obj, &made, 1, &copied);
      if (copied.type_index >= kTVMFFIStaticObjectBegin) {
        printf(copied.v_obj == made.v_obj ? " (the same object)" : " (a new object)");
        dec_ref(copied.v_obj);
      }
    }
    if (made.type_index >= kTVMFFIStaticObjectBegin) dec_ref(made.v_obj);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBTVM_FFI ATTR_NAME...\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  get_column = (get_column_fn)must_find(lib, "TVMFFIGetTypeAttrColumn");
  get_type_info = (get_type_info_fn)must_find(lib, "TVMFFIGetTypeInfo");
  key_to_index = (key_to_index_fn)must_find(lib, "TVMFFITypeKeyToIndex");
  get_global = (get_global_fn)must_find(lib, "TVMFFIFunctionGetGlobal");
  call = (call_fn)must_find(lib, "TVMFFIFunctionCall");
  dec_ref = (dec_ref_fn)must_find(lib, "TVMFFIObjectDecRef");
  inc_ref = (dec_ref_fn)must_find(lib, "TVMFFIObjectIncRef");
  error_move_from_raised = (move_error_fn)must_find(lib, "TVMFFIErrorMoveFromRaised");
  string_from_bytes = (from_bytes_fn)must_find(lib, "TVMFFIStringFromByteArray");
  bytes_from_bytes = (from_bytes_fn)must_find(lib, "TVMFFIBytesFromByteArray");
  bigint_from_bytes = (from_bytes_fn)must_find(lib, "TVMFFIBigIntFromByteArray");

  /* The runtime's own types, by key (a lookup is what makes a runtime that
   * registers them on first use register them). */
  int32_t visitor_index = -1, mutator_index = -1;
  TVMFFIByteArray key = bytes_of("ffi.StructuralVisitor");
  if (key_to_index(&key, &visitor_index) != 0) return 2;
  key = bytes_of("ffi.StructuralMutator");
  if (key_to_index(&key, &mutator_index) != 0) return 2;

  /* Every entry of every column named. */
  for (int i = 2; i < argc; ++i) {
    TVMFFIByteArray name = bytes_of(argv[i]);
    const TVMFFITypeAttrColumn *column = get_column(&name);
    if (!column) continue;
    for (int32_t t = 0; t < column->size; ++t) {
      const TVMFFIAny *entry = &column->data[t];
      if (entry->type_index == kTVMFFINone) continue;
      printf("attr %s %s %d\n", key_of(t), argv[i], entry->type_index);
      if (strcmp(argv[i], "__ffi_type_final__") == 0) printf("final %s %lld\n", key_of(t), (long long)entry->v_int64);
    }
  }

  probe_constructors();

  /* The structural hooks, called. */
  const char long_text[] = "a string longer than a small one";
  int64_t big_words[2] = {1, 1}; /* 2^64 + 1 */
  TVMFFIByteArray text = bytes_of(long_text), words = {(const char *)big_words, sizeof(big_words)};
  sample samples[9] = {{"ffi.Array", make_container("ffi.Array")},
                       {"ffi.List", make_container("ffi.List")},
                       {"ffi.Map", make_container("ffi.Map")},
                       {"ffi.Dict", make_container("ffi.Dict")},
                       {"ffi.String", none_any()},
                       {"ffi.Bytes", none_any()},
                       {"ffi.BigInt", none_any()},
                       {"ffi.Array of a String", none_any()},
                       {"ffi.Array of an Array", none_any()}};
  if (string_from_bytes(&text, &samples[4].value) != 0 || bytes_from_bytes(&text, &samples[5].value) != 0 ||
      bigint_from_bytes(&words, &samples[6].value) != 0)
    return 2;
  /* An Array holding the only reference to a String: an in-place hook asks
   * for the String in place too. */
  TVMFFIAny element = none_any();
  if (string_from_bytes(&text, &element) != 0) return 2;
  samples[7].value = call_global("ffi.Array", &element, 1);
  dec_ref(element.v_obj);
  TVMFFIAny inner[2] = {int_any(1), int_any(2)};
  element = call_global("ffi.Array", inner, 2);
  samples[8].value = call_global("ffi.Array", &element, 1);
  dec_ref(element.v_obj);
  for (int i = 0; i < 9; ++i) {
    probe_visit(&samples[i], visitor_index);
    probe_mutate(&samples[i], mutator_index, "__s_mutate__");
    probe_mutate(&samples[i], mutator_index, "__s_maybe_inplace_mutate__");
    dec_ref(samples[i].value.v_obj);
  }
  return 0;
}
