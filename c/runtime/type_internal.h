/* c/runtime/type_internal.h: the type registry's private state, shared by its files
 * (c/runtime/type.c: records and indices; c/runtime/type_builtin.c: the static records;
 * c/lib/reflection/type_reflection.c: fields, methods, metadata; c/runtime/type_attr.c: attribute
 * columns; c/compat/abi/tvm_type.c: tvm-ffi's entry points). */
#ifndef XFFI_TYPE_INTERNAL_H
#define XFFI_TYPE_INTERNAL_H

#include <xffi/reflection.h>

#include "runtime/internal.h"

/* A registered type: the stored record first (xffi/sys/type.h: the public
 * record and its ancestors' indices), so a record pointer is an entry
 * pointer, then what only the registry reads. Immortal. Everything after
 * `stored` changes under the registry lock only. */
typedef struct xffi_type_entry {
  xffi_type_record_ stored;
  int32_t num_slots;                   /* indices reserved for the type and its children: child slots + 1 */
  int32_t allocated_slots;             /* of num_slots in use, starting at 1 (the type itself) */
  int32_t can_overflow;                /* 1: children past the reserved range take indices from the counter */
  int32_t field_capacity;              /* room in info.fields */
  int32_t method_capacity;             /* room in info.methods */
  xffi_type_metadata metadata_storage; /* what info.metadata points at, once set */
  /* The index of info.fields by name (c/lib/reflection/reflection_index.h), published after
   * the fields it indexes; NULL while the type has none. */
  const struct xffi_field_index *field_index;
  /* 1: a type the runtime defines (the built-ins, c/type_runtime.c's): its
   * layout is the runtime's, and only the runtime adds field records. */
  int32_t runtime_owned;
  /* 1: this runtime created the type in the process's other tvm-ffi runtime
   * (c/runtime/foreign.c), which gave its index: its fields, methods and
   * metadata are told to that runtime too. 2: that runtime had the key
   * already (another plugin's type): the layout registered here is compared
   * with its. 0: a type of this runtime only. */
  int32_t foreign_created;
  /* Non-NULL: a mirror of a type only the type provider knows (below): the
   * provider's live record (borrowed, immortal). The mirror keeps the
   * ancestry (which never changes) for is-instance; its fields, methods and
   * metadata are copied from this record on every checked lookup. */
  const xffi_type_info *provided;
} xffi_type_entry;

/* The static records of the built-in types (c/runtime/type_builtin.c): value types
 * 0..XFFI_TYPE_UNCHANGED, then object types XFFI_TYPE_OBJECT..BUILTIN_END-1. */
#define XFFI_TYPE_BUILTIN_VALUE_COUNT (XFFI_TYPE_UNCHANGED + 1)
#define XFFI_TYPE_BUILTIN_COUNT (XFFI_TYPE_BUILTIN_VALUE_COUNT + XFFI_TYPE_BUILTIN_END - XFFI_TYPE_OBJECT)
extern xffi_type_entry xffi_type_builtin_entries[XFFI_TYPE_BUILTIN_COUNT] XFFI_INTERNAL;
/* The index table as loaded: the built-ins at their indices, holes NULL. */
extern const xffi_type_info *xffi_type_builtin_table[XFFI_TYPE_DYNAMIC_BEGIN] XFFI_INTERNAL;

/* Writers of any registry state take this lock (c/runtime/type.c). */
void xffi_type_lock(void) XFFI_INTERNAL;
void xffi_type_unlock(void) XFFI_INTERNAL;

/* Under the lock: the entry of a registered type, or NULL. */
xffi_type_entry *xffi_type_entry_at(int32_t type_index) XFFI_INTERNAL;

/* Under the lock: keeps memory that readers may still hold reachable for
 * the rest of the process instead of freeing it. XFFI_FAIL (nothing raised)
 * when the bookkeeping cannot be allocated; memory is then untouched. */
int xffi_type_retire(void *memory) XFFI_INTERNAL;

/* The key lookup shared by the C API and tvm-ffi's entry points: the record
 * of key (size bytes, borrowed), or NULL. Lock-free. */
const xffi_type_info *xffi_type_find_by_key(const char *key, size_t size) XFFI_INTERNAL;

/* Makes sure the reflected types tvm-ffi's runtime owns are registered
 * (c/runtime/seeds.h): the registry's key lookups and index allocations,
 * and library code about to use one of those types, call it first, so
 * nothing runs at load. XFFI_FAIL with an error raised when memory runs out
 * (the next call retries). */
int xffi_type_builtins_ensure(void) XFFI_INTERNAL;

/* TVMFFITypeGetOrAllocIndex's semantics (c/runtime/type.c), with errors raised
 * instead of exits: *out receives the index (-2 for a miss in query mode). */
int xffi_type_get_or_alloc(int32_t *out, const char *function, const char *key, size_t size, int32_t static_type_index,
                           int32_t type_depth, int32_t num_child_slots, int32_t child_slots_can_overflow,
                           int32_t parent_type_index) XFFI_INTERNAL;

/* Attributes by byte-array names (c/runtime/type_attr.c); function names the
 * caller in messages. */
int xffi_type_register_attr_in(const char *function, int32_t type_index, const char *name, size_t name_size,
                               const xffi_any *value) XFFI_INTERNAL;
const xffi_type_attr_column *xffi_type_attr_column_find(const char *name, size_t name_size) XFFI_INTERNAL;

/* ---- Types only the process's other runtime knows (c/runtime/type_provider.c) ----
 * The type provider answers for them: the process's tvm-ffi runtime when this
 * one is bound to it (c/runtime/foreign.c), or a test's. A type it knows is
 * mirrored in this registry at its index on first lookup, so the lock-free
 * table (is-instance inline, the walks) and every reader that takes a record
 * for a registry entry work unchanged. */
typedef struct xffi_type_provider {
  /* Its record of type_index (tvm-ffi's TypeInfo, xffi_type_info's layout;
   * borrowed, immortal), or NULL when it has none. Never aborts. */
  const xffi_type_info *(*info_by_index)(int32_t type_index);
  /* The index it has for key (size bytes), or -1 (nothing raised). */
  int32_t (*index_by_key)(const char *key, size_t size);
  /* Its attribute column of name (size bytes; borrowed, at a fixed address
   * once made), or NULL. */
  const xffi_type_attr_column *(*attr_column)(const char *name, size_t size);
} xffi_type_provider;

/* Under the lock (c/runtime/type.c): places a new mirror of theirs (the
 * provider's record of key, size bytes) at index under parent (a record of
 * this registry; NULL for a root), or returns the record already there.
 * NULL when out of memory. */
xffi_type_entry *xffi_type_mirror_place_locked(int32_t index, const xffi_type_info *parent, const char *key,
                                               size_t size, const xffi_type_info *theirs) XFFI_INTERNAL;
/* Registers value (borrowed; copied) for type_index in column (this
 * runtime's) alone, telling no other runtime: a value the provider holds,
 * which never changes once registered (c/runtime/type_attr.c). */
int xffi_type_attr_adopt(const xffi_type_attr_column *column, int32_t type_index, const xffi_any *value) XFFI_INTERNAL;
/* The provider's column of the name of column (this runtime's), found once
 * (c/runtime/type_attr.c), or NULL. */
const xffi_type_attr_column *xffi_type_attr_column_theirs(const xffi_type_attr_column *column,
                                                          const xffi_type_provider *provider) XFFI_INTERNAL;

#ifndef XFFI_NO_FOREIGN_RUNTIME
/* The provider: a test's (xffi_type_provider_set), else the bound runtime's
 * (xffi_foreign_type_provider), else NULL. */
const xffi_type_provider *xffi_type_provider_get(void) XFFI_INTERNAL;
/* Sets (NULL: clears) a provider ahead of the bound runtime's: for tests. */
void xffi_type_provider_set(const xffi_type_provider *provider) XFFI_INTERNAL;
/* The bound runtime's provider, or NULL when this runtime is not bound. */
const xffi_type_provider *xffi_foreign_type_provider(void) XFFI_INTERNAL;

/* The record of a type the provider knows and this registry lacks, mirrored
 * at its index (its ancestors too), or NULL. Takes the registry lock: never
 * call it holding it. */
const xffi_type_info *xffi_type_provided(int32_t type_index) XFFI_INTERNAL;
/* The same by key (size bytes). */
const xffi_type_info *xffi_type_provided_by_key(const char *key, size_t size) XFFI_INTERNAL;
/* Copies the provider's current fields, methods and metadata into mirror
 * (a record with entry->provided set): they may be registered after the type. */
void xffi_type_mirror_sync(const xffi_type_info *mirror) XFFI_INTERNAL;
/* A record the registry returns, with its mirror synced. */
static inline const xffi_type_info *xffi_type_live(const xffi_type_info *info) {
  if (XFFI_UNLIKELY(info && ((const xffi_type_entry *)info)->provided)) xffi_type_mirror_sync(info);
  return info;
}

/* The provider's entry of the attribute whose column (of this runtime) is
 * local, for type_index, when this runtime's own column has none and the
 * type is one the provider knows (a mirror, or a type this runtime shares
 * with the bound runtime): borrowed, or NULL. */
const xffi_any *xffi_type_attr_provided(const xffi_type_attr_column *local, int32_t type_index) XFFI_INTERNAL;
/* Fills column (this runtime's; NULL: nothing) with the provider's values
 * for the types both know that column lacks: for callers that read a column
 * by index (TVMFFIGetTypeAttrColumn). */
void xffi_type_attr_column_sync(const xffi_type_attr_column *column) XFFI_INTERNAL;

#else
/* The drop-in is the process's runtime: there is never a provider, and none
 * of this is compiled in (c/runtime/type_provider.c is left out). */
static inline const xffi_type_provider *xffi_type_provider_get(void) { return NULL; }
static inline const xffi_type_info *xffi_type_provided(int32_t type_index) {
  (void)type_index;
  return NULL;
}
static inline const xffi_type_info *xffi_type_provided_by_key(const char *key, size_t size) {
  (void)key, (void)size;
  return NULL;
}
static inline const xffi_type_info *xffi_type_live(const xffi_type_info *info) { return info; }
static inline const xffi_any *xffi_type_attr_provided(const xffi_type_attr_column *local, int32_t type_index) {
  (void)local, (void)type_index;
  return NULL;
}
static inline void xffi_type_attr_column_sync(const xffi_type_attr_column *column) { (void)column; }
#endif /* XFFI_NO_FOREIGN_RUNTIME */

#endif /* XFFI_TYPE_INTERNAL_H */
