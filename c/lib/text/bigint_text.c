/* c/lib/text/bigint_text.c: an integer as decimal text and back (c/lib/text/bigint_text.h),
 * the text ffi.BigInt takes in tvm-ffi's JSON graph. */
#include <stdint.h>
#include <string.h>

#include <xffi/string.h>

#include "runtime/bigint.h"
#include "lib/text/bigint_text.h"
#include "lib/text/repr_text.h"

int xffi_bigint_to_decimal(xffi_any *out, const xffi_any *value, const char *fn) {
  *out = xffi_any_none();
  /* xffi_bigint_content raises the TypeError for anything but an integer. */
  if (!xffi_bigint_content(fn, value).data) return XFFI_FAIL;
  repr_text text = {NULL, 0, 0, SIZE_MAX, 0};
  int status = xffi_repr_put_bigint(&text, value);
  xffi_object *string = NULL;
  /* A String object even when short, as tvm-ffi's String(std::string) is. */
  if (status == XFFI_OK) status = xffi_string_new(&string, text.data ? text.data : "", text.size);
  if (status == XFFI_OK) *out = xffi_any_object(string);
  xffi_repr_text_free(&text);
  return status;
}

static int invalid(void) { return xffi_error_raise(XFFI_KIND_VALUE, "Invalid decimal string for ffi.BigInt"); }

int xffi_bigint_from_decimal(xffi_any *out, const char *text, size_t size, const char *fn) {
  *out = xffi_any_int(0);
  size_t at = 0;
  int negative = 0;
  if (at < size && (text[at] == '+' || text[at] == '-')) negative = text[at++] == '-';
  if (at == size) return invalid();
  for (size_t i = at; i < size; ++i)
    if (text[i] < '0' || text[i] > '9') return invalid();
  /* The magnitude in 32-bit limbs, least significant first: a digit has
   * under 4 bits, so 9 digits grow it by under 30 bits, one limb at most. */
  size_t digits = size - at, capacity = digits / 9 + 2;
  if (capacity % 2) ++capacity; /* whole 64-bit words, plus room for the sign */
  uint32_t *limbs = xffi_alloc_zeroed(capacity + 2, sizeof(uint32_t));
  if (!limbs) return xffi_error_raise_out_of_memory();
  size_t used = 0;
  for (size_t i = at; i < size; ++i) {
    uint64_t carry = (uint64_t)(text[i] - '0');
    for (size_t k = 0; k < used; ++k) {
      uint64_t current = (uint64_t)limbs[k] * 10u + carry;
      limbs[k] = (uint32_t)current;
      carry = current >> 32;
    }
    if (carry) limbs[used++] = (uint32_t)carry;
  }
  /* Two's complement 64-bit words with a clear top bit before the sign
   * (the last word stays zero), negated for a minus sign. */
  size_t words = (capacity + 2) / 2;
  uint64_t *content = xffi_alloc_zeroed(words, sizeof(uint64_t));
  if (!content) {
    xffi_free(limbs);
    return xffi_error_raise_out_of_memory();
  }
  for (size_t w = 0; w < words; ++w) content[w] = (uint64_t)limbs[2 * w] | (uint64_t)limbs[2 * w + 1] << 32;
  xffi_free(limbs);
  if (negative) {
    uint64_t carry = 1;
    for (size_t w = 0; w < words; ++w) {
      content[w] = ~content[w] + carry;
      carry = carry && content[w] == 0;
    }
  }
  xffi_byte_array bytes = {(const char *)content, words * sizeof(uint64_t)};
  int status = xffi_bigint_from_bytes(fn, &bytes, out);
  xffi_free(content);
  return status;
}
