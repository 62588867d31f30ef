/* c/lib/walk/recursive_hash.c: xffi_recursive_hash (ffi.RecursiveHash), tvm-ffi's
 * RecursiveHash number for number, so a cache keyed by it can be shared
 * with tvm-ffi's runtime.
 *
 * The recipe (StableHashCombine = c(k, v) = k ^ (v + 0x9e3779b9 + (k << 6)
 * + (k >> 2))): None c(0, 0); a string c(65, StableHashBytes), bytes
 * c(66, ...); an int c(1, v), a bool c(2, 0/1), a float c(3, bits) with NaN
 * made the quiet NaN and -0.0 made 0.0, a data type c(c(c(5, code), bits),
 * lanes), a device c(c(6, type), id), other plain values c(index, payload);
 * a Shape c(c(type_key_hash, n), dims...); a BigInt its own hash; a
 * sequence c(type_key_hash, n) combined with c(h_i, i) per element; a map
 * c(type_key_hash, n) combined with the sorted c(h_key, h_value); an object
 * its type_key_hash combined with each field's hash. An object met again is
 * looked up (memo); one met while it is being hashed (a cycle) is its type
 * key's hash. */
#include <stdlib.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/recursive.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "lib/container/map_key.h"
#include "lib/walk/recursive_walk.h"

enum { HASH_ABSENT = 0, HASH_ON_STACK = 1, HASH_DONE = 2 };
#define HASH_SKIP (XFFI_FIELD_HASH_OFF | XFFI_FIELD_COMPARE_OFF)

typedef struct hasher {
  xffi_walk_table memo; /* object -> state, word: its hash when done */
  const xffi_type_attr_column *hash_column, *eq_column, *compare_column;
  xffi_object *fn_hash; /* owned: the callback handed to __ffi_hash__ hooks, made on first use */
  void **fn_hash_link;
} hasher;

typedef struct hash_frame {
  xffi_walk_frame walk;
  uint64_t hash;
  uint64_t key_hash;
  xffi_walk_vec entries; /* maps: c(h_key, h_value) per entry */
} hash_frame;

static inline uint64_t combine(uint64_t key, uint64_t value) { return map_hash_combine(key, value); }

static uint64_t hash_plain(const xffi_any *v) {
  int32_t t = v->type_index;
  switch (t) {
    case XFFI_TYPE_BOOL: return combine((uint64_t)t, v->v_int64 != 0);
    case XFFI_TYPE_INT: return combine((uint64_t)t, (uint64_t)v->v_int64);
    case XFFI_TYPE_FLOAT: {
      double d = v->v_float64;
      uint64_t bits;
      if (d != d) {
        bits = UINT64_C(0x7ff8000000000000); /* the quiet NaN */
      } else if (d == 0.0) {
        bits = 0; /* -0.0 too */
      } else {
        memcpy(&bits, &d, sizeof(bits));
      }
      return combine((uint64_t)t, bits);
    }
    case XFFI_TYPE_DTYPE: {
      uint64_t h = combine((uint64_t)t, v->v_dtype.code);
      h = combine(h, v->v_dtype.bits);
      return combine(h, v->v_dtype.lanes);
    }
    case XFFI_TYPE_DEVICE: {
      /* The type as the int32 it is in tvm-ffi, not widened as an unsigned enum. */
      uint64_t h = combine((uint64_t)t, (uint64_t)(int64_t)(int32_t)v->v_device.device_type);
      return combine(h, (uint64_t)(int64_t)v->v_device.device_id);
    }
    default: {
      uint64_t word;
      memcpy(&word, &v->v_int64, sizeof(word));
      return combine((uint64_t)t, word);
    }
  }
}

static uint64_t type_key_hash_of(const xffi_object *obj) { return xffi_object_type_info_unchecked(obj)->type_key_hash; }

static int hash_value(hasher *h, const xffi_any *value, uint64_t *out);

/* The callback of __ffi_hash__ hooks: (value) -> int, hashed with the same memo. */
static int fn_hash_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (num_args != 1) return xffi_error_raise(XFFI_KIND_TYPE, "fn_hash: expected 1 argument, got %d", (int)num_args);
  hasher *h = xffi_walk_callback_target(resource, "fn_hash");
  uint64_t out;
  if (!h || hash_value(h, &args[0], &out) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int((int64_t)out);
  return XFFI_OK;
}

static int call_hash_hook(hasher *h, const xffi_any *hook, const xffi_any *value, uint64_t *out) {
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "RecursiveHash: __ffi_hash__ of %s must be a Function, got %s",
                            xffi_type_key(value->type_index), xffi_any_kind_name(hook));
  if (!h->fn_hash && xffi_walk_callback_new(&h->fn_hash, &h->fn_hash_link, fn_hash_call, h) != XFFI_OK)
    return XFFI_FAIL;
  xffi_any args[2] = {*value, xffi_any_object(h->fn_hash)}, result = xffi_any_none();
  if (xffi_function_call(hook->v_obj, args, 2, &result) != XFFI_OK) return XFFI_FAIL;
  int64_t r;
  int status = xffi_any_to_int(&r, &result);
  xffi_any_release(&result);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = (uint64_t)r;
  return XFFI_OK;
}

static int set_state(hasher *h, const xffi_object *obj, int32_t state, uint64_t word) {
  xffi_walk_entry *e = xffi_walk_table_put(&h->memo, obj, NULL);
  if (!e) return XFFI_FAIL;
  e->state = state;
  e->word = word;
  return XFFI_OK;
}

/* 1 with *out set when value needs no frame, 0 when it does, -1 on error. */
static int hash_immediate(hasher *h, const xffi_any *v, uint64_t *out) {
  int32_t t = v->type_index;
  if (t == XFFI_TYPE_NONE) {
    *out = combine(0, 0);
    return 1;
  }
  if (xffi_walk_is_str(t) || xffi_walk_is_bytes(t)) {
    xffi_byte_array b = map_text_of(v);
    *out = combine(xffi_walk_is_str(t) ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES, map_stable_hash_bytes(b.data, b.size));
    return 1;
  }
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    *out = hash_plain(v);
    return 1;
  }
  const xffi_object *obj = v->v_obj;
  xffi_walk_entry *seen = xffi_walk_table_find(&h->memo, obj, NULL);
  if (seen && seen->state == HASH_DONE) {
    *out = seen->word;
    return 1;
  }
  if (seen && seen->state == HASH_ON_STACK) {
    *out = type_key_hash_of(obj);
    return 1;
  }
  if (t == XFFI_TYPE_SHAPE) {
    const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(obj);
    uint64_t s = combine(type_key_hash_of(obj), cell->size);
    for (size_t i = 0; i < cell->size; ++i) s = combine(s, (uint64_t)cell->data[i]);
    *out = s;
    return set_state(h, obj, HASH_DONE, s) == XFFI_OK ? 1 : -1;
  }
  if (t == XFFI_TYPE_BIGINT) {
    /* tvm-ffi's BigInt __ffi_hash__: BigInt::hash, bit-cast. */
    xffi_any r = xffi_bigint_any_hash(v);
    if (r.type_index != XFFI_TYPE_INT) {
      xffi_error_set_raised(r.v_obj);
      return -1;
    }
    *out = (uint64_t)r.v_int64;
    return 1;
  }
  const xffi_any *hook = xffi_walk_type_attr(h->hash_column, t);
  if (hook) {
    if (set_state(h, obj, HASH_ON_STACK, 0) != XFFI_OK) return -1;
    uint64_t r = 0;
    int status = call_hash_hook(h, hook, v, &r);
    if (set_state(h, obj, status == XFFI_OK ? HASH_DONE : HASH_ABSENT, r) != XFFI_OK || status != XFFI_OK) return -1;
    *out = r;
    return 1;
  }
  if (t >= XFFI_WALK_STATIC_OBJECT_END &&
      (xffi_walk_type_attr(h->eq_column, t) || xffi_walk_type_attr(h->compare_column, t))) {
    xffi_byte_array key = xffi_object_type_info_unchecked(obj)->type_key;
    xffi_error_raise(XFFI_KIND_VALUE,
                     "RecursiveHash: type '%.*s' defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__. "
                     "Add a __ffi_hash__ hook to maintain the invariant "
                     "RecursiveEq(a,b) => RecursiveHash(a)==RecursiveHash(b).",
                     (int)key.size, key.data);
    return -1;
  }
  return 0;
}

static int push_frame(hasher *h, xffi_walk_vec *stack, const xffi_any *value) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("RecursiveHash");
  hash_frame *f = xffi_walk_vec_push(stack);
  if (!f) return XFFI_FAIL;
  if (xffi_walk_begin(&f->walk, value, HASH_SKIP) != XFFI_OK) {
    --stack->count;
    return XFFI_FAIL;
  }
  f->entries.item_size = sizeof(uint64_t);
  uint64_t type_hash = type_key_hash_of(value->v_obj);
  f->hash = f->walk.kind == XFFI_WALK_OBJECT ? type_hash : combine(type_hash, (uint64_t)f->walk.size);
  if (set_state(h, value->v_obj, HASH_ON_STACK, 0) != XFFI_OK) {
    xffi_walk_end(&f->walk);
    --stack->count;
    return XFFI_FAIL;
  }
  return XFFI_OK;
}

static int feed(hash_frame *f, uint64_t child) {
  switch (f->walk.kind) {
    case XFFI_WALK_SEQ: f->hash = combine(f->hash, combine(child, (uint64_t)(f->walk.position - 1))); return XFFI_OK;
    case XFFI_WALK_MAP: {
      if (f->walk.position & 1) {
        f->key_hash = child;
        return XFFI_OK;
      }
      uint64_t *slot = xffi_walk_vec_push(&f->entries);
      if (!slot) return XFFI_FAIL;
      *slot = combine(f->key_hash, child);
      return XFFI_OK;
    }
    default: f->hash = combine(f->hash, child); return XFFI_OK;
  }
}

static int compare_words(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t finish(hash_frame *f) {
  if (f->walk.kind == XFFI_WALK_MAP && f->entries.count) {
    /* Order-free: the entry hashes in sorted order. */
    qsort(f->entries.data, f->entries.count, sizeof(uint64_t), compare_words);
    for (size_t i = 0; i < f->entries.count; ++i) f->hash = combine(f->hash, ((uint64_t *)f->entries.data)[i]);
  }
  return f->hash;
}

static void pop_frame(hasher *h, xffi_walk_vec *stack, int32_t state, uint64_t word) {
  hash_frame *f = xffi_walk_vec_top(stack);
  xffi_walk_entry *e = xffi_walk_table_find(&h->memo, f->walk.held.v_obj, NULL);
  if (e) {
    e->state = state;
    e->word = word;
  }
  xffi_walk_vec_free(&f->entries);
  xffi_walk_end(&f->walk);
  --stack->count;
}

static int hash_value(hasher *h, const xffi_any *value, uint64_t *out) {
  int r = hash_immediate(h, value, out);
  if (r) return r > 0 ? XFFI_OK : XFFI_FAIL;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(hash_frame)};
  if (push_frame(h, &stack, value) != XFFI_OK) goto fail;
  for (;;) {
    hash_frame *f = xffi_walk_vec_top(&stack);
    const xffi_any *child;
    int more = xffi_walk_next(&f->walk, &child, HASH_SKIP);
    if (more < 0) goto fail;
    if (more) {
      uint64_t ch;
      xffi_any view = *child; /* by value: pushing may move the frame that holds it */
      r = hash_immediate(h, &view, &ch);
      if (r < 0) goto fail;
      if (r == 0) {
        if (push_frame(h, &stack, &view) != XFFI_OK) goto fail;
        continue;
      }
      if (feed(f, ch) != XFFI_OK) goto fail;
      continue;
    }
    uint64_t done = finish(f);
    pop_frame(h, &stack, HASH_DONE, done);
    if (!stack.count) {
      *out = done;
      xffi_walk_vec_free(&stack);
      return XFFI_OK;
    }
    if (feed(xffi_walk_vec_top(&stack), done) != XFFI_OK) goto fail;
  }
fail:
  /* Objects left half-hashed are forgotten, so a later walk hashes them afresh. */
  while (stack.count) pop_frame(h, &stack, HASH_ABSENT, 0);
  xffi_walk_vec_free(&stack);
  return XFFI_FAIL;
}

int xffi_recursive_hash(int64_t *out, const xffi_any *value) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = 0;
  XFFI_CHECK_ARG_NOT_NULL(value);
  XFFI_CHECK_ARG_ANY(value);
  hasher h = {.hash_column = xffi_walk_column("__ffi_hash__"),
              .eq_column = xffi_walk_column("__ffi_eq__"),
              .compare_column = xffi_walk_column("__ffi_compare__")};
  uint64_t result = 0;
  int status = hash_value(&h, value, &result);
  xffi_walk_table_free(&h.memo);
  xffi_walk_callback_end(h.fn_hash, h.fn_hash_link);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = (int64_t)result;
  return XFFI_OK;
}
