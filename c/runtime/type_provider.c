/* c/runtime/type_provider.c: types only the process's other runtime knows.
 *
 * A plugin bound to the process's tvm-ffi runtime (c/runtime/foreign.c)
 * meets objects of types this registry never registered: another plugin's,
 * a C++ library's, one Python defined. The type provider answers for them
 * (c/runtime/type_internal.h), and the first lookup of such a type mirrors it
 * here at its own index: a record with the type's key and its ancestry,
 * which never changes once a type is registered, so the lock-free table, the
 * inline is-instance forms and every reader that takes a record for a
 * registry entry work on it unchanged. Fields, methods and metadata can be
 * added after the type (Python's pyclass registers its fields after the
 * type), so the mirror copies them from the provider's live record on every
 * checked lookup (xffi_type_live); attributes are read from the provider's
 * columns where this runtime's have none (xffi_type_attr_provided).
 *
 * The drop-in libtvm_ffi.so is the process's runtime and has no provider:
 * it leaves this file out, and c/runtime/foreign.c's XFFI_NO_FOREIGN_RUNTIME
 * part has the empty forms. */
#include <string.h>

#include "runtime/type_internal.h"

static const xffi_type_provider *test_provider; /* read and written with __atomic builtins */

void xffi_type_provider_set(const xffi_type_provider *provider) {
  __atomic_store_n(&test_provider, provider, __ATOMIC_RELEASE);
}

const xffi_type_provider *xffi_type_provider_get(void) {
  const xffi_type_provider *provider = __atomic_load_n(&test_provider, __ATOMIC_ACQUIRE);
  return provider ? provider : xffi_foreign_type_provider();
}

void xffi_type_mirror_sync(const xffi_type_info *mirror) {
  const xffi_type_info *theirs = ((const xffi_type_entry *)mirror)->provided;
  if (!theirs) return;
  xffi_type_info *mine = (xffi_type_info *)mirror;
  /* Each array before its count, as the registry publishes its own. */
  int32_t num_fields = __atomic_load_n(&theirs->num_fields, __ATOMIC_ACQUIRE);
  const xffi_field_info *fields = __atomic_load_n(&theirs->fields, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&mine->fields, __ATOMIC_RELAXED) != fields ||
      __atomic_load_n(&mine->num_fields, __ATOMIC_RELAXED) != num_fields) {
    __atomic_store_n(&mine->fields, fields, __ATOMIC_RELEASE);
    __atomic_store_n(&mine->num_fields, num_fields, __ATOMIC_RELEASE);
  }
  int32_t num_methods = __atomic_load_n(&theirs->num_methods, __ATOMIC_ACQUIRE);
  const xffi_method_info *methods = __atomic_load_n(&theirs->methods, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&mine->methods, __ATOMIC_RELAXED) != methods ||
      __atomic_load_n(&mine->num_methods, __ATOMIC_RELAXED) != num_methods) {
    __atomic_store_n(&mine->methods, methods, __ATOMIC_RELEASE);
    __atomic_store_n(&mine->num_methods, num_methods, __ATOMIC_RELEASE);
  }
  const xffi_type_metadata *metadata = __atomic_load_n(&theirs->metadata, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&mine->metadata, __ATOMIC_RELAXED) != metadata)
    __atomic_store_n(&mine->metadata, metadata, __ATOMIC_RELEASE);
}

/* The record of type_index, this registry's or a new mirror (its ancestors
 * first); depth counts the recursion, bounded by the deepest allowed type. */
static const xffi_type_info *provided_at(const xffi_type_provider *provider, int32_t type_index, int depth) {
  const xffi_type_entry *mine = xffi_type_entry_at(type_index);
  if (mine) return xffi_type_live(&mine->stored.info);
  if (depth > XFFI_TYPE_MAX_DEPTH || type_index < XFFI_TYPE_STATIC_OBJECT_BEGIN) return NULL;
  const xffi_type_info *theirs = provider->info_by_index(type_index);
  if (!theirs || theirs->type_index != type_index || theirs->type_depth < 0 ||
      theirs->type_depth > XFFI_TYPE_MAX_DEPTH || (theirs->type_depth && !theirs->type_ancestors))
    return NULL;
  /* Its parent, mirrored first: ancestors are this registry's records. */
  const xffi_type_info *parent = NULL;
  if (theirs->type_depth) {
    const xffi_type_info *their_parent = theirs->type_ancestors[theirs->type_depth - 1];
    if (!their_parent) return NULL;
    parent = provided_at(provider, their_parent->type_index, depth + 1);
    if (!parent || parent->type_depth != theirs->type_depth - 1 ||
        parent->type_key.size != their_parent->type_key.size ||
        memcmp(parent->type_key.data, their_parent->type_key.data, parent->type_key.size) != 0)
      return NULL; /* that index holds another type here */
  }
  xffi_type_lock();
  xffi_type_entry *entry =
      xffi_type_mirror_place_locked(type_index, parent, theirs->type_key.data, theirs->type_key.size, theirs);
  xffi_type_unlock();
  return entry ? xffi_type_live(&entry->stored.info) : NULL;
}

const xffi_type_info *xffi_type_provided(int32_t type_index) {
  const xffi_type_provider *provider = xffi_type_provider_get();
  return provider ? provided_at(provider, type_index, 0) : NULL;
}

const xffi_type_info *xffi_type_provided_by_key(const char *key, size_t size) {
  const xffi_type_provider *provider = xffi_type_provider_get();
  if (!provider) return NULL;
  int32_t index = provider->index_by_key(key, size);
  return index < 0 ? NULL : provided_at(provider, index, 0);
}

/* The entry of type_index in column, or NULL (None, or past its end). */
static const xffi_any *column_entry(const xffi_type_attr_column *column, int32_t type_index) {
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const xffi_any *data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  int64_t at = (int64_t)type_index - column->begin_index;
  if (!data || at < 0 || at >= size) return NULL;
  return __atomic_load_n(&data[at].type_index, __ATOMIC_ACQUIRE) == XFFI_TYPE_NONE ? NULL : &data[at];
}

const xffi_any *xffi_type_attr_provided(const xffi_type_attr_column *local, int32_t type_index) {
  if (!local || type_index < XFFI_TYPE_DYNAMIC_BEGIN) return NULL;
  const xffi_type_provider *provider = xffi_type_provider_get();
  if (XFFI_LIKELY(!provider)) return NULL;
  /* Only for a type the provider has at this index: a mirror, or one this
   * runtime shares with it (foreign_created); a type of this runtime alone
   * (registered before the other runtime was found) is not its. */
  const xffi_type_entry *entry = xffi_type_entry_at(type_index);
  if (entry && !entry->provided && !entry->foreign_created) return NULL;
  if (!entry && !xffi_type_provided(type_index)) return NULL;
  const xffi_type_attr_column *theirs = xffi_type_attr_column_theirs(local, provider);
  return theirs && theirs != local ? column_entry(theirs, type_index) : NULL;
}

void xffi_type_attr_column_sync(const xffi_type_attr_column *column) {
  const xffi_type_provider *provider = column ? xffi_type_provider_get() : NULL;
  if (XFFI_LIKELY(!provider)) return;
  const xffi_type_attr_column *theirs = xffi_type_attr_column_theirs(column, provider);
  if (!theirs || theirs == column) return;
  int32_t end = __atomic_load_n(&theirs->size, __ATOMIC_ACQUIRE) + theirs->begin_index;
  if (end > xffi_type_count()) end = xffi_type_count();
  for (int32_t t = XFFI_TYPE_DYNAMIC_BEGIN; t < end; ++t) {
    const xffi_type_entry *entry = xffi_type_entry_at(t);
    if (!entry || (!entry->provided && !entry->foreign_created) || column_entry(column, t)) continue;
    const xffi_any *value = column_entry(theirs, t);
    /* A failure (out of memory) leaves the entry to the next sync. */
    if (value && xffi_type_attr_adopt(column, t, value) != XFFI_OK) xffi_object_dec_ref(xffi_error_move_raised());
  }
}
