/* c/runtime/type_attr.c: type-attribute columns (TVMFFITypeRegisterAttr,
 * TVMFFIGetTypeAttrColumn and their xffi_type_* forms).
 *
 * A column maps type indices to one attribute's values: data[t] for type t
 * (begin_index is always 0, as in tvm-ffi). Columns live at fixed addresses
 * for the rest of the process, because C++ inline code caches the column
 * pointer (AnyHash fetches "__any_hash__" once per library). The columns the
 * runtime creates up front are static, so they exist before any user code
 * runs and cost nothing at load; others are made on first registration and
 * prepended to a list that readers walk with no lock. When a column grows,
 * the bigger data array is filled, then published, then the size; the old
 * array is retired, not freed, since a reader may still hold it.
 *
 * The runtime's own entries (ffi.BigInt's __any_hash__ and __any_equal__,
 * as tvm-ffi registers them) live in static arrays too, filled once before
 * any column is found: ISO C cannot put a function's address in a void *
 * initializer, so the pointers are copied in at first use, not at load. */
#include <string.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "platform/platform.h"
#include "runtime/type_internal.h"

typedef struct named_column {
  xffi_type_attr_column column; /* first: the column pointer is the node pointer */
  xffi_byte_array name;
  int32_t capacity;          /* room in column.data */
  struct named_column *next; /* dynamic columns only */
  int static_data;           /* column.data is a static array: never retired */
#ifndef XFFI_NO_FOREIGN_RUNTIME
  /* The type provider's column of this name, once found, and that provider. */
  const xffi_type_attr_column *theirs;
  const xffi_type_provider *theirs_of;
#endif
} named_column;

#define STATIC_COLUMN(key)                                    \
  {                                                           \
    .column = {NULL, 0, 0}, .name = {(key), sizeof(key) - 1 } \
  }
/* A column whose data starts as a static array of entries (None until
 * fill_runtime_entries). */
#define STATIC_COLUMN_WITH(key, array)                                                                     \
  {                                                                                                        \
    .column = {(array), (int32_t)(sizeof(array) / sizeof(array[0])), 0}, .name = {(key), sizeof(key) - 1}, \
    .capacity = (int32_t)(sizeof(array) / sizeof(array[0])), .static_data = 1                              \
  }

/* Indices 0..ffi.BigInt of the two hook columns (all bytes zero: None). */
static xffi_any any_hash_entries[XFFI_TYPE_BIGINT + 1];
static xffi_any any_equal_entries[XFFI_TYPE_BIGINT + 1];

/* tvm-ffi's runtime pre-creates these (docs/one-runtime/abi.md §4). */
static named_column static_columns[] = {
    STATIC_COLUMN_WITH("__any_hash__", any_hash_entries),
    STATIC_COLUMN_WITH("__any_equal__", any_equal_entries),
    STATIC_COLUMN("__ffi_enum__"),
    STATIC_COLUMN("__s_equal__"),
    STATIC_COLUMN("__s_hash__"),
    STATIC_COLUMN("__s_visit__"),
    STATIC_COLUMN("__s_mutate__"),
    STATIC_COLUMN("__s_maybe_inplace_mutate__"),
    STATIC_COLUMN("__data_to_json__"),
    STATIC_COLUMN("__data_from_json__"),
    STATIC_COLUMN("__ffi_shallow_copy__"),
    STATIC_COLUMN("__ffi_repr__"),
    STATIC_COLUMN("__ffi_hash__"),
    STATIC_COLUMN("__ffi_eq__"),
    STATIC_COLUMN("__ffi_compare__"),
    STATIC_COLUMN("__ffi_new__"),
    STATIC_COLUMN("__ffi_init__"),
    STATIC_COLUMN("__ffi_convert__"),
    STATIC_COLUMN("__ffi_type_final__"),
};
#define STATIC_COLUMN_COUNT (sizeof(static_columns) / sizeof(static_columns[0]))

static named_column *dynamic_columns; /* published with release */
static xffi_mutex attr_lock = XFFI_MUTEX_INITIALIZER;

/* Stores a native hook (the bits of a function pointer, as tvm-ffi's
 * NativeFunctionView does) into a None entry: payload first, then the tag. */
static void put_native_hook(xffi_any *entry, const void *function_bits) {
  void *address;
  memcpy(&address, function_bits, sizeof(address));
  entry->small_len = 0;
  entry->v_ptr = address;
  __atomic_store_n(&entry->type_index, XFFI_TYPE_OPAQUE_PTR, __ATOMIC_RELEASE);
}

static void fill_runtime_entries(void) {
  xffi_any (*hash)(const xffi_any *) = xffi_bigint_any_hash;
  xffi_any (*equal)(const xffi_any *, const xffi_any *) = xffi_bigint_any_equal;
  _Static_assert(sizeof(hash) == sizeof(void *) && sizeof(equal) == sizeof(void *),
                 "a function pointer fits an OpaquePtr");
  put_native_hook(&any_hash_entries[XFFI_TYPE_BIGINT], &hash);
  put_native_hook(&any_equal_entries[XFFI_TYPE_BIGINT], &equal);
}
static xffi_once runtime_entries_once = XFFI_ONCE_INITIALIZER;

static int same_name(const named_column *c, const char *name, size_t size) {
  return c->name.size == size && (!size || memcmp(c->name.data, name, size) == 0);
}

static named_column *find_column(const char *name, size_t size) {
  xffi_call_once(&runtime_entries_once, fill_runtime_entries);
  for (size_t i = 0; i < STATIC_COLUMN_COUNT; ++i)
    if (same_name(&static_columns[i], name, size)) return &static_columns[i];
  for (named_column *c = __atomic_load_n(&dynamic_columns, __ATOMIC_ACQUIRE); c;
       c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
    if (same_name(c, name, size)) return c;
  return NULL;
}

const xffi_type_attr_column *xffi_type_attr_column_find(const char *name, size_t size) {
  named_column *c = find_column(name, size);
  return c ? &c->column : NULL;
}

#ifndef XFFI_NO_FOREIGN_RUNTIME
const xffi_type_attr_column *xffi_type_attr_column_theirs(const xffi_type_attr_column *column,
                                                          const xffi_type_provider *provider) {
  named_column *c = (named_column *)column; /* the column is the node's first member */
  /* Columns live at fixed addresses once made: asked for by name until found. */
  if (__atomic_load_n(&c->theirs_of, __ATOMIC_ACQUIRE) == provider)
    return __atomic_load_n(&c->theirs, __ATOMIC_RELAXED);
  const xffi_type_attr_column *theirs = provider->attr_column(c->name.data, c->name.size);
  if (theirs) {
    __atomic_store_n(&c->theirs, theirs, __ATOMIC_RELAXED);
    __atomic_store_n(&c->theirs_of, provider, __ATOMIC_RELEASE);
  }
  return theirs;
}
#endif

/* Under attr_lock: the column of name, made if new; NULL when out of memory. */
static named_column *column_for(const char *name, size_t size) {
  named_column *c = find_column(name, size);
  if (c) return c;
  c = xffi_alloc_zeroed(1, sizeof(named_column) + size + 1);
  if (!c) return NULL;
  char *copy = (char *)(c + 1);
  if (size) memcpy(copy, name, size);
  c->name.data = copy;
  c->name.size = size;
  c->next = dynamic_columns;
  __atomic_store_n(&dynamic_columns, c, __ATOMIC_RELEASE);
  return c;
}

/* Under attr_lock: makes data hold index + 1 entries (None past the old
 * size), retiring the old array. XFFI_FAIL when out of memory. */
static int column_reserve(named_column *c, int32_t index) {
  if (index < c->column.size) return XFFI_OK;
  if (index >= c->capacity) {
    int32_t capacity = c->capacity > INT32_MAX / 2 ? INT32_MAX : c->capacity * 2;
    if (capacity <= index) capacity = index + 1;
    xffi_any *data = xffi_alloc((size_t)capacity * sizeof(xffi_any));
    if (!data) return XFFI_FAIL;
    if (c->column.size) memcpy(data, c->column.data, (size_t)c->column.size * sizeof(xffi_any));
    for (int32_t i = c->column.size; i < capacity; ++i) data[i] = xffi_any_none();
    xffi_type_lock();
    int kept = !c->column.data || c->static_data || xffi_type_retire((void *)c->column.data) == XFFI_OK;
    xffi_type_unlock();
    if (!kept) {
      xffi_free(data);
      return XFFI_FAIL;
    }
    __atomic_store_n(&c->column.data, data, __ATOMIC_RELEASE);
    c->capacity = capacity;
    c->static_data = 0;
  }
  __atomic_store_n(&c->column.size, index + 1, __ATOMIC_RELEASE);
  return XFFI_OK;
}

/* xffi_type_register_attr_in in this runtime's column alone. */
static int register_here(const char *function, int32_t type_index, const char *name, size_t name_size,
                         const xffi_any *value) {
  if (!name && name_size)
    return xffi_raise_arg(XFFI_KIND_VALUE, function, "name", "is NULL but its size is %zu", name_size);
  if (!value) return xffi_raise_null_arg(function, "value");
  /* Index 0 (None) only makes sure the column exists, as in tvm-ffi; other
   * indices must name a registered type, which bounds the column's size. */
  if (type_index != XFFI_TYPE_NONE && !xffi_type_info_find(type_index))
    return xffi_raise_arg(XFFI_KIND_INDEX, function, "type_index", "%d is not a registered type", (int)type_index);
  xffi_any owned = xffi_any_none();
  if (type_index != XFFI_TYPE_NONE && xffi_any_copy(&owned, value) != XFFI_OK) return XFFI_FAIL;

  xffi_mutex_lock(&attr_lock);
  named_column *c = column_for(name, name_size);
  if (!c || (type_index != XFFI_TYPE_NONE && column_reserve(c, type_index) != XFFI_OK)) {
    xffi_mutex_unlock(&attr_lock);
    xffi_any_release(&owned);
    return xffi_error_raise_out_of_memory();
  }
  if (type_index == XFFI_TYPE_NONE) {
    xffi_mutex_unlock(&attr_lock);
    return XFFI_OK;
  }
  xffi_any *slot = (xffi_any *)&c->column.data[type_index];
  if (slot->type_index != XFFI_TYPE_NONE) {
    xffi_mutex_unlock(&attr_lock);
    xffi_any_release(&owned);
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "%s: type attribute '%.*s' is already registered for %s (index %d); to change it, "
                            "register a mutable container once and mutate it",
                            function, (int)name_size, name, xffi_type_key(type_index), (int)type_index);
  }
  /* The payload before the tag, so a reader that sees the tag sees the value. */
  slot->small_len = owned.small_len;
  slot->v_int64 = owned.v_int64;
  __atomic_store_n(&slot->type_index, owned.type_index, __ATOMIC_RELEASE);
  xffi_mutex_unlock(&attr_lock);
  return XFFI_OK;
}

int xffi_type_register_attr_in(const char *function, int32_t type_index, const char *name, size_t name_size,
                               const xffi_any *value) {
  if (register_here(function, type_index, name, name_size, value) != XFFI_OK) return XFFI_FAIL;
  return xffi_foreign_tell_attr(type_index, name, name_size, value); /* a type created in another runtime */
}

#ifndef XFFI_NO_FOREIGN_RUNTIME /* the drop-in has no type provider */
int xffi_type_attr_adopt(const xffi_type_attr_column *column, int32_t type_index, const xffi_any *value) {
  const named_column *c = (const named_column *)column;
  return register_here("xffi_type_attr_adopt", type_index, c->name.data, c->name.size, value);
}
#endif

/* ---- The xffi_* forms (xffi/reflection.h) ---- */

int xffi_type_register_attr(int32_t type_index, const char *name, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(name);
  return xffi_type_register_attr_in(__func__, type_index, name, strlen(name), value);
}

int xffi_type_attr_column_lookup(const xffi_type_attr_column **out, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(name);
  *out = xffi_type_attr_column_find(name, strlen(name));
  return XFFI_OK;
}
