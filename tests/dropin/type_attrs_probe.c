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

/* Describes value on one line: an int, a bool, a string's text, an
 * ffi.BigInt's decimal text (its own __data_to_json__), or a type key. */
static void print_value_full(TVMFFIAny v);

/* The fields of obj (borrowed, of type t), ancestors' first: "name=value",
 * and for an object field of a copy, whether it is the original's object. */
static void print_fields(TVMFFIObjectHandle obj, TVMFFIObjectHandle original) {
  const TVMFFITypeInfo *info = get_type_info(((TVMFFIObject *)obj)->type_index);
  for (int32_t depth = 0; info && depth <= info->type_depth; ++depth) {
    const TVMFFITypeInfo *level = depth == info->type_depth ? info : info->type_ancestors[depth];
    for (int32_t i = 0; i < level->num_fields; ++i) {
      const TVMFFIFieldInfo *field = &level->fields[i];
      TVMFFIAny value = none_any(), before = none_any();
      printf(" %.*s=", (int)field->name.size, field->name.data);
      if (field->getter((char *)obj + field->offset, &value) != 0) {
        printf("(getter failed)");
        continue;
      }
      print_value_full(value);
      if (original && value.type_index >= kTVMFFIStaticObjectBegin &&
          field->getter((char *)original + field->offset, &before) == 0) {
        printf(before.v_obj == value.v_obj ? "(shared)" : "(not shared)");
        if (before.type_index >= kTVMFFIStaticObjectBegin) dec_ref(before.v_obj);
      }
      if (value.type_index >= kTVMFFIStaticObjectBegin) dec_ref(value.v_obj);
    }
  }
}

/* Calls function (borrowed) with args; prints what came back, or the error
 * (its kind, and its message when with_message). *result receives the
 * value (owned), None on failure. */
static void print_call_full(TVMFFIObjectHandle function, TVMFFIAny *args, int32_t num_args, TVMFFIAny *result,
                            int with_message) {
  *result = none_any();
  if (call(function, args, num_args, result) != 0) {
    TVMFFIObjectHandle err = NULL;
    error_move_from_raised(&err);
    printf(" -> an error");
    if (err) {
      const TVMFFIErrorCell *cell = (const TVMFFIErrorCell *)((const char *)err + sizeof(TVMFFIObject));
      printf(" %.*s", (int)cell->kind.size, cell->kind.data);
      if (with_message) printf(": %.*s", (int)cell->message.size, cell->message.data);
      dec_ref(err);
    }
    *result = none_any();
    return;
  }
  printf(" -> ");
  print_value_full(*result);
}

/* __ffi_new__ of each type that has one as a Function, called with no
 * arguments; then its __ffi_shallow_copy__ on what came back; the fields
 * of both. */
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
        printf("\ncopy %s fields:", key_of(t));
        print_fields(copied.v_obj, made.v_obj);
        dec_ref(copied.v_obj);
      }
    }
    printf("\n");
    if (made.type_index >= kTVMFFIStaticObjectBegin) {
      printf("new %s fields:", key_of(t));
      print_fields(made.v_obj, NULL);
      printf("\n");
      dec_ref(made.v_obj);
    }
  }
}

/* Calls TYPE_KEY's Function-valued attribute attr with args, printing
 * "call TYPE_KEY.attr(label) -> ..."; *result as print_call_full. */
static void call_attr(const char *type_key, const char *attr, const char *label, TVMFFIAny *args, int32_t num_args,
                      int with_message, TVMFFIAny *result) {
  TVMFFIByteArray key = bytes_of(type_key);
  int32_t t = -1;
  *result = none_any();
  if (key_to_index(&key, &t) != 0) return;
  const TVMFFIAny *hook = entry_of(attr, t);
  if (!hook || hook->type_index != kTVMFFIFunction) return;
  printf("call %s.%s(%s)", type_key, attr, label);
  print_call_full(hook->v_obj, args, num_args, result, with_message);
  printf("\n");
}

static void release(TVMFFIAny *v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) dec_ref(v->v_obj);
  *v = none_any();
}

static TVMFFIAny text_any(const char *text) {
  TVMFFIByteArray bytes = bytes_of(text);
  TVMFFIAny out = none_any();
  if (string_from_bytes(&bytes, &out) != 0) exit(2);
  return out;
}

/* An integer from its 64-bit words (least significant first): an int, or
 * an ffi.BigInt. */
static TVMFFIAny integer_any(const int64_t *words, size_t count) {
  TVMFFIByteArray bytes = {(const char *)words, count * sizeof(int64_t)};
  TVMFFIAny out = none_any();
  if (bigint_from_bytes(&bytes, &out) != 0) exit(2);
  return out;
}

/* ffi.BigInt's hooks on integers made from words, on texts, and on values
 * of other kinds. */
static void probe_bigint(void) {
  static const int64_t words[][3] = {{1, 1, 0}, {2, 1, 0}, {-1, -2, -1}, {0, 0, 1}, {5, 0, 0}, {-7, -1, -1}, {0, 0, 0}};
  static const size_t counts[] = {2, 2, 2, 3, 1, 1, 1};
  enum { count = 7 };
  TVMFFIAny values[count];
  for (int i = 0; i < count; ++i) values[i] = integer_any(words[i], counts[i]);
  TVMFFIAny none = none_any(), result;
  char label[64];
  for (int i = 0; i < count; ++i) {
    snprintf(label, sizeof(label), "value %d", i);
    call_attr("ffi.BigInt", "__data_to_json__", label, &values[i], 1, 1, &result);
    release(&result);
    TVMFFIAny args[3] = {values[i], none, none};
    call_attr("ffi.BigInt", "__ffi_hash__", label, args, 2, 0, &result);
    release(&result);
    for (int j = 0; j < count; ++j) {
      snprintf(label, sizeof(label), "value %d, value %d", i, j);
      TVMFFIAny pair[3] = {values[i], values[j], none};
      call_attr("ffi.BigInt", "__ffi_eq__", label, pair, 3, 0, &result);
      release(&result);
      call_attr("ffi.BigInt", "__ffi_compare__", label, pair, 3, 0, &result);
      release(&result);
    }
  }
  static const char *const texts[] = {"0",
                                      "-0",
                                      "+5",
                                      "007",
                                      "-9223372036854775808",
                                      "9223372036854775808",
                                      "-9223372036854775809",
                                      "18446744073709551617",
                                      "-340282366920938463463374607431768211456",
                                      "123456789012345678901234567890123456789012345678901234567890",
                                      "",
                                      "-",
                                      " 5",
                                      "5 ",
                                      "1e3",
                                      "0x10",
                                      "12a"};
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); ++i) {
    TVMFFIAny text = text_any(texts[i]);
    snprintf(label, sizeof(label), "\"%s\"", texts[i]);
    call_attr("ffi.BigInt", "__data_from_json__", label, &text, 1, 1, &result);
    release(&result);
    release(&text);
  }
  /* Other kinds: a plain int where an object is expected, a float, an Array. */
  TVMFFIAny array = call_global("ffi.Array", NULL, 0), five = int_any(5), pair[3] = {values[0], five, none};
  call_attr("ffi.BigInt", "__data_to_json__", "int 5", &five, 1, 1, &result);
  release(&result);
  call_attr("ffi.BigInt", "__data_from_json__", "int 5", &five, 1, 0, &result);
  call_attr("ffi.BigInt", "__data_to_json__", "an Array", &array, 1, 0, &result);
  call_attr("ffi.BigInt", "__ffi_hash__", "int 5, None", pair + 1, 2, 0, &result);
  call_attr("ffi.BigInt", "__ffi_hash__", "value 0", pair, 1, 0, &result);
  call_attr("ffi.BigInt", "__ffi_eq__", "value 0, int 5, None", pair, 3, 0, &result);
  pair[1] = array;
  call_attr("ffi.BigInt", "__ffi_compare__", "value 0, an Array, None", pair, 3, 0, &result);
  pair[1] = values[0];
  pair[2] = five;
  call_attr("ffi.BigInt", "__ffi_eq__", "value 0, value 0, int 5", pair, 3, 0, &result);
  release(&array);
  for (int i = 0; i < count; ++i) release(&values[i]);
}

/* Makes an object of type_key through its __ffi_new__ (None if it has none). */
static TVMFFIAny new_of(const char *type_key) {
  TVMFFIAny made = none_any();
  call_attr(type_key, "__ffi_new__", "", NULL, 0, 0, &made);
  return made;
}

/* IntEnum's and StrEnum's __ffi_convert__ on each kind of value. */
static void probe_convert(void) {
  TVMFFIAny values[7] = {new_of("ffi.IntEnum"),
                         new_of("ffi.StrEnum"),
                         new_of("ffi.Enum"),
                         int_any(5),
                         none_any(),
                         text_any("x"),
                         text_any("a string longer than a small one")};
  static const char *const labels[7] = {"an IntEnum", "a StrEnum",      "an Enum", "int 5",
                                        "None",       "a short string", "a String"};
  static const char *const targets[2] = {"ffi.IntEnum", "ffi.StrEnum"};
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 7; ++i) {
      TVMFFIAny result;
      call_attr(targets[t], "__ffi_convert__", labels[i], &values[i], 1, 1, &result);
      if (result.type_index >= kTVMFFIStaticObjectBegin)
        printf("converted %s to %s: %s\n", labels[i], targets[t],
               result.v_obj == values[i].v_obj ? "the same object" : "another object");
      release(&result);
    }
  TVMFFIAny result;
  call_attr("ffi.IntEnum", "__ffi_convert__", "no arguments", NULL, 0, 0, &result);
  for (int i = 0; i < 7; ++i) release(&values[i]);
}

/* EnumState's and StructuralKey's __ffi_init__, and the key's native
 * __any_hash__ / __any_equal__ on what it made. */
static void probe_init(void) {
  TVMFFIAny result, none = none_any();
  call_attr("ffi.EnumState", "__ffi_init__", "", NULL, 0, 0, &result);
  if (result.type_index >= kTVMFFIStaticObjectBegin) {
    printf("init ffi.EnumState fields:");
    print_fields(result.v_obj, NULL);
    printf("\n");
  }
  release(&result);
  call_attr("ffi.EnumState", "__ffi_init__", "int 5", &none, 1, 0, &result);
  call_attr("ffi.StructuralKey", "__ffi_init__", "", NULL, 0, 0, &result);
  TVMFFIAny items[2] = {int_any(1), int_any(2)}, keys[3];
  TVMFFIAny key_values[3] = {call_global("ffi.Array", items, 2), call_global("ffi.Array", items, 2), int_any(3)};
  for (int i = 0; i < 3; ++i) {
    call_attr("ffi.StructuralKey", "__ffi_init__", i == 2 ? "int 3" : "Array [1, 2]", &key_values[i], 1, 0, &keys[i]);
    if (keys[i].type_index < kTVMFFIStaticObjectBegin) exit(2);
    printf("init ffi.StructuralKey %d fields:", i);
    print_fields(keys[i].v_obj, NULL);
    printf("\n");
  }
  /* A copy of a key holding an object shares it. */
  call_attr("ffi.StructuralKey", "__ffi_shallow_copy__", "key 0", &keys[0], 1, 0, &result);
  if (result.type_index >= kTVMFFIStaticObjectBegin) {
    printf("copy of key 0 fields:");
    print_fields(result.v_obj, keys[0].v_obj);
    printf("\n");
  }
  release(&result);
  TVMFFIByteArray name = bytes_of("ffi.StructuralKey");
  int32_t t = -1;
  if (key_to_index(&name, &t) != 0) exit(2);
  const TVMFFIAny *hash = entry_of("__any_hash__", t), *equal = entry_of("__any_equal__", t);
  if (hash && hash->type_index == kTVMFFIOpaquePtr && equal && equal->type_index == kTVMFFIOpaquePtr) {
    TVMFFIAny (*hash_fn)(const TVMFFIAny *);
    TVMFFIAny (*equal_fn)(const TVMFFIAny *, const TVMFFIAny *);
    memcpy(&hash_fn, &hash->v_ptr, sizeof(hash_fn));
    memcpy(&equal_fn, &equal->v_ptr, sizeof(equal_fn));
    for (int i = 0; i < 3; ++i) {
      const TVMFFIAny *hash_field = (const TVMFFIAny *)(const void *)((const char *)keys[i].v_obj + 24 + 16);
      TVMFFIAny h = hash_fn(&keys[i]);
      printf("key %d: __any_hash__ -> %s, %s hash_i64\n", i, key_of(h.type_index),
             h.type_index == kTVMFFIInt && memcmp(&h.v_int64, hash_field, sizeof(int64_t)) == 0 ? "equal to"
                                                                                                : "not equal to");
      for (int j = 0; j < 3; ++j) {
        TVMFFIAny eq = equal_fn(&keys[i], &keys[j]);
        printf("key %d, key %d: __any_equal__ -> %s %lld\n", i, j, key_of(eq.type_index), (long long)eq.v_int64);
      }
    }
  }
  for (int i = 0; i < 3; ++i) release(&keys[i]), release(&key_values[i]);
}

/* The walkers' __ffi_shallow_copy__ on a walker made here: a new object
 * with the same table and region. */
static void probe_walker_copy(const char *type_key, int32_t type_index, const void *table) {
  probe_walker w = walker(type_index, table);
  w.def_region_kind = 2;
  TVMFFIAny self = none_any(), result;
  self.type_index = type_index;
  self.v_obj = &w.header;
  call_attr(type_key, "__ffi_shallow_copy__", "a walker", &self, 1, 0, &result);
  if (result.type_index >= kTVMFFIStaticObjectBegin) {
    const probe_walker *copy = (const probe_walker *)(const void *)result.v_obj;
    printf("copied %s: %s table, region %d\n", type_key, copy->vtable == table ? "the same" : "another",
           (int)copy->def_region_kind);
  }
  release(&result);
  TVMFFIAny five = int_any(5);
  call_attr(type_key, "__ffi_shallow_copy__", "int 5", &five, 1, 0, &result);
}

static void print_value_full(TVMFFIAny v) {
  switch (v.type_index) {
    case kTVMFFIInt: printf("int %lld", (long long)v.v_int64); return;
    case kTVMFFIBool: printf("bool %lld", (long long)v.v_int64); return;
    case kTVMFFINone: printf("None"); return;
    case kTVMFFISmallStr: printf("%s \"%.*s\"", key_of(v.type_index), (int)v.small_str_len, v.v_bytes); return;
    case kTVMFFIStr: {
      const TVMFFIByteArray *text = (const TVMFFIByteArray *)((const char *)v.v_obj + sizeof(TVMFFIObject));
      printf("%s \"%.*s\"", key_of(v.type_index), (int)text->size, text->data);
      return;
    }
    case kTVMFFIBigInt: { /* its decimal text, from its own __data_to_json__ */
      const TVMFFIAny *to_json = entry_of("__data_to_json__", kTVMFFIBigInt);
      TVMFFIAny text = none_any();
      printf("ffi.BigInt");
      if (to_json && to_json->type_index == kTVMFFIFunction && call(to_json->v_obj, &v, 1, &text) == 0) {
        printf(" ");
        print_value_full(text);
      }
      release(&text);
      return;
    }
    default: printf("%s", key_of(v.type_index));
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
  probe_bigint();
  probe_convert();
  probe_init();
  probe_walker_copy("ffi.StructuralVisitor", visitor_index, &visit_table);
  probe_walker_copy("ffi.StructuralMutator", mutator_index, &mutate_table);

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
