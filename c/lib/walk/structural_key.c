/* c/lib/walk/structural_key.c: ffi.StructuralKey (see c/lib/walk/structural_key.h). The type
 * itself is registered with the runtime's types (c/compat/globals/type_runtime.c); the
 * first key made gives the type its `__any_hash__` (the stored hash) and
 * `__any_equal__` (xffi_structural_key_equal) attributes, which Map and
 * Dict keys use, as tvm-ffi's runtime registers them. */
#include <stddef.h>

#include <xffi/function.h>
#include <xffi/reflection.h>
#include <xffi/structural.h>

#include "runtime/static_object.h"
#include "platform/platform.h"
#include "lib/walk/structural_key.h"
#include "runtime/type_internal.h"

#if UINTPTR_MAX > 0xFFFFFFFFu
_Static_assert(offsetof(structural_key, key) == 24 && offsetof(structural_key, hash_i64) == 40,
               "tvm-ffi's StructuralKeyObj layout");
#endif

static const char key_type[] = "ffi.StructuralKey";

static int32_t key_type_index = -1; /* set once by register_attrs */
static int attrs_status = XFFI_FAIL;
static xffi_once attrs_once = XFFI_ONCE_INITIALIZER;

static int as_key(const structural_key **out, const xffi_any *v, const char *what) {
  if (v->type_index != key_type_index || key_type_index < 0)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: expected ffi.StructuralKey, got %s", what, xffi_any_kind_name(v));
  *out = (const structural_key *)(const void *)v->v_obj;
  return XFFI_OK;
}

static int call_any_hash(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  const structural_key *k = NULL;
  if (num_args != 1) return xffi_error_raise(XFFI_KIND_TYPE, "ffi.StructuralKey __any_hash__: expected 1 argument");
  if (as_key(&k, &args[0], "ffi.StructuralKey __any_hash__") != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(k->hash_i64);
  return XFFI_OK;
}

static int call_any_equal(void *handle, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)handle;
  int equal = 0;
  if (num_args != 2) return xffi_error_raise(XFFI_KIND_TYPE, "ffi.StructuralKey __any_equal__: expected 2 arguments");
  if (xffi_structural_key_equal(&equal, &args[0], &args[1]) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(equal);
  return XFFI_OK;
}

XFFI_BUILTIN_FUNCTION(any_hash_function, call_any_hash);
XFFI_BUILTIN_FUNCTION(any_equal_function, call_any_equal);

static void register_attrs(void) {
  if (xffi_type_builtins_ensure() != XFFI_OK) return;
  const xffi_type_info *info = xffi_type_find_by_key(key_type, sizeof(key_type) - 1);
  if (!info) return;
  xffi_any hash = xffi_any_object(&any_hash_function.header), equal = xffi_any_object(&any_equal_function.header);
  if (xffi_type_register_attr(info->type_index, "__any_hash__", &hash) != XFFI_OK ||
      xffi_type_register_attr(info->type_index, "__any_equal__", &equal) != XFFI_OK)
    return;
  key_type_index = info->type_index;
  attrs_status = XFFI_OK;
}

static void key_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) xffi_any_release(&((structural_key *)self)->key);
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

int xffi_structural_key_new(xffi_object **out, const xffi_any *key) {
  xffi_call_once(&attrs_once, register_attrs);
  if (attrs_status != XFFI_OK)
    return xffi_error_raise(XFFI_KIND_RUNTIME,
                            "ffi.StructuralKey: the type or its hash attributes could not be set up");
  int64_t hash = 0;
  if (xffi_structural_hash(&hash, key, 0) != XFFI_OK) return XFFI_FAIL;
  xffi_any copy;
  if (xffi_any_copy(&copy, key) != XFFI_OK) return XFFI_FAIL;
  structural_key *k = xffi_runtime_object_alloc(sizeof(structural_key), _Alignof(structural_key), key_type_index);
  if (!k) {
    xffi_any_release(&copy);
    return XFFI_FAIL;
  }
  xffi_object_init(&k->header, key_type_index, key_deleter);
  k->key = copy;
  k->hash_i64 = hash;
  *out = &k->header;
  return XFFI_OK;
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
