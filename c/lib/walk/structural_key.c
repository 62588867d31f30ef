/* c/lib/walk/structural_key.c: ffi.StructuralKey (see c/lib/walk/structural_key.h). The type
 * itself is registered with the runtime's types (c/compat/globals/type_runtime.c),
 * which then gives it, as tvm-ffi's runtime does when it registers the
 * type, its `__any_hash__` (the stored hash) and `__any_equal__`
 * (xffi_structural_key_equal) attributes in the native-hook form, which
 * Map and Dict keys use. */
#include <stddef.h>
#include <string.h>

#include <xffi/reflection.h>
#include <xffi/structural.h>

#include "platform/platform.h"
#include "lib/walk/structural_key.h"
#include "runtime/type_internal.h"

#if UINTPTR_MAX > 0xFFFFFFFFu
_Static_assert(offsetof(structural_key, key) == 24 && offsetof(structural_key, hash_i64) == 40,
               "tvm-ffi's StructuralKeyObj layout");
#endif

static const char key_type[] = "ffi.StructuralKey";

static int32_t key_type_index = -1; /* set once by find_type */
static xffi_once type_once = XFFI_ONCE_INITIALIZER;

static void find_type(void) {
  if (xffi_type_builtins_ensure() != XFFI_OK) return;
  const xffi_type_info *info = xffi_type_find_by_key(key_type, sizeof(key_type) - 1);
  if (info) key_type_index = info->type_index;
}

static int as_key(const structural_key **out, const xffi_any *v, const char *what) {
#ifndef XFFI_NO_FOREIGN_RUNTIME
  /* A key another runtime made (the process's ffi.StructuralKey) may be the first this one sees. */
  xffi_call_once(&type_once, find_type);
#endif
  if (v->type_index != key_type_index || key_type_index < 0)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected ffi.StructuralKey, got %s", what, xffi_any_kind_name(v));
  *out = (const structural_key *)(const void *)v->v_obj;
  return XFFI_OK;
}

/* The raised error, moved out of the slot into an Any (a native hook's failure). */
static xffi_any raised_as_any(void) {
  xffi_any out = xffi_any_none();
  xffi_object *error = xffi_error_move_raised();
  if (error) {
    out.type_index = XFFI_TYPE_ERROR;
    out.v_obj = error;
  }
  return out;
}

/* The native hooks (tvm-ffi's `TVMFFIAny (*)(const Any&[, const Any&])
 * noexcept`): the result, or an Error, in the returned Any. */
static xffi_any native_any_hash(const xffi_any *value) {
  const structural_key *k = NULL;
  if (as_key(&k, value, "ffi.StructuralKey __any_hash__") != XFFI_OK) return raised_as_any();
  return xffi_any_int(k->hash_i64);
}

static xffi_any native_any_equal(const xffi_any *a, const xffi_any *b) {
  int equal = 0;
  if (xffi_structural_key_equal(&equal, a, b) != XFFI_OK) return raised_as_any();
  return xffi_any_bool(equal);
}

/* Stores a native hook in an OpaquePtr entry and registers it. */
static int put_native(int32_t type_index, const char *name, const void *function_bits) {
  xffi_any entry = xffi_any_none();
  void *address;
  memcpy(&address, function_bits, sizeof(address));
  entry.type_index = XFFI_TYPE_OPAQUE_PTR;
  entry.v_ptr = address;
  return xffi_type_register_attr(type_index, name, &entry);
}

int xffi_structural_key_register_hooks(int32_t type_index) {
  xffi_any (*hash)(const xffi_any *) = native_any_hash;
  xffi_any (*equal)(const xffi_any *, const xffi_any *) = native_any_equal;
  _Static_assert(sizeof(hash) == sizeof(void *) && sizeof(equal) == sizeof(void *),
                 "a function pointer fits an OpaquePtr");
  if (put_native(type_index, "__any_hash__", &hash) != XFFI_OK ||
      put_native(type_index, "__any_equal__", &equal) != XFFI_OK)
    return XFFI_FAIL;
  return XFFI_OK;
}

static void key_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&((structural_key *)self)->key);
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* A key of key_type_index holding key (stolen) and hash. */
static int key_make(xffi_object **out, xffi_any *key, int64_t hash) {
  structural_key *k = xffi_runtime_object_alloc(sizeof(structural_key), _Alignof(structural_key), key_type_index);
  if (!k) {
    xffi_any_release(key);
    return XFFI_FAIL;
  }
  xffi_object_init(&k->header, key_type_index, key_deleter);
  k->key = *key;
  k->hash_i64 = hash;
  *out = &k->header;
  return XFFI_OK;
}

static int find_key_type(void) {
  xffi_call_once(&type_once, find_type);
  if (key_type_index < 0) return xffi_error_raise(XFFI_KIND_RUNTIME, "ffi.StructuralKey: the type is not registered");
  return XFFI_OK;
}

int xffi_structural_key_new(xffi_object **out, const xffi_any *key) {
  if (find_key_type() != XFFI_OK) return XFFI_FAIL;
  int64_t hash = 0;
  if (xffi_structural_hash(&hash, key, 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any copy;
  if (xffi_any_copy(&copy, key) != XFFI_OK) return XFFI_FAIL;
  return key_make(out, &copy, hash);
}

int xffi_structural_key_new_raw(xffi_object **out, const xffi_any *key, int64_t hash) {
  if (find_key_type() != XFFI_OK) return XFFI_FAIL;
  xffi_any copy;
  if (xffi_any_copy(&copy, key) != XFFI_OK) return XFFI_FAIL;
  return key_make(out, &copy, hash);
}

int xffi_structural_key_equal(int *out, const xffi_any *a, const xffi_any *b) {
  *out = 0;
  const structural_key *ka = NULL, *kb = NULL;
  if (as_key(&ka, a, "ffi.StructuralKeyEqual: lhs") != XFFI_OK ||
      as_key(&kb, b, "ffi.StructuralKeyEqual: rhs") != XFFI_OK)
    return XFFI_FAIL;
  if (ka == kb) {
    *out = 1;
    return XFFI_OK;
  }
  if (ka->hash_i64 != kb->hash_i64) return XFFI_OK;
  return xffi_structural_equal(out, &ka->key, &kb->key, 0);
}
