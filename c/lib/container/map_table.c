/* c/lib/container/map_table.c: map objects (c/lib/container/map_table.h): allocation, release, copies,
 * lookups that dispatch on the layout, and the maps' argument checks and
 * messages. */
#include <stdio.h>
#include <string.h>

#include "runtime/check.h"
#include "lib/container/map_table.h"

void xffi_map_free_storage(void *data) { xffi_free(data); }

/* Releases what m owns (pairs or items) and its storage through its
 * data_deleter, whichever runtime supplied it: the storage may be blocks
 * C++ allocated, or another small map whose pairs a Dict took over. */
static void release_storage(map_object *m) {
  if (map_is_small(m))
    xffi_map_clear_pairs(m);
  else if (m->data)
    xffi_map_dense_release_items(m);
  if (m->data_deleter) m->data_deleter(m->data);
  m->data = NULL;
  m->data_deleter = NULL;
  m->size = 0;
}

static void map_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_CONTENTS) {
    /* Parked while another release runs: a deep nesting uses bounded stack. */
    if (xffi_release_begin(self, flags, map_deleter)) return;
    release_storage((map_object *)self);
    xffi_release_end();
  }
  if (flags & XFFI_DELETE_MEMORY) xffi_runtime_object_free(self);
}

xffi_object *xffi_map_alloc(int32_t type_index, uint64_t inline_pairs) {
  if (inline_pairs < MAP_SMALL_INIT) inline_pairs = MAP_SMALL_INIT;
  /* 56 bytes and the inline pairs: at least 120, so that the object can
   * hold the dense fields (80 bytes) when it grows in place. The object
   * allocator puts tvm-ffi's allocation header in front (c/runtime/internal.h). */
  map_object *m = xffi_runtime_object_alloc(MAP_SMALL_HEADER_BYTES + (size_t)inline_pairs * sizeof(map_pair),
                                            _Alignof(map_object), type_index);
  if (!m) return NULL; /* raised */
  xffi_object_init(&m->header, type_index, map_deleter);
  m->data = (char *)m + MAP_SMALL_HEADER_BYTES;
  m->size = 0;
  m->slots = inline_pairs | MAP_SMALL_TAG;
  m->data_deleter = NULL; /* inline */
  return &m->header;
}

void xffi_map_clear_pairs(map_object *m) {
  if (!map_is_small(m)) {
    if (m->data) xffi_map_dense_release_items(m);
    return;
  }
  /* Detached first, released after: a value's release may run arbitrary
   * code (deleters) that must not see half-released pairs. */
  map_pair *pairs = map_small_pairs(m);
  uint64_t n = m->size;
  m->size = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any_release(&pairs[i].key);
    xffi_any_release(&pairs[i].value);
  }
}

int xffi_map_find(map_place *out, const map_object *m, const xffi_any *key) {
  /* Every kind in one walk: a plain key is told apart by its bits first
   * (map_key_equal), String and Bytes objects are hashed and compared
   * inline (map_key_hash). */
  out->value = NULL;
  out->hashed = 0;
  uint64_t pos;
  if (map_is_small(m)) {
    pos = map_small_search(m, key, 0);
    if (pos < m->size) out->value = &map_small_pairs(m)[pos].value;
  } else {
    uint64_t hash = 0;
    if (map_key_hash(&hash, key) != XFFI_OK) return XFFI_FAIL;
    out->hash = hash;
    out->hashed = 1;
    pos = map_dense_search(m, key, hash, 0, &out->end);
    if (pos < m->slots) out->value = &map_item_at(m, pos)->value;
  }
  out->pos = pos;
  return pos == MAP_SEARCH_FAILED ? XFFI_FAIL : XFFI_OK;
}

/* Duplicates a stored Any (a new reference for an object). */
static xffi_any dup(const xffi_any *v) {
  if (xffi_any_is_object(v)) xffi_object_inc_ref_inline(v->v_obj);
  return *v;
}

xffi_object *xffi_map_clone(int32_t type_index, const map_object *src, uint64_t room) {
  if (map_is_small(src)) {
    xffi_object *obj = xffi_map_alloc(type_index, src->size > room ? src->size : room);
    if (!obj) return NULL;
    map_object *m = map_of(obj);
    const map_pair *from = map_small_pairs(src);
    map_pair *to = map_small_pairs(m);
    for (uint64_t i = 0; i < src->size; ++i) {
      to[i].key = dup(&from[i].key);
      to[i].value = dup(&from[i].value);
    }
    m->size = src->size;
    return obj;
  }
  /* Dense: the same slots, bytes and order (tvm-ffi's CopyFrom). */
  xffi_object *obj = xffi_map_alloc(type_index, MAP_SMALL_INIT);
  if (!obj) return NULL;
  map_object *m = map_of(obj);
  if (src->slots == 0) return obj; /* storage released by tvm-ffi: an empty map */
  map_object t;
  memset(&t, 0, sizeof(t));
  if (xffi_map_dense_alloc_blocks(&t, src->slots, src->fib_shift) != XFFI_OK) {
    xffi_object_dec_ref_inline(obj);
    return NULL;
  }
  for (uint64_t i = 0; i < src->slots; ++i) {
    unsigned char meta = *map_meta(src, i);
    if (meta == MAP_META_PROTECTED) meta = MAP_META_EMPTY; /* transient: never seen between calls */
    *map_meta(&t, i) = meta;
    if (meta == MAP_META_EMPTY) continue;
    const map_item *from = map_item_at(src, i);
    map_item *to = map_item_at(&t, i);
    to->key = dup(&from->key);
    to->value = dup(&from->value);
    to->prev = from->prev;
    to->next = from->next;
  }
  m->data = t.data;
  m->data_deleter = t.data_deleter;
  m->slots = src->slots;
  m->size = src->size;
  m->fib_shift = src->fib_shift;
  m->list_head = src->list_head;
  m->list_tail = src->list_tail;
  return obj;
}

/* ---- Argument checks and messages ---- */

int xffi_map_check_readable_slow(const char *fn, const xffi_object *map) {
  const char *arg = strncmp(fn, "xffi_dict", 9) == 0 ? "dict" : "map";
  if (!map) return xffi_raise_null_arg(fn, arg);
  xffi_any view = xffi_any_object((xffi_object *)map);
  return xffi_error_raise(XFFI_KIND_TYPE, "%s: %s expected ffi.Map or ffi.Dict, got %s", fn, arg,
                          xffi_any_kind_name(&view));
}

int xffi_map_check_ref_slow(const char *fn, xffi_object **map) {
  if (!map) return xffi_raise_null_arg(fn, "map");
  if (!*map) return xffi_raise_null_arg(fn, "*map");
  return xffi_check_object_arg(fn, "*map", *map, XFFI_TYPE_MAP);
}

/* A short printable form of a key for KeyError messages. */
static void describe_key(char *buf, size_t cap, const xffi_any *key) {
  const char *data = NULL;
  size_t size = 0;
  int is_bytes = 0;
  switch (key->type_index) {
    case XFFI_TYPE_INT: snprintf(buf, cap, "%lld", (long long)key->v_int64); return;
    case XFFI_TYPE_BOOL: snprintf(buf, cap, "%s", key->v_int64 ? "true" : "false"); return;
    case XFFI_TYPE_FLOAT: snprintf(buf, cap, "%g", key->v_float64); return;
    case XFFI_TYPE_NONE: snprintf(buf, cap, "None"); return;
    case XFFI_TYPE_SMALL_BYTES: is_bytes = 1; /* fall through */
    case XFFI_TYPE_SMALL_STR:
      data = key->v_small;
      size = key->small_len;
      break;
    case XFFI_TYPE_BYTES: is_bytes = 1; /* fall through */
    case XFFI_TYPE_STRING: {
      xffi_byte_array b = xffi_string_cell_of_unchecked(key->v_obj);
      data = b.data;
      size = b.size;
      break;
    }
    case XFFI_TYPE_RAW_STR:
      data = key->v_c_str;
      size = strlen(data);
      break;
    case XFFI_TYPE_BYTE_ARRAY_PTR:
      is_bytes = 1;
      data = key->v_bytes_ptr->data;
      size = key->v_bytes_ptr->size;
      break;
    default: snprintf(buf, cap, "(a %s)", xffi_any_kind_name(key)); return;
  }
  int shown = size > 40 ? 40 : (int)size;
  snprintf(buf, cap, "%s\"%.*s\"%s", is_bytes ? "b" : "", shown, data ? data : "", size > 40 ? "..." : "");
}

/* Out of line and cold: its 96-byte buffer would otherwise give every caller
 * a stack frame. */
__attribute__((noinline, cold)) int xffi_map_raise_key_error(const char *fn, const xffi_any *key) {
  char text[96];
  describe_key(text, sizeof(text), key);
  return xffi_error_raise(XFFI_KIND_KEY, "%s: key %s is not in the map", fn, text);
}

/* ---- Shared bodies ---- */

int xffi_map_do_length(const char *fn, int64_t *out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = (int64_t)map_of(map)->size;
  return XFFI_OK;
}

int xffi_map_do_copy(const char *fn, int32_t type_index, xffi_object **out, const xffi_object *map) {
  if (!out) return xffi_raise_null_arg(fn, "out");
  *out = NULL;
  if (xffi_map_check_readable(fn, map) != XFFI_OK) return XFFI_FAIL;
  *out = xffi_map_clone(type_index, map_of(map), 0);
  return *out ? XFFI_OK : XFFI_FAIL;
}
