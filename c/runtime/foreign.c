/* c/runtime/foreign.c: the process's other tvm-ffi runtime, when there is one.
 *
 * A library linking xffi may be loaded into a process that already runs a
 * tvm-ffi runtime of its own (the wheel's libtvm_ffi.so under Python, or
 * xffi's drop-in on the overlay). Its callers read their own runtime's
 * error slot and type registry, so this runtime hands them what they read:
 * errors (c/runtime/error_foreign.c) and dynamic types, whose indices the
 * other runtime gives out and whose fields, methods and metadata it is told
 * (c/runtime/type.c, c/lib/reflection/type_reflection.c,
 * c/runtime/type_attr.c). Everything goes through tvm-ffi's stable C ABI,
 * found by name; nothing is loaded.
 *
 * The drop-in libtvm_ffi.so is the process's runtime by definition, and
 * never binds to another: it is built from this file compiled with
 * XFFI_NO_FOREIGN_RUNTIME (cmake/tvm_ffi_dropin.cmake), where there is
 * never another runtime, and so stays within its size. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <xffi/sys/array.h>
#include <xffi/sys/string.h>
#include <xffi/tvm_ffi.h>

#include "runtime/check.h"
#include "runtime/type_internal.h"
#include "platform/platform.h"

void *xffi_foreign_symbol(const char *name) {
  void *found = xffi_loaded_symbol("tvm_ffi", name);
  /* Compared by module, not by address: a runtime loaded globally may have
   * interposed this library's own references to the name. */
  if (!found || xffi_platform_same_module(found, (void *)(uintptr_t)&xffi_raise_clock)) return NULL;
  return found;
}

#ifdef XFFI_NO_FOREIGN_RUNTIME

atomic_int xffi_foreign_state_ = 1; /* never another runtime */

int xffi_foreign_runtime_present(void) { return 0; }
int xffi_foreign_runtime_check(const char *what, const char *key, size_t key_size) {
  (void)what, (void)key, (void)key_size;
  return XFFI_OK;
}

int xffi_foreign_global_set(xffi_byte_array name, xffi_object *func, xffi_byte_array doc, xffi_byte_array metadata,
                            int allow_override) {
  (void)name, (void)func, (void)doc, (void)metadata, (void)allow_override;
  return XFFI_OK;
}

int xffi_foreign_global_get(xffi_object **out, xffi_byte_array name) {
  (void)name;
  *out = NULL;
  return XFFI_OK;
}

int xffi_foreign_global_remove(xffi_byte_array name) {
  (void)name;
  return XFFI_OK;
}

const xffi_foreign_error_entries *xffi_foreign_errors(void) { return NULL; }

void xffi_foreign_runtime_forget(void) {}

int xffi_foreign_type_index(int32_t *out, int *created, const char *key, size_t size, int32_t static_index,
                            int32_t depth, int32_t num_child_slots, int32_t can_overflow, int32_t parent_index) {
  (void)key, (void)size, (void)static_index, (void)depth, (void)num_child_slots, (void)can_overflow, (void)parent_index;
  *out = -1;
  *created = 0;
  return XFFI_OK;
}

int xffi_foreign_tell(xffi_foreign_record what, int32_t type_index, const void *records, int32_t count) {
  (void)what, (void)type_index, (void)records, (void)count;
  return XFFI_OK;
}

int xffi_foreign_tell_attr(int32_t type_index, const char *name, size_t name_size, const xffi_any *value) {
  (void)type_index, (void)name, (void)name_size, (void)value;
  return XFFI_OK;
}

#else

/* What this xffi needs of the other runtime: tvm-ffi's 0.1 ABI (the layouts
 * it shares), as TVMFFIGetVersion reports it (the one entry point tvm-ffi
 * keeps stable across every ABI), and these entry points. */
#  define BOUND_ABI_MAJOR 0u
#  define BOUND_ABI_MINOR 1u
static const char *const needed_entry_points[] = {
    "TVMFFIErrorSetRaised",    "TVMFFIErrorMoveFromRaised", "TVMFFITypeKeyToIndex",       "TVMFFITypeGetOrAllocIndex",
    "TVMFFITypeRegisterField", "TVMFFITypeRegisterMethod",  "TVMFFITypeRegisterMetadata", "TVMFFITypeRegisterAttr",
    "TVMFFIFunctionSetGlobal", "TVMFFIFunctionGetGlobal"};

typedef void (*get_version_fn)(xffi_tvm_version *out);

/* 0 not yet probed, 1 no other runtime, 2 one this xffi binds to, 3 one it
 * cannot bind to (bind_failure says why): read on every Function creation,
 * type registration and global registration, so the probe runs once. */
atomic_int xffi_foreign_state_;
static xffi_mutex probe_lock = XFFI_MUTEX_INITIALIZER;
static char bind_failure[320]; /* written under probe_lock before state 3 is published */
/* Written under probe_lock before state 2 or 3 is published. */
static xffi_foreign_error_entries error_entries;

/* The entry points of error_entries, looked up by name (a data pointer to a
 * function pointer, through a union as the platform seam hands them). */
static void find_error_entries(void) {
  union {
    void *p;
    void (*f)(void *);
  } set = {xffi_foreign_symbol("TVMFFIErrorSetRaised")};
  union {
    void *p;
    void (*f)(void **);
  } move = {xffi_foreign_symbol("TVMFFIErrorMoveFromRaised")};
  union {
    void *p;
    void (*f)(const char *, const char *);
  } text = {xffi_foreign_symbol("TVMFFIErrorSetRaisedFromCStr")};
  error_entries.set_raised = set.f;
  error_entries.move_from_raised = move.f;
  error_entries.set_raised_from_text = text.f;
}

/* Whether the runtime that defines found binds; if not, bind_failure says
 * which runtime it is (its library) and what it lacks. */
static int runtime_binds(void *found) {
  xffi_frame_description where = {NULL, NULL, 0};
  xffi_platform_describe_frame(found, &where);
  const char *library = where.module ? where.module : "a library of unknown path";
  union {
    void *p;
    get_version_fn f;
  } version = {xffi_foreign_symbol("TVMFFIGetVersion")};
  if (!version.p) {
    snprintf(bind_failure, sizeof bind_failure,
             "xffi cannot bind to the process's tvm-ffi runtime (%s): it has no TVMFFIGetVersion, so its ABI is "
             "unknown; xffi needs tvm-ffi's ABI %u.%u",
             library, BOUND_ABI_MAJOR, BOUND_ABI_MINOR);
    return 0;
  }
  xffi_tvm_version v = {0, 0, 0};
  version.f(&v);
  if (v.major != BOUND_ABI_MAJOR || v.minor != BOUND_ABI_MINOR) {
    snprintf(bind_failure, sizeof bind_failure,
             "xffi cannot bind to the process's tvm-ffi runtime (%s): it serves tvm-ffi's ABI %u.%u.%u; xffi needs "
             "tvm-ffi's ABI %u.%u",
             library, (unsigned)v.major, (unsigned)v.minor, (unsigned)v.patch, BOUND_ABI_MAJOR, BOUND_ABI_MINOR);
    return 0;
  }
  for (size_t k = 0; k < sizeof needed_entry_points / sizeof *needed_entry_points; ++k) {
    if (xffi_foreign_symbol(needed_entry_points[k])) continue;
    snprintf(bind_failure, sizeof bind_failure,
             "xffi cannot bind to the process's tvm-ffi runtime (%s, ABI %u.%u.%u): it has no %s, which xffi needs",
             library, (unsigned)v.major, (unsigned)v.minor, (unsigned)v.patch, needed_entry_points[k]);
    return 0;
  }
  return 1;
}

/* The probe itself, once (kept out of line: every lookup miss reads the state). */
#  if defined(__GNUC__)
__attribute__((noinline, cold))
#  endif
static int
probe(void) {
  xffi_mutex_lock(&probe_lock);
  int state = atomic_load_explicit(&xffi_foreign_state_, memory_order_relaxed);
  if (state == 0) {
    void *found = xffi_foreign_symbol("TVMFFIErrorSetRaised");
    state = !found ? 1 : runtime_binds(found) ? 2 : 3;
    if (state != 1) {
      find_error_entries();
      /* The entry points found here are called for the life of the process:
       * a host's dlclose of that runtime must not unmap them. */
      xffi_library_pin(found);
    }
    atomic_store_explicit(&xffi_foreign_state_, state, memory_order_release);
  }
  xffi_mutex_unlock(&probe_lock);
  return state;
}

static inline int probed_state(void) {
  int state = atomic_load_explicit(&xffi_foreign_state_, memory_order_acquire);
  return XFFI_LIKELY(state != 0) ? state : probe();
}

int xffi_foreign_runtime_present(void) { return probed_state() - 1; }

const xffi_foreign_error_entries *xffi_foreign_errors(void) { return probed_state() == 1 ? NULL : &error_entries; }

int xffi_foreign_runtime_check(const char *what, const char *key, size_t key_size) {
  if (XFFI_LIKELY(probed_state() != 3)) return XFFI_OK;
  return xffi_error_raise(XFFI_KIND_RUNTIME, "%s '%.*s': %s", what, (int)key_size, key, bind_failure);
}

void xffi_foreign_runtime_forget(void) {
  int none = 1;
  atomic_compare_exchange_strong_explicit(&xffi_foreign_state_, &none, 0, memory_order_relaxed, memory_order_relaxed);
}

typedef int (*key_to_index_fn)(const xffi_byte_array *key, int32_t *out);
typedef const xffi_type_info *(*get_type_info_fn)(int32_t type_index);
typedef int32_t (*get_or_alloc_fn)(const xffi_byte_array *key, int32_t static_index, int32_t depth,
                                   int32_t num_child_slots, int32_t can_overflow, int32_t parent);
typedef int (*register_fn)(int32_t type_index, const void *record);
typedef int (*register_attr_fn)(int32_t type_index, const xffi_byte_array *name, const xffi_any *value);

/* The entry point name of the other runtime, or NULL with a RuntimeError
 * that names the runtime's lack (the runtime serves an older ABI). */
static void *needed(const char *name, const char *key) {
  void *found = xffi_foreign_symbol(name);
  if (!found)
    xffi_error_raise(XFFI_KIND_RUNTIME, "registering '%s': the process's tvm-ffi runtime has no %s", key, name);
  return found;
}

/* The other runtime's failure (status non-zero) as this runtime's error. */
static int adopted(int status, const char *name, const char *key) {
  if (status == 0) return XFFI_OK;
  if (!xffi_error_adopt_tvm_raised())
    return xffi_error_raise(XFFI_KIND_RUNTIME, "registering '%s': %s failed in the process's tvm-ffi runtime", key,
                            name);
  return XFFI_FAIL;
}

int xffi_foreign_type_index(int32_t *out, int *created, const char *key, size_t size, int32_t static_index,
                            int32_t depth, int32_t num_child_slots, int32_t can_overflow, int32_t parent_index) {
  *out = -1;
  *created = 0;
  /* Only what the registry would accept: that runtime aborts on bad input. */
  const xffi_type_info *parent = xffi_type_info_find(parent_index);
  if (static_index >= 0 || !parent || parent->type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN ||
      depth != parent->type_depth + 1 || depth > XFFI_TYPE_MAX_DEPTH || num_child_slots < 0 ||
      num_child_slots > XFFI_TYPE_MAX_CHILD_SLOTS || !xffi_foreign_runtime_present())
    return XFFI_OK;
  /* A runtime this xffi cannot bind to never gets a private index in its place. */
  if (xffi_foreign_runtime_check("registering", key, size) != XFFI_OK) return XFFI_FAIL;
  union {
    void *p;
    key_to_index_fn f;
  } find = {needed("TVMFFITypeKeyToIndex", key)};
  union {
    void *p;
    get_or_alloc_fn f;
  } alloc = {find.p ? needed("TVMFFITypeGetOrAllocIndex", key) : NULL};
  if (!alloc.p) return XFFI_FAIL;
  xffi_byte_array name = {key, size};
  /* A key it knows is its own type or another plugin's, with their fields. */
  if (find.f(&name, out) == 0) {
    *created = 2; /* its records are compared with this one's (xffi_foreign_tell) */
    return XFFI_OK;
  }
  /* The miss raised a KeyError there; it is no error here. */
  xffi_object *miss = NULL;
  if (xffi_error_adopt_tvm_raised()) miss = xffi_error_move_raised();
  xffi_object_dec_ref(miss);
  int32_t index = alloc.f(&name, -1, depth, num_child_slots, can_overflow, parent_index);
  if (index < 0) return adopted(-1, "TVMFFITypeGetOrAllocIndex", key);
  *out = index;
  *created = 1;
  return XFFI_OK;
}

/* The layout error for key: what differs, there and here. */
static int other_layout(const char *key, const char *what, const char *there, const char *here) {
  return xffi_error_raise(XFFI_KIND_RUNTIME,
                          "registering '%s': the process's tvm-ffi runtime has this type key with another layout "
                          "(another plugin's or library's type of the same key): %s %s there, %s here",
                          key, what, there, here);
}

/* A key the other runtime had (another plugin's type, another copy of this
 * plugin's, a C++ library's): the layout this runtime registers for it must
 * be the one that runtime reads its objects with. Fields by name (offset and
 * size) and the total size, where that runtime has them; methods and
 * attributes do not change a layout. */
static int compare_layout(xffi_foreign_record what, int32_t type_index, const void *records, int32_t count,
                          const char *key) {
  if (what == XFFI_FOREIGN_METHOD) return XFFI_OK;
  union {
    void *p;
    get_type_info_fn f;
  } get = {needed("TVMFFIGetTypeInfo", key)};
  if (!get.p) return XFFI_FAIL;
  const xffi_type_info *theirs = get.f(type_index);
  if (!theirs) return XFFI_OK;
  char there[96], here[96];
  if (what == XFFI_FOREIGN_METADATA) {
    const xffi_type_metadata *mine = records;
    if (!theirs->metadata || theirs->metadata->total_size == mine->total_size) return XFFI_OK;
    snprintf(there, sizeof there, "%d bytes", (int)theirs->metadata->total_size);
    snprintf(here, sizeof here, "%d bytes", (int)mine->total_size);
    return other_layout(key, "an object is", there, here);
  }
  if (theirs->num_fields == 0) return XFFI_OK; /* it has no fields (yet): nothing to read wrongly */
  for (int32_t k = 0; k < count; ++k) {
    const xffi_field_info *mine = (const xffi_field_info *)records + k;
    const xffi_field_info *match = NULL;
    for (int32_t j = 0; j < theirs->num_fields && !match; ++j)
      if (theirs->fields[j].name.size == mine->name.size &&
          memcmp(theirs->fields[j].name.data, mine->name.data, mine->name.size) == 0)
        match = &theirs->fields[j];
    if (match && match->offset == mine->offset && match->size == mine->size) continue;
    char field[80];
    snprintf(field, sizeof field, "field '%.*s' is", (int)(mine->name.size > 48 ? 48 : mine->name.size),
             mine->name.data);
    if (match)
      snprintf(there, sizeof there, "at offset %lld (%lld bytes)", (long long)match->offset, (long long)match->size);
    else
      snprintf(there, sizeof there, "missing");
    snprintf(here, sizeof here, "at offset %lld (%lld bytes)", (long long)mine->offset, (long long)mine->size);
    return other_layout(key, field, there, here);
  }
  return XFFI_OK;
}

int xffi_foreign_tell(xffi_foreign_record what, int32_t type_index, const void *records, int32_t count) {
  static const struct {
    const char *name;
    size_t size;
  } kinds[] = {{"TVMFFITypeRegisterField", sizeof(xffi_field_info)},
               {"TVMFFITypeRegisterMethod", sizeof(xffi_method_info)},
               {"TVMFFITypeRegisterMetadata", sizeof(xffi_type_metadata)}};
  const xffi_type_entry *entry = xffi_type_entry_at(type_index);
  if (!entry || !entry->foreign_created) return XFFI_OK;
  const char *key = entry->stored.info.type_key.data;
  if (entry->foreign_created == 2) return compare_layout(what, type_index, records, count, key);
  union {
    void *p;
    register_fn f;
  } call = {needed(kinds[what].name, key)};
  if (!call.p) return XFFI_FAIL;
  int status = XFFI_OK;
  for (int32_t k = 0; status == XFFI_OK && k < count; ++k)
    status = adopted(call.f(type_index, (const char *)records + (size_t)k * kinds[what].size), kinds[what].name, key);
  return status;
}

int xffi_foreign_tell_attr(int32_t type_index, const char *name, size_t name_size, const xffi_any *value) {
  const xffi_type_entry *entry = xffi_type_entry_at(type_index);
  if (!entry || entry->foreign_created != 1) return XFFI_OK;
  const char *key = entry->stored.info.type_key.data;
  union {
    void *p;
    register_attr_fn f;
  } call = {needed("TVMFFITypeRegisterAttr", key)};
  xffi_byte_array text = {name, name_size};
  return call.p ? adopted(call.f(type_index, &text, value), "TVMFFITypeRegisterAttr", key) : XFFI_FAIL;
}

/* ---- Types only the other runtime knows: the bound runtime as type provider ---- */

typedef const xffi_type_attr_column *(*get_attr_column_fn)(const xffi_byte_array *name);

/* The index the other runtime has for key, or -1; its miss raised a KeyError
 * there, which is no error here. */
static int32_t bound_index_by_key(const char *key, size_t size) {
  union {
    void *p;
    key_to_index_fn f;
  } find = {xffi_foreign_symbol("TVMFFITypeKeyToIndex")};
  if (!find.p) return -1;
  xffi_byte_array name = {key, size};
  int32_t index = -1;
  if (find.f(&name, &index) == 0) return index;
  xffi_object *miss = NULL;
  if (xffi_error_adopt_tvm_raised()) miss = xffi_error_move_raised();
  xffi_object_dec_ref(miss);
  return -1;
}

/* Whether the other runtime has a type at type_index. tvm-ffi's
 * TVMFFIGetTypeInfo aborts the process on an index it lacks, and its C ABI
 * has no other question by index, so the keys it lists
 * (ffi.GetRegisteredTypeKeys) are turned into indices until one matches:
 * once per type, since a type found is mirrored. */
static int bound_has_index(int32_t type_index) {
  static const xffi_byte_array lister = {"ffi.GetRegisteredTypeKeys", sizeof "ffi.GetRegisteredTypeKeys" - 1};
  xffi_object *list_keys = NULL;
  if (xffi_foreign_global_get(&list_keys, lister) != XFFI_OK) {
    xffi_object_dec_ref(xffi_error_move_raised());
    return 0;
  }
  if (!list_keys) return 0;
  xffi_any keys = xffi_any_none();
  int found = 0;
  if (xffi_function_call(list_keys, NULL, 0, &keys) != XFFI_OK) {
    xffi_object_dec_ref(xffi_error_move_raised());
  } else if (keys.type_index == XFFI_TYPE_ARRAY) {
    const xffi_any *items = xffi_seq_items_unchecked(keys.v_obj);
    for (int64_t k = 0, n = xffi_seq_size_unchecked(keys.v_obj); k < n && !found; ++k) {
      xffi_byte_array key = {NULL, 0};
      if (items[k].type_index == XFFI_TYPE_SMALL_STR)
        key = (xffi_byte_array){items[k].v_small, items[k].small_len};
      else if (items[k].type_index == XFFI_TYPE_STRING)
        key = xffi_string_cell_of_unchecked(items[k].v_obj);
      found = key.data && bound_index_by_key(key.data, key.size) == type_index;
    }
  }
  xffi_any_release(&keys);
  xffi_object_dec_ref(list_keys);
  return found;
}

/* Its records have xffi_type_info's layout (tvm-ffi's TVMFFITypeInfo). */
static const xffi_type_info *bound_info_by_index(int32_t type_index) {
  union {
    void *p;
    get_type_info_fn f;
  } get = {xffi_foreign_symbol("TVMFFIGetTypeInfo")};
  return get.p && bound_has_index(type_index) ? get.f(type_index) : NULL;
}

static const xffi_type_attr_column *bound_attr_column(const char *name, size_t size) {
  union {
    void *p;
    get_attr_column_fn f;
  } get = {xffi_foreign_symbol("TVMFFIGetTypeAttrColumn")};
  xffi_byte_array text = {name, size};
  return get.p ? get.f(&text) : NULL;
}

static const xffi_type_provider bound_provider = {bound_info_by_index, bound_index_by_key, bound_attr_column};

const xffi_type_provider *xffi_foreign_type_provider(void) {
  return XFFI_LIKELY(probed_state() != 2) ? NULL : &bound_provider;
}

/* ---- The global function registry ---- */

typedef int (*set_global_fn)(const xffi_byte_array *name, void *func, int allow_override);
typedef int (*set_global_with_info_fn)(const xffi_method_info *info, int allow_override);
typedef int (*get_global_fn)(const xffi_byte_array *name, void **out);

/* Set while this thread asks the other runtime's registry: a runtime that
 * asks back (another copy of xffi bound to this one) finds nothing here. */
static _Thread_local int asking_other_registry;

/* The other runtime's failure as this runtime's error, naming the global. */
static int global_failed(const char *entry_point, xffi_byte_array name) {
  if (!xffi_error_adopt_tvm_raised())
    xffi_error_raise(XFFI_KIND_RUNTIME, "global function '%.*s': %s failed in the process's tvm-ffi runtime",
                     (int)name.size, name.data, entry_point);
  return XFFI_FAIL;
}

int xffi_foreign_global_set(xffi_byte_array name, xffi_object *func, xffi_byte_array doc, xffi_byte_array metadata,
                            int allow_override) {
  int present = xffi_foreign_runtime_present();
  if (!present) return XFFI_OK;
  if (xffi_foreign_runtime_check("registering the global function", name.data, name.size) != XFFI_OK) return XFFI_FAIL;
  union {
    void *p;
    set_global_fn f;
  } set = {xffi_foreign_symbol("TVMFFIFunctionSetGlobal")};
  if (!set.p) return XFFI_OK; /* the probe found it: the runtime was unloaded since */
  /* A taken name is this API's ValueError (xffi/function.h), not the
   * other runtime's RuntimeError. */
  xffi_object *taken = NULL;
  if (!allow_override && xffi_foreign_global_get(&taken, name) != XFFI_OK) return XFFI_FAIL;
  if (taken) {
    xffi_object_dec_ref(taken);
    return xffi_error_raise(XFFI_KIND_VALUE,
                            "xffi_function_global_register: Global Function `%.*s` is already registered in the "
                            "process's tvm-ffi runtime (pass allow_override to replace it)",
                            (int)name.size, name.data);
  }
  union {
    void *p;
    set_global_with_info_fn f;
  } set_with_info = {doc.size || metadata.size ? xffi_foreign_symbol("TVMFFIFunctionSetGlobalFromMethodInfo") : NULL};
  asking_other_registry = 1;
  int status;
  if (set_with_info.p) {
    xffi_method_info info = {name, doc, metadata, 0, xffi_any_object(func)};
    status = set_with_info.f(&info, allow_override);
  } else {
    status = set.f(&name, func, allow_override);
  }
  asking_other_registry = 0;
  return status == 0 ? XFFI_OK : global_failed("TVMFFIFunctionSetGlobal", name);
}

/* xffi_foreign_global_get's asking, with a runtime this one binds to. */
#  if defined(__GNUC__)
__attribute__((noinline))
#  endif
static int
global_get_bound(xffi_object **out, xffi_byte_array name) {
  if (asking_other_registry) return XFFI_OK;
  union {
    void *p;
    get_global_fn f;
  } get = {xffi_foreign_symbol("TVMFFIFunctionGetGlobal")};
  if (!get.p) return XFFI_OK;
  void *found = NULL;
  asking_other_registry = 1;
  int status = get.f(&name, &found);
  asking_other_registry = 0;
  if (status != 0) return global_failed("TVMFFIFunctionGetGlobal", name);
  *out = found; /* a new reference to a Function in tvm-ffi's layout, or NULL */
  return XFFI_OK;
}

int xffi_foreign_global_get(xffi_object **out, xffi_byte_array name) {
  *out = NULL;
  /* Every lookup miss comes here: the probe's remembered answer is all it reads without a runtime. */
  return XFFI_LIKELY(probed_state() != 2) ? XFFI_OK : global_get_bound(out, name);
}

int xffi_foreign_global_remove(xffi_byte_array name) {
  static const xffi_byte_array remover_name = {"ffi.FunctionRemoveGlobal", sizeof "ffi.FunctionRemoveGlobal" - 1};
  xffi_object *remover = NULL;
  if (xffi_foreign_global_get(&remover, remover_name) != XFFI_OK) return XFFI_FAIL;
  if (!remover) return XFFI_OK; /* no other runtime, or it cannot remove globals */
  xffi_object *text = NULL;
  int status = xffi_string_new(&text, name.data, name.size);
  if (status == XFFI_OK) {
    xffi_any arg = xffi_any_object(text), removed = xffi_any_none();
    asking_other_registry = 1;
    status = xffi_function_call(remover, &arg, 1, &removed);
    asking_other_registry = 0;
    xffi_any_release(&removed);
    xffi_object_dec_ref(text);
  }
  xffi_object_dec_ref(remover);
  return status;
}

#endif /* XFFI_NO_FOREIGN_RUNTIME */
