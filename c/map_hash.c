/* c/map_hash.c: the hash and equality of map keys, exactly tvm-ffi's AnyHash
 * and AnyEqual (docs/one-runtime/layouts.md 2.5): C++ code compiled against
 * tvm-ffi's headers computes home slots in maps xffi made, and the reverse,
 * so both runtimes must agree on every bit. Unkeyed by necessity: see the
 * flooding section of docs/map.md. */
#include <xffi/function.h>
#include <xffi/tvm_ffi.h>

#include "check.h"
#include "map_table.h"

#define HASH_MULTIPLIER UINT64_C(1099511628211)
#define HASH_MOD UINT64_C(2147483647)

static inline uint64_t hash_combine(uint64_t key, uint64_t value) {
  return key ^ (value + UINT64_C(0x9e3779b9) + (key << 6) + (key >> 2));
}

/* One little-endian word of up to 8 bytes, zero-extended (byte order fixed,
 * so the value is the same on every machine). */
static inline uint64_t le_word(const char *p, size_t n) {
  uint64_t w = 0;
  for (size_t i = 0; i < n; ++i) w |= (uint64_t)(unsigned char)p[i] << (8 * i);
  return w;
}

uint64_t xffi_map_stable_hash_bytes(const char *data, size_t size) {
  uint64_t r = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) r = (r * HASH_MULTIPLIER + le_word(data + i, 8)) % HASH_MOD;
  if (i < size) r = (r * HASH_MULTIPLIER + le_word(data + i, size - i)) % HASH_MOD;
  return r;
}

/* Text kinds: the stored four, and the borrowed forms a probe may be. */
static int is_text(int32_t t) {
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES || t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_SMALL_BYTES ||
         t == XFFI_TYPE_RAW_STR || t == XFFI_TYPE_BYTE_ARRAY_PTR;
}

static int is_str_kind(int32_t t) {
  return t == XFFI_TYPE_STRING || t == XFFI_TYPE_SMALL_STR || t == XFFI_TYPE_RAW_STR;
}

static xffi_byte_array text_of(const xffi_any *v);

/* The custom entry of type t in the column named name (borrowed), or NULL. */
static const xffi_any *custom_entry(const char *name, int32_t t) {
  xffi_byte_array attr = {name, strlen(name)};
  const xffi_type_attr_column *col = TVMFFIGetTypeAttrColumn(&attr);
  if (!col || !col->data) return NULL;
  int64_t offset = (int64_t)t - col->begin_index;
  if (offset < 0 || offset >= col->size) return NULL;
  const xffi_any *entry = &col->data[offset];
  return entry->type_index == XFFI_TYPE_NONE ? NULL : entry;
}

/* Calls a custom hash or equality entry with args; *out receives its result,
 * which must be of type want (Int or Bool). */
static int call_custom(const char *what, const xffi_any *entry, const xffi_any *args, int32_t nargs, int32_t want,
                       int64_t *out) {
  xffi_any result = xffi_any_none();
  if (entry->type_index == XFFI_TYPE_OPAQUE_PTR) {
    /* C++'s `TVMFFIAny (*)(const Any&[, const Any&]) noexcept`: an Any is
     * passed by address and the result returned as a TVMFFIAny. */
    if (!entry->v_ptr) return xffi_error_raise(XFFI_KIND_VALUE, "map key %s: the function pointer is NULL", what);
    /* ISO C has no cast between object and function pointers: copy the bits. */
    if (nargs == 1) {
      xffi_any (*f)(const xffi_any *);
      memcpy(&f, &entry->v_ptr, sizeof(f));
      result = f(&args[0]);
    } else {
      xffi_any (*f)(const xffi_any *, const xffi_any *);
      memcpy(&f, &entry->v_ptr, sizeof(f));
      result = f(&args[0], &args[1]);
    }
    if (result.type_index == XFFI_TYPE_ERROR) {
      xffi_error_set_raised(result.v_obj); /* steals the returned reference */
      return XFFI_FAIL;
    }
  } else if (entry->type_index == XFFI_TYPE_FUNCTION) {
    if (xffi_function_call(entry->v_obj, args, nargs, &result) != XFFI_OK) return XFFI_FAIL;
  } else {
    return xffi_error_raise(XFFI_KIND_TYPE, "map key %s: expected an opaque function pointer or ffi.Function, got %s",
                            what, xffi_any_kind_name(entry));
  }
  if (result.type_index != want) {
    int rc = xffi_error_raise(XFFI_KIND_TYPE, "map key %s: expected the function to return %s, got %s", what,
                              want == XFFI_TYPE_INT ? "int" : "bool", xffi_any_kind_name(&result));
    xffi_any_release(&result);
    return rc;
  }
  *out = result.v_int64;
  return XFFI_OK;
}

int xffi_map_any_hash(uint64_t *out, const xffi_any *key) {
  int32_t t = key->type_index;
  uint64_t word;
  memcpy(&word, &key->v_int64, sizeof(word));
  switch (t) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      /* The same value as the equal String/Bytes: one zero-padded word. */
      *out = hash_combine(t == XFFI_TYPE_SMALL_STR ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES,
                          le_word(key->v_small, sizeof(key->v_small)) % HASH_MOD);
      return XFFI_OK;
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES:
    case XFFI_TYPE_RAW_STR: /* a probe of more than 7 bytes: hashed as the String it stands for */
    case XFFI_TYPE_BYTE_ARRAY_PTR: {
      xffi_byte_array b = text_of(key);
      *out =
          hash_combine(is_str_kind(t) ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES, xffi_map_stable_hash_bytes(b.data, b.size));
      return XFFI_OK;
    }
    default: break;
  }
  if (t >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    const xffi_any *entry = custom_entry("__any_hash__", t);
    if (entry) {
      int64_t h;
      if (call_custom("hash (__any_hash__)", entry, key, 1, XFFI_TYPE_INT, &h) != XFFI_OK) return XFFI_FAIL;
      *out = hash_combine((uint64_t)t, (uint64_t)h);
      return XFFI_OK;
    }
  }
  *out = hash_combine((uint64_t)(uint32_t)t, word);
  return XFFI_OK;
}

/* The bytes of a text value (is_text). */
static xffi_byte_array text_of(const xffi_any *v) {
  xffi_byte_array b;
  switch (v->type_index) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      b.data = v->v_small;
      b.size = v->small_len;
      return b;
    case XFFI_TYPE_RAW_STR:
      b.data = v->v_c_str;
      b.size = strlen(v->v_c_str);
      return b;
    case XFFI_TYPE_BYTE_ARRAY_PTR: return *v->v_bytes_ptr;
    default: return xffi_string_cell_of_unchecked(v->v_obj);
  }
}

static int same_text(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array x = text_of(a), y = text_of(b);
  return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
}

int xffi_map_any_equal(int *out, const xffi_any *a, const xffi_any *b) {
  if (memcmp(a, b, sizeof(xffi_any)) == 0) {
    *out = 1;
    return XFFI_OK;
  }
  int32_t ta = a->type_index, tb = b->type_index;
  *out = 0;
  if (ta == tb) {
    if (ta == XFFI_TYPE_STRING || ta == XFFI_TYPE_BYTES) {
      *out = same_text(a, b);
    } else if (ta >= XFFI_TYPE_STATIC_OBJECT_BEGIN) {
      const xffi_any *entry = custom_entry("__any_equal__", ta);
      if (entry) {
        xffi_any args[2] = {*a, *b};
        int64_t eq;
        if (call_custom("equality (__any_equal__)", entry, args, 2, XFFI_TYPE_BOOL, &eq) != XFFI_OK) return XFFI_FAIL;
        *out = eq != 0;
      }
    }
    return XFFI_OK;
  }
  /* Different kinds: only a small and an object form of the same text kind. */
  if (is_text(ta) && is_text(tb) && is_str_kind(ta) == is_str_kind(tb)) *out = same_text(a, b);
  return XFFI_OK;
}

int xffi_map_key_normalize(const char *fn, xffi_any *out, const xffi_any *key) {
  *out = *key;
  switch (key->type_index) {
    case XFFI_TYPE_OBJECT_RVALUE:
      return xffi_error_raise(XFFI_KIND_TYPE,
                              "%s: key is an object rvalue reference (a move), which cannot be a map key", fn);
    case XFFI_TYPE_RAW_STR:
    case XFFI_TYPE_BYTE_ARRAY_PTR: {
      int is_str = key->type_index == XFFI_TYPE_RAW_STR;
      const char *data = is_str ? key->v_c_str : key->v_bytes_ptr->data;
      size_t size = is_str ? strlen(data) : key->v_bytes_ptr->size;
      if (size > XFFI_SMALL_STR_MAX) return XFFI_OK; /* stays borrowed: hashed and compared as text */
      *out = xffi_any_none();
      out->type_index = is_str ? XFFI_TYPE_SMALL_STR : XFFI_TYPE_SMALL_BYTES;
      out->small_len = (uint32_t)size;
      if (size) memcpy(out->v_small, data, size);
      return XFFI_OK;
    }
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      /* tvm-ffi compares small values by all 16 bytes: padding must be 0. */
      memset(out->v_small + out->small_len, 0, sizeof(out->v_small) - out->small_len);
      return XFFI_OK;
    case XFFI_TYPE_BOOL: out->v_int64 = key->v_int64 != 0; break;
    case XFFI_TYPE_DTYPE: {
      DLDataType dtype = key->v_dtype;
      out->v_int64 = 0;
      out->v_dtype = dtype;
      break;
    }
    default: break;
  }
  out->small_len = 0; /* tvm-ffi's zero_padding */
  return XFFI_OK;
}
