/* c/lib/container/map_hash.c: the out-of-line parts of map key hashing and equality
 * (c/lib/container/map_key.h has the common kinds of tvm-ffi's AnyHash and AnyEqual
 * inline): AnyHash of every kind, AnyEqual of values of different kinds,
 * objects whose type registers `__any_hash__`/`__any_equal__` (type
 * attribute columns), and key normalization. C++ code compiled against tvm-ffi's headers computes home
 * slots in maps xffi made, and the reverse, so both runtimes must agree on
 * every bit. Unkeyed by necessity: see docs/map.md, "Hostile keys". */
#include <xffi/function.h>

#include "runtime/check.h"
#include "lib/container/map_table.h"
#include "runtime/type_internal.h"

/* The columns, once they exist: a column lives at a fixed address for the
 * rest of the process (xffi/reflection.h), so it is asked for by name only
 * until it is found. */
static const xffi_type_attr_column *hash_column, *equal_column;

/* The custom entry of type t in the column named name (borrowed), or NULL.
 * The column's size is read before its data: the registry publishes a grown
 * data array before the size that covers it. */
static const xffi_any *custom_entry(const char *name, const xffi_type_attr_column **cache, int32_t t) {
  const xffi_type_attr_column *col = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!col) {
    col = xffi_type_attr_column_find(name, strlen(name));
    if (!col) return NULL;
    __atomic_store_n(cache, col, __ATOMIC_RELEASE);
  }
  int32_t size = __atomic_load_n(&col->size, __ATOMIC_ACQUIRE);
  const xffi_any *data = __atomic_load_n(&col->data, __ATOMIC_ACQUIRE);
  int64_t offset = (int64_t)t - col->begin_index;
  /* None here: a type only the process's other runtime knows may have one there. */
  if (!data || offset < 0 || offset >= size) return xffi_type_attr_provided(col, t);
  const xffi_any *entry = &data[offset];
  /* The tag is published last (release in c/runtime/type_attr.c): acquire it before the payload. */
  return __atomic_load_n(&entry->type_index, __ATOMIC_ACQUIRE) == XFFI_TYPE_NONE ? xffi_type_attr_provided(col, t)
                                                                                 : entry;
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

int xffi_map_object_hash(uint64_t *out, const xffi_any *key) {
  int32_t t = key->type_index;
  if (map_may_be_custom(t)) {
    const xffi_any *entry = custom_entry("__any_hash__", &hash_column, t);
    if (entry) {
      int64_t h = 0;
      if (call_custom("hash (__any_hash__)", entry, key, 1, XFFI_TYPE_INT, &h) != XFFI_OK) return XFFI_FAIL;
      *out = map_hash_combine((uint64_t)t, (uint64_t)h);
      return XFFI_OK;
    }
  }
  uint64_t word; /* the 8 payload bytes, as tvm-ffi hashes any other value */
  memcpy(&word, &key->v_int64, sizeof(word));
  *out = map_hash_combine((uint64_t)(uint32_t)t, word);
  return XFFI_OK;
}

int xffi_map_object_equal(int *out, const xffi_any *a, const xffi_any *b) {
  *out = 0;
  const xffi_any *entry = custom_entry("__any_equal__", &equal_column, a->type_index);
  if (!entry) return XFFI_OK; /* identity: the 16 bytes differ */
  xffi_any args[2] = {*a, *b};
  int64_t eq = 0;
  if (call_custom("equality (__any_equal__)", entry, args, 2, XFFI_TYPE_BOOL, &eq) != XFFI_OK) return XFFI_FAIL;
  *out = eq != 0;
  return XFFI_OK;
}

int xffi_map_any_hash(uint64_t *out, const xffi_any *key) {
  int32_t t = key->type_index;
  switch (t) {
    case XFFI_TYPE_SMALL_STR:
    case XFFI_TYPE_SMALL_BYTES:
      /* The same value as the equal String/Bytes: one zero-padded word. */
      *out = map_hash_combine(t == XFFI_TYPE_SMALL_STR ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES,
                              map_le_word(key->v_small, sizeof(key->v_small)) % MAP_HASH_MOD);
      return XFFI_OK;
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES: /* the bytes' hash cached in the objects xffi made */
      *out = map_text_object_hash(t, key->v_obj);
      return XFFI_OK;
    case XFFI_TYPE_RAW_STR: /* a probe of more than 7 bytes: hashed as the String it stands for */
    case XFFI_TYPE_BYTE_ARRAY_PTR: {
      xffi_byte_array b = map_text_of(key);
      *out = map_hash_combine(map_is_str_kind(t) ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES,
                              map_stable_hash_bytes(b.data, b.size));
      return XFFI_OK;
    }
    default: break;
  }
  if (XFFI_UNLIKELY(t >= XFFI_TYPE_STATIC_OBJECT_BEGIN)) return xffi_map_object_hash(out, key);
  *out = map_plain_hash(key);
  return XFFI_OK;
}

int xffi_map_any_equal_slow(const xffi_any *a, const xffi_any *b) {
  int32_t ta = a->type_index, tb = b->type_index;
  if (ta == tb) {
    if (ta == XFFI_TYPE_STRING || ta == XFFI_TYPE_BYTES) return map_same_text(a, b);
    if (!map_may_be_custom(ta)) return MAP_KEY_OTHER;
    int eq = 0;
    return xffi_map_object_equal(&eq, a, b) == XFFI_OK ? eq : MAP_KEY_FAILED;
  }
  /* Different kinds: only a small and an object form of the same text kind. */
  return map_is_text(ta) && map_is_text(tb) && map_is_str_kind(ta) == map_is_str_kind(tb) && map_same_text(a, b);
}

int xffi_map_key_normalize_slow(const char *fn, xffi_any *out, const xffi_any *key) {
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
