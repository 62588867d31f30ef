/* tests/fuzz/fuzz_common.h: what every libFuzzer target of xffi shares.
 *
 * - fuzz_input: reads typed values from the fuzzer's bytes; past the end it
 *   yields zeros, so every input, however short, is a complete test case.
 * - FUZZ_CHECK: a failed expectation aborts, which libFuzzer reports as a
 *   crash with the input that caused it (the library itself never aborts).
 * - fuzz_expect_raised: the raised error has the expected kind and a
 *   "<function>: ..." message, and the slot is cleared.
 * - fuzz_value_pool / fuzz_make_value: one Any of every kind a caller can
 *   hand to xffi (plain values, borrowed strings and byte arrays, inline
 *   small strings, String/Bytes/Array/Map/Function/Shape/Error objects, user
 *   objects, a foreign object of an unregistered type, an object rvalue,
 *   malformed values that no constructor makes), with the facts a reference
 *   model needs to predict each conversion. */
#ifndef XFFI_FUZZ_COMMON_H
#define XFFI_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/error.h>
#include <xffi/sys/object.h>
#include <xffi/sys/shape.h>
#include <xffi/sys/string.h>
#include <xffi/sys/tensor.h>
#include <xffi/sys/type.h>

#define FUZZ_CHECK(cond)                                                             \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                       \
    }                                                                                \
  } while (0)

typedef struct fuzz_input {
  const uint8_t *p;
  size_t n;
} fuzz_input;

static inline uint8_t fuzz_u8(fuzz_input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static inline uint16_t fuzz_u16(fuzz_input *in) {
  uint16_t lo = fuzz_u8(in);
  return (uint16_t)(lo | (uint16_t)(fuzz_u8(in) << 8));
}

static inline uint64_t fuzz_u64(fuzz_input *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)fuzz_u8(in) << (8 * i);
  return v;
}

/* An int64 that is often an edge value (0, +-1, small, around 2^31, 2^32,
 * 2^62, the extremes) and otherwise arbitrary. */
static inline int64_t fuzz_i64(fuzz_input *in) {
  static const int64_t edges[] = {0,
                                  1,
                                  -1,
                                  2,
                                  3,
                                  7,
                                  8,
                                  16,
                                  255,
                                  -2,
                                  INT32_MAX,
                                  INT32_MIN,
                                  UINT32_MAX,
                                  INT64_MAX,
                                  INT64_MIN,
                                  INT64_MAX / 2,
                                  (int64_t)1 << 31,
                                  (int64_t)1 << 32,
                                  (int64_t)1 << 62,
                                  INT64_MIN + 1};
  uint8_t pick = fuzz_u8(in);
  if (pick < 96) return (int64_t)(pick % 12);
  if (pick < 224) return edges[pick % (sizeof(edges) / sizeof(edges[0]))];
  return (int64_t)fuzz_u64(in);
}

/* Up to max bytes from the input into buf, NUL-terminated; returns the length. */
static inline size_t fuzz_bytes(fuzz_input *in, char *buf, size_t max) {
  size_t len = fuzz_u8(in) % (max + 1);
  if (len > in->n) len = in->n;
  memcpy(buf, in->p, len);
  in->p += len;
  in->n -= len;
  buf[len] = '\0';
  return len;
}

/* The raised error is of kind, its message starts with prefix (a function
 * name) followed by ": ", and the slot is then cleared. */
static inline void fuzz_expect_raised(const char *kind, const char *prefix) {
  xffi_object *err = xffi_error_move_raised();
  if (!err) {
    fprintf(stderr, "expected a raised %s from %s, nothing was raised\n", kind, prefix);
    abort();
  }
  FUZZ_CHECK(err->type_index == XFFI_TYPE_ERROR);
  const xffi_error_cell *cell = xffi_error_cell_of_unchecked(err);
  size_t plen = strlen(prefix);
  int ok = strcmp(cell->kind.data, kind) == 0 && strncmp(cell->message.data, prefix, plen) == 0 &&
           cell->message.data[plen] == ':' && strlen(cell->message.data) == cell->message.size;
  if (!ok) {
    fprintf(stderr, "expected %s \"%s: ...\", got %s \"%s\"\n", kind, prefix, cell->kind.data, cell->message.data);
    abort();
  }
  xffi_object_dec_ref(err);
}

#define FUZZ_NOTHING_RAISED() FUZZ_CHECK(xffi_error_peek_raised() == NULL)

/* ---- Values of every kind ---- */

typedef struct fuzz_user_object {
  xffi_object header;
  int64_t payload;
} fuzz_user_object;

static inline void fuzz_user_deleter(void *self, int flags) {
  if (flags & XFFI_DELETE_MEMORY) free(self);
}

static inline int fuzz_noop_callback(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  (void)resource, (void)args, (void)num_args, (void)result;
  return XFFI_OK;
}

/* Objects made once per input and released at its end. */
typedef struct fuzz_value_pool {
  int32_t base_type, derived_type; /* user types fuzz.Base and fuzz.Derived(Base) */
  xffi_object *string, *bytes, *array, *map, *function, *shape, *error, *base, *derived;
  xffi_object foreign; /* a header whose type index no type has: not refcounted, never released */
  DLTensor dltensor;
  xffi_byte_array byte_array;
  xffi_byte_array null_data; /* NULL data, non-zero size: malformed */
  char text[64];             /* borrowed C string and byte array contents */
} fuzz_value_pool;

static inline xffi_object *fuzz_new_user(int32_t type_index) {
  fuzz_user_object *o = malloc(sizeof(*o));
  FUZZ_CHECK(o != NULL);
  xffi_object_init(&o->header, type_index, fuzz_user_deleter);
  o->payload = 0;
  return &o->header;
}

static inline void fuzz_pool_init(fuzz_value_pool *pool) {
  memset(pool, 0, sizeof(*pool));
  FUZZ_CHECK(xffi_type_register(&pool->base_type, "fuzz.Base", XFFI_TYPE_OBJECT) == XFFI_OK);
  FUZZ_CHECK(xffi_type_register(&pool->derived_type, "fuzz.Derived", pool->base_type) == XFFI_OK);
  FUZZ_CHECK(xffi_string_from_c_str(&pool->string, "a String object, longer than seven bytes") == XFFI_OK);
  FUZZ_CHECK(xffi_bytes_new(&pool->bytes, "a Bytes\0object", 14) == XFFI_OK);
  FUZZ_CHECK(xffi_array_new(&pool->array, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_map_new(&pool->map, NULL, NULL, 0) == XFFI_OK);
  FUZZ_CHECK(xffi_function_new(&pool->function, fuzz_noop_callback, NULL, NULL) == XFFI_OK);
  int64_t dims[2] = {2, 3};
  FUZZ_CHECK(xffi_shape_new(&pool->shape, dims, 2) == XFFI_OK);
  FUZZ_CHECK(xffi_error_new(&pool->error, "ValueError", "a pooled error") == XFFI_OK);
  pool->base = fuzz_new_user(pool->base_type);
  pool->derived = fuzz_new_user(pool->derived_type);
  pool->foreign.type_index = 100; /* between the built-ins and the dynamic types: no type has it */
  pool->foreign.ref_counts = XFFI_REF_INITIAL;
  pool->foreign.deleter = fuzz_user_deleter;
}

static inline void fuzz_pool_release(fuzz_value_pool *pool) {
  xffi_object *all[] = {pool->string, pool->bytes, pool->array, pool->map,    pool->function,
                        pool->shape,  pool->error, pool->base,  pool->derived};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    FUZZ_CHECK(xffi_object_strong_count(all[i]) == 1); /* nothing kept a reference */
    xffi_object_dec_ref(all[i]);
  }
}

/* The kinds fuzz_make_value makes. */
enum fuzz_kind {
  FK_NONE,
  FK_INT,
  FK_BOOL,
  FK_FLOAT,
  FK_PTR,
  FK_DTYPE,
  FK_DEVICE,
  FK_DLTENSOR,
  FK_RAW_STR,
  FK_BYTE_ARRAY,
  FK_SMALL_STR,
  FK_SMALL_BYTES,
  FK_STRING,
  FK_BYTES,
  FK_ARRAY,
  FK_MAP,
  FK_FUNCTION,
  FK_SHAPE,
  FK_ERROR,
  FK_BASE,
  FK_DERIVED,
  FK_FOREIGN,
  FK_RVALUE,
  FK_UNKNOWN_PLAIN,
  FK_MALFORMED,
  FK_COUNT
};

/* A malformed value, as only a foreign caller could make it (shapes as in
 * xffi_any_is_well_formed, c/internal.h): every entry point must refuse it
 * with ValueError "<function>: <argument> is malformed: ...". null_data is
 * the caller's storage for the byte array of one shape (borrowed by v). */
static inline xffi_any fuzz_malformed_value(fuzz_input *in, xffi_byte_array *null_data) {
  xffi_any v = xffi_any_none();
  uint8_t shape = fuzz_u8(in);
  switch (shape % 7) {
    case 0: v.type_index = XFFI_TYPE_RAW_STR; break;
    case 1: v.type_index = XFFI_TYPE_BYTE_ARRAY_PTR; break;
    case 2:
      null_data->data = NULL;
      null_data->size = 1 + (size_t)(fuzz_u64(in) % 1000000);
      v.type_index = XFFI_TYPE_BYTE_ARRAY_PTR;
      v.v_bytes_ptr = null_data;
      break;
    case 3: v.type_index = XFFI_TYPE_DLTENSOR_PTR; break;
    case 4: /* an object kind with no object: built-in, user or unknown index */
      v.type_index = XFFI_TYPE_STATIC_OBJECT_BEGIN + (int32_t)(fuzz_u16(in) % 200);
      break;
    case 5: { /* a small string or bytes value longer than fits */
      uint64_t w = fuzz_u64(in);
      v.type_index = (shape & 8) ? XFFI_TYPE_SMALL_BYTES : XFFI_TYPE_SMALL_STR;
      v.small_len = XFFI_SMALL_STR_MAX + 1 + (uint32_t)(fuzz_u64(in) % (UINT32_MAX - XFFI_SMALL_STR_MAX));
      memcpy(v.v_small, &w, sizeof(w));
      break;
    }
    default: /* no kind has a negative index */
      v.type_index = -1 - (int32_t)(fuzz_u64(in) % INT32_MAX);
      v.v_int64 = fuzz_i64(in);
      break;
  }
  return v;
}

/* Makes a borrowed view of one kind (chosen by the input) whose objects live
 * in pool. *kind receives the kind. The text of string-like kinds is read
 * from the input. */
static inline xffi_any fuzz_make_value(fuzz_input *in, fuzz_value_pool *pool, int *kind) {
  xffi_any v = xffi_any_none();
  *kind = fuzz_u8(in) % FK_COUNT;
  switch (*kind) {
    case FK_NONE: break;
    case FK_INT: v = xffi_any_int(fuzz_i64(in)); break;
    case FK_BOOL: /* a foreign producer may store any non-zero word for true */
      v.type_index = XFFI_TYPE_BOOL;
      v.v_int64 = fuzz_i64(in);
      break;
    case FK_FLOAT: {
      uint64_t bits = fuzz_u64(in);
      v.type_index = XFFI_TYPE_FLOAT;
      memcpy(&v.v_float64, &bits, sizeof(bits));
      break;
    }
    case FK_PTR: v = xffi_any_ptr((void *)(uintptr_t)(fuzz_u64(in) | 1)); break;
    case FK_DTYPE: v = xffi_any_dtype(xffi_dtype_make(fuzz_u8(in), fuzz_u8(in), fuzz_u16(in))); break;
    case FK_DEVICE: v = xffi_any_device(xffi_device_make((int32_t)fuzz_i64(in), (int32_t)fuzz_i64(in))); break;
    case FK_DLTENSOR: v = xffi_any_dltensor(&pool->dltensor); break;
    case FK_RAW_STR:
      fuzz_bytes(in, pool->text, sizeof(pool->text) - 1);
      v = xffi_any_c_str(pool->text);
      break;
    case FK_BYTE_ARRAY:
      pool->byte_array.size = fuzz_bytes(in, pool->text, sizeof(pool->text) - 1);
      pool->byte_array.data = pool->text;
      v = xffi_any_byte_array(&pool->byte_array);
      break;
    case FK_SMALL_STR:
    case FK_SMALL_BYTES: {
      char buf[8];
      size_t len = fuzz_bytes(in, buf, XFFI_SMALL_STR_MAX);
      FUZZ_CHECK((*kind == FK_SMALL_STR ? xffi_any_from_str(&v, buf, len) : xffi_any_from_bytes(&v, buf, len)) ==
                 XFFI_OK);
      FUZZ_CHECK(!xffi_any_is_object(&v));
      break;
    }
    case FK_STRING: v = xffi_any_object(pool->string); break;
    case FK_BYTES: v = xffi_any_object(pool->bytes); break;
    case FK_ARRAY: v = xffi_any_object(pool->array); break;
    case FK_MAP: v = xffi_any_object(pool->map); break;
    case FK_FUNCTION: v = xffi_any_object(pool->function); break;
    case FK_SHAPE: v = xffi_any_object(pool->shape); break;
    case FK_ERROR: v = xffi_any_object(pool->error); break;
    case FK_BASE: v = xffi_any_object(pool->base); break;
    case FK_DERIVED: v = xffi_any_object(pool->derived); break;
    case FK_FOREIGN: v = xffi_any_object(&pool->foreign); break;
    case FK_RVALUE:
      v.type_index = XFFI_TYPE_OBJECT_RVALUE;
      v.v_obj = pool->string;
      break;
    case FK_MALFORMED: v = fuzz_malformed_value(in, &pool->null_data); break;
    default: /* FK_UNKNOWN_PLAIN: a plain-value index no kind uses, arbitrary payload */
      v.type_index = 13 + fuzz_u8(in) % (XFFI_TYPE_STATIC_OBJECT_BEGIN - 13);
      v.v_int64 = fuzz_i64(in);
      break;
  }
  return v;
}

/* What the checked conversions of xffi/any.h accept, per kind. */
static inline int fuzz_kind_is_intlike(int k) { return k == FK_INT || k == FK_BOOL; }
static inline int fuzz_kind_is_str(int k) { return k == FK_RAW_STR || k == FK_SMALL_STR || k == FK_STRING; }
static inline int fuzz_kind_is_bytes(int k) {
  return fuzz_kind_is_str(k) || k == FK_BYTE_ARRAY || k == FK_SMALL_BYTES || k == FK_BYTES;
}
/* Whether the kind holds a live, registered object. */
static inline int fuzz_kind_is_object(int k) { return k >= FK_STRING && k <= FK_DERIVED; }

#endif /* XFFI_FUZZ_COMMON_H */
