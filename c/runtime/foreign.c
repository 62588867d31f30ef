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
#include <string.h>

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

int xffi_foreign_runtime_present(void) { return 0; }
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

/* 0 not yet probed, 1 no other runtime, 2 one: read on every Function
 * creation and type registration, so the probe (a dlsym) runs once. */
static atomic_int foreign_state;

int xffi_foreign_runtime_present(void) {
  int state = atomic_load_explicit(&foreign_state, memory_order_relaxed);
  if (XFFI_UNLIKELY(state == 0)) {
    state = xffi_foreign_symbol("TVMFFIErrorSetRaised") ? 2 : 1;
    atomic_store_explicit(&foreign_state, state, memory_order_relaxed);
  }
  return state == 2;
}

void xffi_foreign_runtime_forget(void) {
  int none = 1;
  atomic_compare_exchange_strong_explicit(&foreign_state, &none, 0, memory_order_relaxed, memory_order_relaxed);
}

typedef int (*key_to_index_fn)(const xffi_byte_array *key, int32_t *out);
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
  if (find.f(&name, out) == 0) return XFFI_OK;
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
  if (!entry || !entry->foreign_created) return XFFI_OK;
  const char *key = entry->stored.info.type_key.data;
  union {
    void *p;
    register_attr_fn f;
  } call = {needed("TVMFFITypeRegisterAttr", key)};
  xffi_byte_array text = {name, name_size};
  return call.p ? adopted(call.f(type_index, &text, value), "TVMFFITypeRegisterAttr", key) : XFFI_FAIL;
}

#endif /* XFFI_NO_FOREIGN_RUNTIME */
