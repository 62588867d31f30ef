/* c/lib/walk/structural_key.h: ffi.StructuralKey objects (private; c/lib/walk/structural_key.c),
 * a value wrapped with its structural hash so that Maps and Dicts (and
 * Python's dict) key it by structural equality. */
#ifndef XFFI_STRUCTURAL_KEY_H
#define XFFI_STRUCTURAL_KEY_H

#include "runtime/internal.h"

/* tvm-ffi's StructuralKeyObj layout: key (Any) at 24, hash_i64 at 40. */
typedef struct structural_key {
  xffi_object header;
  xffi_any key;     /* owned */
  int64_t hash_i64; /* xffi_structural_hash(key, 0) */
} structural_key;

/* *out receives a new StructuralKey (a new reference) holding a copy of
 * key (borrowed). Errors: those of xffi_structural_hash, MemoryError. */
int xffi_structural_key_new(xffi_object **out, const xffi_any *key) XFFI_INTERNAL;

/* *out receives a new StructuralKey holding a copy of key (borrowed) and
 * the given hash, unchecked (tvm-ffi's default and copied keys: None and 0,
 * or another key's fields). Errors: MemoryError. */
int xffi_structural_key_new_raw(xffi_object **out, const xffi_any *key, int64_t hash) XFFI_INTERNAL;

/* Registers ffi.StructuralKey's `__any_hash__` and `__any_equal__` on
 * type_index (the type's index, just registered) as native hooks, as
 * tvm-ffi's runtime does. XFFI_FAIL with an error raised (already
 * registered, MemoryError). */
int xffi_structural_key_register_hooks(int32_t type_index) XFFI_INTERNAL;

/* *out: 1 when a and b (borrowed StructuralKeys) are the same object, or
 * have the same hash and structurally equal keys. TypeError for another
 * kind of value. */
int xffi_structural_key_equal(int *out, const xffi_any *a, const xffi_any *b) XFFI_INTERNAL;

#endif /* XFFI_STRUCTURAL_KEY_H */
