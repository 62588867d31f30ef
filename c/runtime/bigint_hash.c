/* c/runtime/bigint_hash.c: the hash and equality tvm-ffi gives ffi.BigInt map keys
 * (its BigIntAnyHash/BigIntAnyEqual), as native hooks: they return their
 * result or an Error in an Any and never leave an error in the slot; and
 * the three-way comparison of two integers. */
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

static uint64_t word_at(xffi_byte_array words, size_t i) {
  uint64_t w;
  if (i * sizeof(w) >= words.size) { /* past the top: the sign repeats */
    int64_t top;
    memcpy(&top, words.data + words.size - sizeof(top), sizeof(top));
    return top < 0 ? UINT64_MAX : 0;
  }
  memcpy(&w, words.data + i * sizeof(w), sizeof(w));
  return w;
}

int xffi_bigint_compare(int *out, const xffi_any *a, const xffi_any *b, const char *fn) {
  *out = 0;
  xffi_byte_array x, y;
  if (words_of(&x, fn, a) != XFFI_OK || words_of(&y, fn, b) != XFFI_OK) return XFFI_FAIL;
  size_t n = (x.size > y.size ? x.size : y.size) / sizeof(uint64_t);
  for (size_t i = n; i-- > 0;) {
    uint64_t wx = word_at(x, i), wy = word_at(y, i);
    if (wx == wy) continue;
    /* The top word carries the sign; the words below it are unsigned digits. */
    if (i == n - 1)
      *out = (int64_t)wx < (int64_t)wy ? -1 : 1;
    else
      *out = wx < wy ? -1 : 1;
    return XFFI_OK;
  }
  return XFFI_OK;
}
