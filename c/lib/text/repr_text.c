/* c/lib/text/repr_text.c: the printer's bounded buffer and the texts of leaf values
 * (numbers, strings, bytes, devices, dtypes, BigInts), in the format of
 * tvm-ffi's ffi.ReprPrint (c/lib/text/repr.c walks the containers and objects). */
#include "runtime/bigint.h"
#include "lib/text/repr_text.h"
#include "lib/tensor/dtype_tvm_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <xffi/tvm_ffi.h>

static int grow(repr_text *t, size_t need) {
  if (need <= t->capacity) return XFFI_OK;
  size_t capacity = t->capacity ? t->capacity : 256;
  while (capacity < need) capacity = capacity > SIZE_MAX / 2 ? need : capacity * 2;
  if (capacity > t->limit && need <= t->limit) capacity = t->limit; /* the JSON writer's fast path relies on it */
  char *data = xffi_realloc(t->data, capacity);
  if (!data) return xffi_error_raise_out_of_memory();
  t->data = data;
  t->capacity = capacity;
  return XFFI_OK;
}

int xffi_repr_put(repr_text *t, const char *s, size_t n) {
  if (t->truncated) return XFFI_OK;
  size_t room = t->limit - t->size; /* size never exceeds limit */
  if (n > room) {
    n = room;
    t->truncated = 1;
  }
  if (n == 0) return XFFI_OK;
  if (grow(t, t->size + n) != XFFI_OK) return XFFI_FAIL;
  memcpy(t->data + t->size, s, n);
  t->size += n;
  return XFFI_OK;
}

int xffi_repr_put_str(repr_text *t, const char *s) { return xffi_repr_put(t, s, strlen(s)); }

int xffi_repr_put_again(repr_text *t, const repr_text *from, size_t start, size_t end) {
  size_t n = end - start;
  if (t->truncated) return XFFI_OK;
  if (n > t->limit - t->size) {
    n = t->limit - t->size;
    t->truncated = 1;
  }
  /* Grow first: from may be t itself, whose data may move. */
  if (n == 0 || grow(t, t->size + n) != XFFI_OK) return n == 0 ? XFFI_OK : XFFI_FAIL;
  memmove(t->data + t->size, from->data + start, n);
  t->size += n;
  return XFFI_OK;
}

void xffi_repr_text_free(repr_text *t) {
  xffi_free(t->data);
  t->data = NULL;
  t->size = t->capacity = 0;
}

int xffi_repr_put_int(repr_text *t, int64_t v) {
  /* By hand: snprintf costs more than the rest of an int's print. */
  char buf[24];
  char *end = buf + sizeof(buf), *p = end;
  uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude);
  if (v < 0) *--p = '-';
  return xffi_repr_put(t, p, (size_t)(end - p));
}

int xffi_repr_put_float(repr_text *t, double v) {
  char buf[40];
  int n = snprintf(buf, sizeof(buf), "%g", v);
  /* A locale with a decimal comma must not change the text. */
  for (int i = 0; i < n; ++i)
    if (buf[i] == ',') buf[i] = '.';
  return xffi_repr_put(t, buf, (size_t)n);
}

int xffi_repr_put_device(repr_text *t, DLDevice device) {
  const char *name = xffi_device_type_name((int32_t)device.device_type);
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%s:%d", name ? name : "unknown", (int)device.device_id);
  return xffi_repr_put(t, buf, (size_t)n);
}

int xffi_repr_put_dtype(repr_text *t, DLDataType dtype) {
  xffi_any text = xffi_any_none();
  if (xffi_dtype_to_tvm_text(&dtype, &text) != XFFI_OK) return XFFI_FAIL;
  xffi_byte_array bytes;
  int status = xffi_any_to_str(&bytes, &text);
  if (status == XFFI_OK) status = xffi_repr_put(t, bytes.data, bytes.size);
  xffi_any_release(&text);
  return status;
}

int xffi_repr_put_address(repr_text *t, const void *address) {
  char buf[24];
  int n = snprintf(buf, sizeof(buf), "0x%" PRIxPTR, (uintptr_t)address);
  return xffi_repr_put(t, buf, (size_t)n);
}

static int put_hex_escape(repr_text *t, const char *prefix, unsigned value, int digits) {
  char buf[16];
  int n = snprintf(buf, sizeof(buf), "%s%0*x", prefix, digits, value);
  return xffi_repr_put(t, buf, (size_t)n);
}

/* The length of an ANSI colour or erase sequence ("\x1b[1;31m", "\x1b[K")
 * starting at s[0], or 0: such sequences keep their text after "\x1b". */
static size_t ansi_sequence_length(const unsigned char *s, size_t size) {
  if (size < 3 || s[0] != 0x1b || s[1] != '[') return 0;
  size_t j = 2;
  while (j < size && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
  return j < size && (s[j] == 'm' || s[j] == 'K') ? j + 1 : 0;
}

static int is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

int xffi_repr_put_py_string(repr_text *t, const char *data, size_t size) {
  const unsigned char *s = (const unsigned char *)data;
  if (xffi_repr_put(t, "\"", 1) != XFFI_OK) return XFFI_FAIL;
  size_t i = 0;
  while (i < size && !t->truncated) {
    size_t plain = i;
    /* Runs of printable ASCII are copied at once. */
    while (plain < size && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\') ++plain;
    if (plain > i) {
      if (xffi_repr_put(t, data + i, plain - i) != XFFI_OK) return XFFI_FAIL;
      i = plain;
      continue;
    }
    unsigned char c = s[i];
    size_t rest = size - i;
    size_t ansi = ansi_sequence_length(s + i, rest);
    int status;
    if (ansi) {
      status = xffi_repr_put(t, "\\x1b", 4);
      if (status == XFFI_OK) status = xffi_repr_put(t, data + i + 1, ansi - 1);
      i += ansi;
    } else if (c == '\n' || c == '\t' || c == '\r' || c == '\\' || c == '"') {
      char escape[2] = {'\\', c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : (char)c};
      status = xffi_repr_put(t, escape, 2);
      i += 1;
    } else if (c < 0x80) {
      status = put_hex_escape(t, "\\x", c, 2); /* control characters and DEL */
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && rest >= 2 && is_continuation(s[i + 1])) {
      status = put_hex_escape(t, "\\u", ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu), 4);
      i += 2;
    } else if ((c & 0xF0) == 0xE0 && rest >= 3 && is_continuation(s[i + 1]) && is_continuation(s[i + 2])) {
      status = put_hex_escape(t, "\\u", ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu), 4);
      i += 3;
    } else if ((c & 0xF8) == 0xF0 && rest >= 4 && is_continuation(s[i + 1]) && is_continuation(s[i + 2]) &&
               is_continuation(s[i + 3])) {
      unsigned cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
      status = put_hex_escape(t, "\\U", cp, 8);
      i += 4;
    } else {
      status = put_hex_escape(t, "\\x", c, 2); /* a byte that starts no complete sequence */
      i += 1;
    }
    if (status != XFFI_OK) return XFFI_FAIL;
  }
  return xffi_repr_put(t, "\"", 1);
}

int xffi_repr_put_bytes(repr_text *t, const char *data, size_t size) {
  const unsigned char *s = (const unsigned char *)data;
  if (xffi_repr_put(t, "b\"", 2) != XFFI_OK) return XFFI_FAIL;
  size_t i = 0;
  while (i < size && !t->truncated) {
    size_t plain = i;
    while (plain < size && s[plain] >= 32 && s[plain] < 127 && s[plain] != '"' && s[plain] != '\\') ++plain;
    int status = plain > i ? xffi_repr_put(t, data + i, plain - i) : put_hex_escape(t, "\\x", s[i], 2);
    if (status != XFFI_OK) return XFFI_FAIL;
    i = plain > i ? plain : i + 1;
  }
  return xffi_repr_put(t, "\"", 1);
}

int xffi_repr_put_bigint(repr_text *t, const xffi_any *value) {
  xffi_byte_array content = xffi_bigint_content("ffi.ReprPrint", value);
  size_t words = content.size / sizeof(int64_t);
  if (words == 0) return xffi_repr_put(t, "0", 1);
  /* The magnitude as 32-bit limbs, least significant first, so that one
   * limb and a remainder below 10^9 fit in 64 bits while dividing. */
  size_t limbs = words * 2;
  uint32_t *magnitude = xffi_alloc(limbs * sizeof(uint32_t));
  size_t max_chunks = limbs * 32 / 29 + 2; /* 10^9 > 2^29 */
  uint32_t *chunks = xffi_alloc(max_chunks * sizeof(uint32_t));
  char *digits = xffi_alloc(max_chunks * 9 + 2);
  if (!magnitude || !chunks || !digits) {
    xffi_free(magnitude), xffi_free(chunks), xffi_free(digits);
    return xffi_error_raise_out_of_memory();
  }
  int64_t top;
  memcpy(&top, content.data + (words - 1) * sizeof(int64_t), sizeof(top));
  int negative = top < 0;
  uint64_t carry = 1; /* two's complement negation: invert, then add one */
  for (size_t w = 0; w < words; ++w) {
    uint64_t word;
    memcpy(&word, content.data + w * sizeof(uint64_t), sizeof(word));
    if (negative) {
      word = ~word + carry;
      carry = carry && word == 0;
    }
    magnitude[2 * w] = (uint32_t)word;
    magnitude[2 * w + 1] = (uint32_t)(word >> 32);
  }
  size_t used = limbs, count = 0;
  while (used > 0 && magnitude[used - 1] == 0) --used;
  while (used > 0) {
    uint64_t remainder = 0;
    for (size_t k = used; k-- > 0;) {
      uint64_t current = (remainder << 32) | magnitude[k];
      magnitude[k] = (uint32_t)(current / 1000000000u);
      remainder = current % 1000000000u;
    }
    chunks[count++] = (uint32_t)remainder;
    while (used > 0 && magnitude[used - 1] == 0) --used;
  }
  size_t n = 0;
  if (negative) digits[n++] = '-';
  n += (size_t)snprintf(digits + n, 10, "%" PRIu32, count ? chunks[count - 1] : 0u);
  for (size_t k = count > 0 ? count - 1 : 0; k-- > 0;) n += (size_t)snprintf(digits + n, 10, "%09" PRIu32, chunks[k]);
  int status = xffi_repr_put(t, digits, n);
  xffi_free(magnitude), xffi_free(chunks), xffi_free(digits);
  return status;
}
