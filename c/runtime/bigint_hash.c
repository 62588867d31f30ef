/* c/runtime/bigint_hash.c: the hash and equality tvm-ffi gives ffi.BigInt map keys
 * (its BigIntAnyHash/BigIntAnyEqual), as native hooks: they return their
 * result or an Error in an Any and never leave an error in the slot. */
#include <string.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "runtime/hash.h"

/* The raised error, moved out of the slot into an Any (the hook's failure). */
static xffi_any raised_as_any(void) {
  xffi_object *error = xffi_error_move_raised();
  if (!error) return xffi_any_none(); /* cannot happen: a failure raised */
  xffi_any out = xffi_any_none();
  out.type_index = XFFI_TYPE_ERROR;
  out.v_obj = error;
  return out;
}

/* The words of an integer argument (a BigInt, or an int as one word, as
 * tvm-ffi's as_or_throw<BigInt> accepts both); raises (naming hook) for
 * anything else. */
static int words_of(xffi_byte_array *out, const char *hook, const xffi_any *value) {
  if (!value) return xffi_raise_null_arg(hook, "value");
  int is_int = value->type_index == XFFI_TYPE_INT;
  int is_big = value->type_index == XFFI_TYPE_BIGINT && value->v_obj && value->v_obj->type_index == XFFI_TYPE_BIGINT;
  if (!is_int && !is_big) return xffi_raise_type_mismatch(hook, "ffi.BigInt", value);
  *out = xffi_bigint_content(hook, value);
  return XFFI_OK;
}

xffi_any xffi_bigint_any_hash(const xffi_any *value) {
  xffi_byte_array words;
  if (words_of(&words, "ffi.BigInt __any_hash__", value) != XFFI_OK) return raised_as_any();
  /* tvm-ffi's BigInt::hash: an int is its own hash; wider values hash their
   * words. The unsigned hash is returned bit-cast to int64. */
  if (value->type_index == XFFI_TYPE_INT) return xffi_any_int(value->v_int64);
  uint64_t h = xffi_stable_hash_bytes(words.data, words.size);
  int64_t as_int;
  memcpy(&as_int, &h, sizeof(as_int));
  return xffi_any_int(as_int);
}

xffi_any xffi_bigint_any_equal(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array x, y;
  if (words_of(&x, "ffi.BigInt __any_equal__", a) != XFFI_OK || words_of(&y, "ffi.BigInt __any_equal__", b) != XFFI_OK)
    return raised_as_any();
  /* Values are normalised (no redundant sign word; an int is one word), so
   * equal integers have equal words. */
  return xffi_any_bool(x.size == y.size && memcmp(x.data, y.data, x.size) == 0);
}
