/* tests/endian/small_keys.c: a cmocka-free driver for byte-order checks of
 * Map and Dict keys, built statically for another architecture and run under
 * user-mode emulation (tests/endian/run.sh runs it under qemu-s390x, a
 * big-endian machine). Stores string and bytes keys of 0 to 16 bytes (7 and
 * fewer are inline small values), then reads every key back through the
 * iteration and looks every key up in each of its forms (small value,
 * String/Bytes object, borrowed C string). Prints each failure; exit status
 * 0 when all pass. */
#include <stdio.h>
#include <string.h>
#include <xffi/map.h>
#include <xffi/string.h>
#include <xffi/xffi.h>

static int failures;

#define CHECK(cond, ...)          \
  do {                            \
    if (!(cond)) {                \
      ++failures;                 \
      printf("FAIL %s: ", #cond); \
      printf(__VA_ARGS__);        \
      printf("\n");               \
    }                             \
  } while (0)

static const char text[] = "abcdefghijklmnop";

/* Every key of the container, found by iteration, has the text its value
 * (the key's length) says. */
static void check_keys_read_back(const char *kind, const xffi_object *map, int is_dict, int is_bytes) {
  int64_t cursor = 0;
  int seen = 0;
  for (;;) {
    xffi_map_item item;
    int status = is_dict ? xffi_map_next(&item, map, &cursor) : xffi_map_next(&item, map, &cursor);
    if (status != XFFI_OK || !item.key) break;
    int64_t len = item.value->v_int64;
    xffi_byte_array got;
    status = is_bytes ? xffi_any_to_bytes(&got, item.key) : xffi_any_to_str(&got, item.key);
    CHECK(status == XFFI_OK && got.size == (size_t)len && memcmp(got.data, text, (size_t)len) == 0,
          "%s: key of %lld bytes reads back as \"%.*s\"", kind, (long long)len, (int)got.size, got.data);
    ++seen;
  }
  CHECK(seen == 17, "%s: iteration saw %d keys, expected 17", kind, seen);
}

static void check_lookups(const char *kind, const xffi_object *map, int is_dict, int is_bytes) {
  for (size_t len = 0; len <= 16; ++len) {
    xffi_any small = xffi_any_none(), object = xffi_any_none();
    xffi_object *obj = NULL;
    if (is_bytes) {
      xffi_any_from_bytes(&small, text, len);
      xffi_bytes_new(&obj, text, len);
    } else {
      xffi_any_from_str(&small, text, len);
      xffi_string_new(&obj, text, len);
    }
    object = xffi_any_object(obj);
    char c_str[17];
    memcpy(c_str, text, len);
    c_str[len] = '\0';
    xffi_byte_array bytes = {c_str, len};
    xffi_any borrowed = is_bytes ? xffi_any_byte_array(&bytes) : xffi_any_c_str(c_str);
    const xffi_any *forms[3] = {&small, &object, &borrowed};
    static const char *form_names[3] = {"inline or object value", "object", "borrowed"};
    for (int f = 0; f < 3; ++f) {
      const xffi_any *found = NULL;
      int status = is_dict ? xffi_map_lookup(&found, map, forms[f]) : xffi_map_lookup(&found, map, forms[f]);
      CHECK(status == XFFI_OK && found && found->v_int64 == (int64_t)len, "%s: lookup of %zu bytes as %s", kind, len,
            form_names[f]);
    }
    xffi_any_release(&small);
    xffi_object_dec_ref(obj);
  }
}

static void run(int is_dict, int is_bytes) {
  char kind[32];
  snprintf(kind, sizeof(kind), "%s of %s", is_dict ? "Dict" : "Map", is_bytes ? "bytes" : "str");
  xffi_object *map = NULL;
  if ((is_dict ? xffi_dict_new(&map, NULL, NULL, 0) : xffi_map_new(&map, NULL, NULL, 0)) != XFFI_OK) {
    CHECK(0, "%s: cannot create", kind);
    return;
  }
  for (size_t len = 0; len <= 16; ++len) {
    xffi_any key = xffi_any_none();
    if (is_bytes)
      xffi_any_from_bytes(&key, text, len);
    else
      xffi_any_from_str(&key, text, len);
    xffi_any value = xffi_any_int((int64_t)len);
    int status = is_dict ? xffi_dict_set(map, &key, &value) : xffi_map_set(&map, &key, &value);
    CHECK(status == XFFI_OK, "%s: set key of %zu bytes", kind, len);
    xffi_any_release(&key);
  }
  check_keys_read_back(kind, map, is_dict, is_bytes);
  check_lookups(kind, map, is_dict, is_bytes);
  xffi_object_dec_ref(map);
}

int main(void) {
  unsigned probe = 1;
  unsigned char first;
  memcpy(&first, &probe, 1);
  printf("byte order: %s-endian\n", first ? "little" : "big");
  for (int is_dict = 0; is_dict < 2; ++is_dict)
    for (int is_bytes = 0; is_bytes < 2; ++is_bytes) run(is_dict, is_bytes);
  printf("%s: %d failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
