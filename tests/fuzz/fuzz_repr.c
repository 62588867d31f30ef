/* Fuzz target: xffi_repr_with (c/repr.c) on strings of arbitrary bytes and
 * on graphs of containers built from the input (shared values, Lists that
 * hold themselves or each other, Maps, Arrays), under random depth and size
 * bounds. Checks: a string prints as a quoted literal of printable ASCII
 * whose escapes are well formed, and decodes back to the bytes when they
 * are valid UTF-8; a bounded print is the unbounded one cut at max_bytes
 * plus "<truncated>" when it does not fit; nothing leaks or crashes. */
#include <xffi/reflection.h>

#include "fuzz_common.h"

static const char marker[] = "<truncated>";

/* The text of value under options (a new String, returned) in *text; aborts on failure. */
static xffi_object *print(const xffi_any *value, const xffi_repr_options *options, xffi_byte_array *text) {
  xffi_object *out = NULL;
  FUZZ_CHECK(xffi_repr_with(&out, value, options) == XFFI_OK && out != NULL);
  FUZZ_CHECK(xffi_string_cell_of(text, out) == XFFI_OK);
  return out;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static size_t utf8_encode(uint32_t cp, char *out) {
  if (cp < 0x80) return out[0] = (char)cp, 1;
  if (cp < 0x800) return out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), 2;
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Whether s is UTF-8 with no overlong forms, surrogates or values past U+10FFFF. */
static int is_strict_utf8(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || i + len > n) return 0;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    i += len;
  }
  return 1;
}

/* Checks the literal printed for the n bytes of s and decodes it back when s is strict UTF-8. */
static void check_string_literal(const char *s, size_t n, xffi_byte_array text) {
  FUZZ_CHECK(text.size >= 2 && text.data[0] == '"' && text.data[text.size - 1] == '"');
  char *decoded = malloc(text.size * 4 + 1);
  FUZZ_CHECK(decoded != NULL);
  size_t m = 0;
  for (size_t i = 1; i + 1 < text.size;) {
    char c = text.data[i];
    FUZZ_CHECK(c >= 0x20 && c < 0x7f && c != '"');
    if (c != '\\') {
      decoded[m++] = c, i++;
      continue;
    }
    FUZZ_CHECK(i + 2 < text.size);
    char e = text.data[i + 1];
    size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
    if (!digits) {
      FUZZ_CHECK(e == 'n' || e == 't' || e == 'r' || e == '\\' || e == '"');
      decoded[m++] = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      i += 2;
      continue;
    }
    FUZZ_CHECK(i + 2 + digits < text.size);
    uint32_t cp = 0;
    for (size_t k = 0; k < digits; ++k) {
      int h = hex_value(text.data[i + 2 + k]);
      FUZZ_CHECK(h >= 0);
      cp = cp << 4 | (uint32_t)h;
    }
    if (e == 'x')
      decoded[m++] = (char)cp; /* a raw byte */
    else
      m += utf8_encode(cp, decoded + m);
    i += 2 + digits;
  }
  if (is_strict_utf8((const unsigned char *)s, n)) FUZZ_CHECK(m == n && memcmp(decoded, s, n) == 0);
  free(decoded);
}

#define POOL 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  fuzz_input in = {data + 1, size - 1};
  xffi_repr_options unbounded = {0, 1 << 20, 0};
  if (data[0] & 1) {
    /* The whole rest as one string. */
    xffi_any s;
    FUZZ_CHECK(xffi_any_from_str(&s, (const char *)in.p, in.n) == XFFI_OK);
    xffi_byte_array text;
    xffi_object *out = print(&s, &unbounded, &text);
    check_string_literal((const char *)in.p, in.n, text);
    xffi_object_dec_ref(out);
    xffi_any_release(&s);
    return 0;
  }
  /* A pool of values; each step makes one from earlier ones. */
  xffi_any pool[POOL];
  xffi_object *lists[POOL];
  size_t count = 0, num_lists = 0;
  pool[count++] = xffi_any_int(1);
  while (in.n && count < POOL) {
    uint8_t op = fuzz_u8(&in) % 6;
    xffi_any items[4];
    size_t n = fuzz_u8(&in) % 5;
    for (size_t k = 0; k < n; ++k) items[k] = pool[fuzz_u8(&in) % count];
    xffi_object *made = NULL;
    switch (op) {
      case 0: pool[count++] = xffi_any_int(fuzz_i64(&in)); break;
      case 1: {
        char buf[16];
        size_t len = fuzz_bytes(&in, buf, 15);
        FUZZ_CHECK(xffi_any_from_str(&pool[count++], buf, len) == XFFI_OK);
        break;
      }
      case 2: FUZZ_CHECK(xffi_array_new(&made, items, (int64_t)n) == XFFI_OK); break;
      case 3:
        FUZZ_CHECK(xffi_list_new(&made, items, (int64_t)n) == XFFI_OK);
        lists[num_lists++] = made;
        break;
      case 4: FUZZ_CHECK(xffi_map_new(&made, items, items + n / 2, (int64_t)(n / 2)) == XFFI_OK); break;
      default:
        /* Push a value into an earlier List: sharing, and cycles. */
        if (num_lists && n) FUZZ_CHECK(xffi_list_push(lists[fuzz_u8(&in) % num_lists], &items[0]) == XFFI_OK);
        break;
    }
    if (made) pool[count++] = xffi_any_object(made);
  }
  xffi_repr_options bounded = {1 + fuzz_u8(&in) % 8, 1 + fuzz_u8(&in) % 200, 0};
  for (size_t v = 0; v < count; ++v) {
    xffi_byte_array full, cut;
    xffi_object *a = print(&pool[v], &unbounded, &full);
    xffi_repr_options size_only = {0, bounded.max_bytes, 0};
    xffi_object *b = print(&pool[v], &size_only, &cut);
    if (full.size <= (size_t)bounded.max_bytes && full.size < (size_t)unbounded.max_bytes) {
      FUZZ_CHECK(cut.size == full.size && memcmp(cut.data, full.data, full.size) == 0);
    } else if (full.size < (size_t)unbounded.max_bytes) {
      FUZZ_CHECK(cut.size == (size_t)bounded.max_bytes + sizeof(marker) - 1);
      FUZZ_CHECK(memcmp(cut.data, full.data, (size_t)bounded.max_bytes) == 0);
      FUZZ_CHECK(memcmp(cut.data + bounded.max_bytes, marker, sizeof(marker) - 1) == 0);
    }
    xffi_object_dec_ref(a);
    xffi_object_dec_ref(b);
    xffi_object *c = print(&pool[v], &bounded, &cut);
    FUZZ_CHECK(cut.size <= (size_t)bounded.max_bytes + sizeof(marker) - 1);
    xffi_object_dec_ref(c);
  }
  /* Break the cycles, then release. */
  for (size_t k = 0; k < num_lists; ++k) FUZZ_CHECK(xffi_list_clear(lists[k]) == XFFI_OK);
  for (size_t v = 0; v < count; ++v) xffi_any_release(&pool[v]);
  return 0;
}
