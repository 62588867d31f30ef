/* c/runtime/string.c: String and Bytes objects and byte comparison. */
#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/internal.h"
#include "runtime/string_internal.h"

/* Header, cell, then the bytes and a NUL, in one allocation that starts
 * with the cached hash word and the allocation header (c/runtime/string_internal.h). */
typedef struct string_object {
  xffi_object header;
  xffi_string_cell cell;
  char bytes[];
} string_object;

#define STRING_PREFIX XFFI_OBJECT_SPACE_PREFIX
#define STRING_OVERHEAD (STRING_PREFIX + sizeof(string_object) + 1)

size_t xffi_string_alloc_size(size_t n) {
  size_t bytes = STRING_OVERHEAD + n;
  return bytes > n ? bytes : 0;
}

/* The built-in allocator's block begins with the hash word and the
 * allocation header, before the object header. Its delete_space frees it. */
void xffi_string_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

/* A String or Bytes from a custom allocator (TVMFFISetCustomAllocator):
 * the allocator owns the prefix, so there is no hash word. */
static void string_deleter_custom_space(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

uint64_t xffi_string_stable_hash_fill(const xffi_object *obj) {
  xffi_byte_array b = xffi_string_cell_of_unchecked(obj);
  uint64_t h = xffi_stable_hash_bytes(b.data, b.size);
  __atomic_store_n(&xffi_string_hash_word(obj)->value, h | XFFI_STRING_HASH_SET, __ATOMIC_RELAXED);
  return h;
}

/* The argument errors of string_make (out NULL, or data NULL with size
 * bytes claimed), kept off its hot path. */
static int __attribute__((noinline, cold)) string_bad_args(xffi_object **out, size_t size, const char *fn) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  return xffi_error_raise(XFFI_KIND_VALUE, "%s: data is NULL but size is %zu", fn, size);
}

static xffi_object *__attribute__((noinline, cold)) string_no_memory(void) {
  xffi_error_raise_out_of_memory();
  return NULL;
}

/* The first 40 bytes of the allocation, as string_make writes them: the
 * hash word (0: not computed yet), the allocation header and the object
 * header as xffi_object_init fills it. Copied from a constant. */
typedef struct string_head {
  uint64_t hash;
#if UINTPTR_MAX <= 0xFFFFFFFFu
  uint32_t padding; /* so that the allocation header ends where the object starts */
#endif
  void (*delete_space)(void *body);
  xffi_object header;
} string_head;
_Static_assert(sizeof(string_head) == STRING_PREFIX + sizeof(xffi_object) &&
                   offsetof(string_head, header) == STRING_PREFIX &&
                   offsetof(string_head, delete_space) == STRING_PREFIX - sizeof(void (*)(void *)),
               "the hash word, the allocation header, then the object header");

#define STRING_HEAD(type)                                                   \
  {                                                                         \
    .hash = 0, .delete_space = xffi_object_space_free_prefixed, .header = { \
      XFFI_REF_INITIAL,                                                     \
      (type),                                                               \
      0,                                                                    \
      {.deleter = xffi_string_deleter}                                      \
    }                                                                       \
  }
static const string_head string_heads[2] = {STRING_HEAD(XFFI_TYPE_STRING), STRING_HEAD(XFFI_TYPE_BYTES)};

/* string_build when a custom allocator is set (out of line); NULL when the
 * allocator failed (it raised). */
static xffi_object *__attribute__((noinline)) string_build_custom(const char *data, size_t size, int32_t type_index) {
  string_object *s =
      xffi_runtime_object_alloc_slow(sizeof(string_object) + size + 1, _Alignof(string_object), type_index);
  if (!s) return NULL; /* the allocator raised */
  xffi_object_init(&s->header, type_index, string_deleter_custom_space);
  s->cell.data = s->bytes;
  s->cell.size = size;
  if (size) memcpy(s->bytes, data, size);
  s->bytes[size] = '\0';
  return &s->header;
}

/* A new String (type_index XFFI_TYPE_STRING) or Bytes (XFFI_TYPE_BYTES)
 * holding a copy of size bytes (one reference), or NULL with a MemoryError
 * raised. The arguments are checked, size <= SIZE_MAX - STRING_OVERHEAD,
 * and size <= 32 if is_short. Returns the object rather than storing it, so
 * that each caller puts it where it goes (an out-parameter, an Any). */
#if defined(__GNUC__)
__attribute__((always_inline)) /* GCC would call it: its folding into each caller is the point */
#endif
static inline xffi_object *
string_build(const char *data, size_t size, int32_t type_index, int is_short) {
  if (XFFI_UNLIKELY(!xffi_runtime_allocator_is_builtin())) return string_build_custom(data, size, type_index);
  char *block = xffi_object_space_block(sizeof(string_object) + size + 1);
  if (XFFI_UNLIKELY(!block)) return string_no_memory();
  memcpy(block, &string_heads[type_index == XFFI_TYPE_BYTES], sizeof(string_head));
  string_object *s = (string_object *)(void *)(block + STRING_PREFIX);
  s->cell.data = s->bytes;
  s->cell.size = size;
  s->bytes[size] = '\0';
  if (is_short)
    xffi_copy_short(s->bytes, data, size);
  else
    memcpy(s->bytes, data, size);
  return &s->header;
}

/* Strings of more than 32 bytes, out of line: string_build, or NULL with a
 * MemoryError raised when the size overflows. */
static xffi_object *__attribute__((noinline)) string_build_long(const char *data, size_t size, int32_t type_index) {
  if (XFFI_UNLIKELY(size > SIZE_MAX - STRING_OVERHEAD)) return string_no_memory();
  return string_build(data, size, type_index, 0);
}

/* The public constructors' shared body, out of line (one copy for the
 * three), over xffi_string_any_new (one copy of the builder). */
static int __attribute__((noinline))
string_make(xffi_object **out, const char *data, size_t size, int32_t type_index, const char *fn) {
  /* NULL data with size 0 is the empty string: xffi_copy_short reads nothing. */
  if (XFFI_UNLIKELY(!out || (!data && size))) return string_bad_args(out, size, fn);
  xffi_any made;
  if (XFFI_UNLIKELY(xffi_string_any_new(&made, data, size, type_index) != XFFI_OK)) {
    *out = NULL;
    return XFFI_FAIL;
  }
  *out = made.v_obj;
  return XFFI_OK;
}

int xffi_string_any_new(xffi_any *out, const char *data, size_t size, int32_t type_index) {
  xffi_object *s =
      XFFI_LIKELY(size <= 32) ? string_build(data, size, type_index, 1) : string_build_long(data, size, type_index);
  if (XFFI_UNLIKELY(!s)) return XFFI_FAIL; /* *out untouched */
  *out = xffi_any_none();
  out->type_index = type_index;
  out->v_obj = s;
  return XFFI_OK;
}

int xffi_string_new(xffi_object **out, const char *data, size_t size) {
  return string_make(out, data, size, XFFI_TYPE_STRING, __func__);
}

int xffi_string_from_c_str(xffi_object **out, const char *c_str) {
  XFFI_CHECK_ARG_NOT_NULL(c_str);
  return string_make(out, c_str, strlen(c_str), XFFI_TYPE_STRING, __func__);
}

int xffi_bytes_new(xffi_object **out, const char *data, size_t size) {
  return string_make(out, data, size, XFFI_TYPE_BYTES, __func__);
}

int xffi_string_cell_of(xffi_byte_array *out, const xffi_object *obj) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG_NOT_NULL(obj);
  if (obj->type_index != XFFI_TYPE_STRING && obj->type_index != XFFI_TYPE_BYTES)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s: obj expected ffi.String or ffi.Bytes, got %s", __func__,
                            xffi_type_key(obj->type_index));
  *out = xffi_string_cell_of_unchecked(obj);
  return XFFI_OK;
}

int xffi_bytes_compare(xffi_byte_array a, xffi_byte_array b) {
  size_t common = a.size < b.size ? a.size : b.size;
  int c = common ? memcmp(a.data, b.data, common) : 0;
  if (c) return c;
  return a.size < b.size ? -1 : a.size > b.size;
}
