/* c/lib/walk/recursive_compare.c: xffi_recursive_equal and xffi_recursive_compare
 * (ffi.RecursiveEq/Lt/Le/Gt/Ge), tvm-ffi's three-way RecursiveCompare.
 *
 * Pairs (lhs, rhs) are walked depth first with a heap stack; the first
 * pair found unequal decides the whole comparison. A pair of objects met
 * while it is being compared is a cycle (equal for ==, a ValueError for an
 * ordering). An ordering that finds a difference below a Map or Dict raises
 * tvm-ffi's TypeError "Cannot order Map/Dict values".
 *
 * A pair of shared values (both strong counts above 1) whose walk found
 * them equal is remembered and equal at once when met again, so a DAG
 * costs its distinct pairs, not its paths; a difference ends the walk, so
 * only equal pairs are ever met again. */
#include <string.h>

#include <xffi/function.h>
#include <xffi/recursive.h>
#include <xffi/tvm_ffi.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "lib/container/map_key.h" /* map_text_of */
#include "lib/walk/recursive_walk.h"

typedef struct comparer {
  int eq_only;
  xffi_walk_table on_stack;    /* the (lhs, rhs) pairs of objects being compared: a short set, hot in cache */
  xffi_walk_table equal_pairs; /* shared (lhs, rhs) pairs found equal */
  const xffi_type_attr_column *eq_column, *compare_column;
  xffi_object *fn_eq, *fn_compare; /* owned: callbacks handed to hooks, made on first use */
  void **fn_eq_link, **fn_compare_link;
} comparer;

typedef struct compare_frame {
  xffi_walk_frame lhs, rhs;
  int64_t lhs_size, rhs_size;
} compare_frame;

static int sign(int64_t v) { return (v > 0) - (v < 0); }
static int three_way(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int compare_bytes(xffi_byte_array a, xffi_byte_array b) {
  size_t n = a.size < b.size ? a.size : b.size;
  int c = n ? memcmp(a.data, b.data, n) : 0;
  if (c) return sign(c);
  return a.size < b.size ? -1 : a.size > b.size;
}

/* Word i of an int's or BigInt's two's complement words (least
 * significant first), sign-extended past the last. */
static uint64_t int_word(xffi_byte_array x, size_t i) {
  size_t n = x.size / 8;
  int64_t w;
  memcpy(&w, x.data + (i < n ? i : n - 1) * 8, 8);
  if (i >= n) w = w < 0 ? -1 : 0;
  return (uint64_t)w;
}

/* The order of two integers, each an int or a BigInt: the top (sign) words
 * compare signed, the ones below unsigned. */
static int compare_int_words(const xffi_any *a, const xffi_any *b) {
  xffi_byte_array x = xffi_bigint_content("ffi.RecursiveCompare", a),
                  y = xffi_bigint_content("ffi.RecursiveCompare", b);
  size_t n = x.size > y.size ? x.size / 8 : y.size / 8;
  for (size_t i = n; i-- > 0;) {
    uint64_t wx = int_word(x, i), wy = int_word(y, i);
    if (wx == wy) continue;
    if (i == n - 1) return (int64_t)wx < (int64_t)wy ? -1 : 1;
    return wx < wy ? -1 : 1;
  }
  return 0;
}

static int raise_unorderable_map(void) { return xffi_error_raise(XFFI_KIND_TYPE, "Cannot order Map/Dict values"); }

/* Plain values of one kind t. 1 with *out, or -1 raised. */
static int compare_plain(comparer *c, const xffi_any *l, const xffi_any *r, int *out) {
  switch (l->type_index) {
    case XFFI_TYPE_BOOL: *out = (l->v_int64 != 0) - (r->v_int64 != 0); return 1;
    case XFFI_TYPE_INT: *out = three_way(l->v_int64, r->v_int64); return 1;
    case XFFI_TYPE_FLOAT: {
      double a = l->v_float64, b = r->v_float64;
      int nan_a = a != a, nan_b = b != b;
      if (nan_a || nan_b) {
        if (!c->eq_only) return xffi_error_raise(XFFI_KIND_TYPE, "Cannot order NaN values"), -1;
        *out = nan_a && nan_b ? 0 : 1;
        return 1;
      }
      *out = a < b ? -1 : a > b;
      return 1;
    }
    case XFFI_TYPE_DTYPE: {
      DLDataType a = l->v_dtype, b = r->v_dtype;
      *out = a.code != b.code   ? three_way(a.code, b.code)
             : a.bits != b.bits ? three_way(a.bits, b.bits)
                                : three_way(a.lanes, b.lanes);
      return 1;
    }
    case XFFI_TYPE_DEVICE: {
      /* Types compare as the int32s they are in tvm-ffi (a C enum may be unsigned). */
      int32_t a_type = (int32_t)l->v_device.device_type, b_type = (int32_t)r->v_device.device_type;
      *out = a_type != b_type ? three_way(a_type, b_type) : three_way(l->v_device.device_id, r->v_device.device_id);
      return 1;
    }
    default:
      if (l->small_len == r->small_len && l->v_int64 == r->v_int64) {
        *out = 0;
        return 1;
      }
      if (c->eq_only) {
        *out = 1;
        return 1;
      }
      return xffi_error_raise(XFFI_KIND_TYPE, "Cannot order values of type %s", xffi_type_key(l->type_index)), -1;
  }
}

static int compare_values(comparer *c, const xffi_any *l, const xffi_any *r, int *out);

static inline int is_shared_pair(const xffi_object *l, const xffi_object *r) {
  return xffi_object_strong_count(l) > 1 && xffi_object_strong_count(r) > 1;
}

/* The callbacks of the hooks: (lhs, rhs) -> bool (fn_eq) or int (fn_cmp). */
static int fn_eq_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (num_args != 2) return xffi_error_raise(XFFI_KIND_TYPE, "fn_eq: expected 2 arguments, got %d", (int)num_args);
  comparer *c = xffi_walk_callback_target(resource, "fn_eq");
  int r;
  if (!c || compare_values(c, &args[0], &args[1], &r) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_bool(r == 0);
  return XFFI_OK;
}
static int fn_compare_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (num_args != 2) return xffi_error_raise(XFFI_KIND_TYPE, "fn_cmp: expected 2 arguments, got %d", (int)num_args);
  comparer *c = xffi_walk_callback_target(resource, "fn_cmp");
  int r;
  if (!c || compare_values(c, &args[0], &args[1], &r) != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int(r);
  return XFFI_OK;
}

static int enter_pair(comparer *c, const void *a, const void *b) {
  return xffi_walk_table_put(&c->on_stack, a, b) ? XFFI_OK : XFFI_FAIL;
}

/* Calls hook (an __ffi_eq__ or __ffi_compare__ attribute) on the pair, the
 * pair marked as being compared meanwhile. 1 with *out, or -1 raised. */
static int call_hook(comparer *c, const xffi_any *hook, int is_eq, const xffi_any *l, const xffi_any *r, int *out) {
  const char *name = is_eq ? "__ffi_eq__" : "__ffi_compare__";
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "RecursiveCompare: %s of %s must be a Function, got %s", name,
                            xffi_type_key(l->type_index), xffi_any_kind_name(hook)),
           -1;
  xffi_object **fn = is_eq ? &c->fn_eq : &c->fn_compare;
  void ***link = is_eq ? &c->fn_eq_link : &c->fn_compare_link;
  if (!*fn && xffi_walk_callback_new(fn, link, is_eq ? fn_eq_call : fn_compare_call, c) != XFFI_OK) return -1;
  if (enter_pair(c, l->v_obj, r->v_obj) != XFFI_OK) return -1;
  xffi_any args[3] = {*l, *r, xffi_any_object(*fn)}, result = xffi_any_none();
  int status = xffi_function_call(hook->v_obj, args, 3, &result);
  int64_t value = 0;
  int truth = 0;
  if (status == XFFI_OK) status = is_eq ? xffi_any_to_bool(&truth, &result) : xffi_any_to_int(&value, &result);
  xffi_any_release(&result);
  xffi_walk_table_remove(&c->on_stack, l->v_obj, r->v_obj);
  if (status != XFFI_OK) return -1;
  *out = is_eq ? !truth : sign(value);
  return 1;
}

/* 1 with *out when the pair needs no frame, 0 when it does, -1 raised. */
static int compare_immediate(comparer *c, const xffi_any *l, const xffi_any *r, int *out) {
  int32_t lt = l->type_index, rt = r->type_index;
  if (lt == XFFI_TYPE_NONE || rt == XFFI_TYPE_NONE) {
    *out = (rt == XFFI_TYPE_NONE) - (lt == XFFI_TYPE_NONE);
    return 1;
  }
  if ((xffi_walk_is_str(lt) && xffi_walk_is_str(rt)) || (xffi_walk_is_bytes(lt) && xffi_walk_is_bytes(rt))) {
    *out = compare_bytes(map_text_of(l), map_text_of(r));
    return 1;
  }
  if (lt != rt) {
    if (c->eq_only) {
      *out = 1;
      return 1;
    }
    if ((lt == XFFI_TYPE_INT || lt == XFFI_TYPE_BIGINT) && (rt == XFFI_TYPE_INT || rt == XFFI_TYPE_BIGINT)) {
      *out = compare_int_words(l, r);
      return 1;
    }
    return xffi_error_raise(XFFI_KIND_TYPE, "Cannot compare values of different types: %s vs %s", xffi_type_key(lt),
                            xffi_type_key(rt)),
           -1;
  }
  if (lt < XFFI_TYPE_STATIC_OBJECT_BEGIN) return compare_plain(c, l, r, out);
  if (lt == XFFI_TYPE_BIGINT) {
    int s = compare_int_words(l, r);
    *out = c->eq_only ? s != 0 : s;
    return 1;
  }
  if (l->v_obj == r->v_obj) {
    *out = 0;
    return 1;
  }
  if (lt == XFFI_TYPE_SHAPE) {
    const xffi_shape_cell *a = xffi_shape_cell_of_unchecked(l->v_obj), *b = xffi_shape_cell_of_unchecked(r->v_obj);
    size_t n = a->size < b->size ? a->size : b->size;
    *out = a->size < b->size ? -1 : a->size > b->size;
    for (size_t i = 0; i < n; ++i)
      if (a->data[i] != b->data[i]) {
        *out = a->data[i] < b->data[i] ? -1 : 1;
        break;
      }
    return 1;
  }
  if (c->equal_pairs.used && is_shared_pair(l->v_obj, r->v_obj) &&
      xffi_walk_table_find(&c->equal_pairs, l->v_obj, r->v_obj)) {
    *out = 0;
    return 1;
  }
  if (xffi_walk_table_find(&c->on_stack, l->v_obj, r->v_obj)) {
    if (!c->eq_only)
      return xffi_error_raise(XFFI_KIND_VALUE, "RecursiveCompare: cyclic reference detected in ordering"), -1;
    *out = 0;
    return 1;
  }
  if (lt >= XFFI_WALK_STATIC_OBJECT_END) {
    const xffi_any *eq = c->eq_only ? xffi_walk_type_attr(c->eq_column, lt) : NULL;
    if (eq) return call_hook(c, eq, 1, l, r, out);
    const xffi_any *cmp = xffi_walk_type_attr(c->compare_column, lt);
    if (cmp) return call_hook(c, cmp, 0, l, r, out);
  }
  return 0;
}

/* Pushes a frame for the pair (same kind, objects): 0 when pushed, 1 with
 * *out when the answer is known at once (maps of other keys), -1 raised. */
static int push_pair(comparer *c, xffi_walk_vec *stack, const xffi_any *l, const xffi_any *r, int *out) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("RecursiveCompare"), -1;
  int32_t t = l->type_index;
  if ((t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT) && !c->eq_only) {
    /* An ordering checks every key first (tvm-ffi's order of errors); == finds a missing key as it goes. */
    int64_t nl = 0, nr = 0;
    (void)xffi_map_length(&nl, l->v_obj);
    (void)xffi_map_length(&nr, r->v_obj);
    int same_keys = nl == nr;
    int64_t cursor = 0;
    xffi_map_item item;
    while (same_keys && xffi_map_next(&item, l->v_obj, &cursor) == XFFI_OK && item.key) {
      const xffi_any *found;
      if (xffi_map_lookup(&found, r->v_obj, item.key) != XFFI_OK) return -1;
      same_keys = found != NULL;
    }
    if (!same_keys) return raise_unorderable_map(), -1;
  }
  if ((t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT) && c->eq_only) {
    int64_t nl = 0, nr = 0;
    (void)xffi_map_length(&nl, l->v_obj);
    (void)xffi_map_length(&nr, r->v_obj);
    if (nl != nr) {
      *out = 1;
      return 1;
    }
  }
  compare_frame *f = xffi_walk_vec_push(stack);
  if (!f) return -1;
  if (xffi_walk_begin(&f->lhs, l, XFFI_FIELD_COMPARE_OFF) != XFFI_OK) {
    --stack->count;
    return -1;
  }
  if (xffi_walk_begin(&f->rhs, r, XFFI_FIELD_COMPARE_OFF) != XFFI_OK) {
    xffi_walk_end(&f->lhs);
    --stack->count;
    return -1;
  }
  f->lhs_size = f->lhs.size;
  f->rhs_size = f->rhs.size;
  if (enter_pair(c, l->v_obj, r->v_obj) != XFFI_OK) return -1; /* the frame is popped by the caller */
  return 0;
}

/* The frame's next pair: 1 with *l and *r (views valid until the next
 * call), 0 at the end, -1 raised. */
static int next_pair(comparer *c, compare_frame *f, xffi_any *l, xffi_any *r) {
  const xffi_any *a, *b;
  if (f->lhs.kind == XFFI_WALK_MAP) {
    int more = xffi_walk_next(&f->lhs, &a, 0);
    if (more <= 0) return more;
    if (xffi_walk_next(&f->lhs, &b, 0) <= 0) return -1;
    const xffi_any *found;
    if (xffi_map_lookup(&found, f->rhs.held.v_obj, a) != XFFI_OK) return -1;
    if (!found) { /* a key rhs lacks (or a hook removed meanwhile): unequal */
      if (!c->eq_only) return raise_unorderable_map(), -1;
      *l = xffi_any_int(1);
      *r = xffi_any_int(0);
      return 1;
    }
    *l = *b;
    *r = *found;
    return 1;
  }
  int more = xffi_walk_next(&f->lhs, &a, XFFI_FIELD_COMPARE_OFF);
  if (more <= 0) return more;
  more = xffi_walk_next(&f->rhs, &b, XFFI_FIELD_COMPARE_OFF);
  if (more <= 0) return more;
  *l = *a;
  *r = *b;
  return 1;
}

static void pop_frame(comparer *c, xffi_walk_vec *stack) {
  compare_frame *f = xffi_walk_vec_top(stack);
  xffi_walk_table_remove(&c->on_stack, f->lhs.held.v_obj, f->rhs.held.v_obj);
  xffi_walk_end(&f->lhs);
  xffi_walk_end(&f->rhs);
  --stack->count;
}

/* A difference found: it decides; under a Map an ordering cannot use it. */
static int terminate(comparer *c, xffi_walk_vec *stack, int result, int *out) {
  int status = XFFI_OK;
  if (!c->eq_only)
    for (size_t i = 0; i < stack->count && status == XFFI_OK; ++i)
      if (((compare_frame *)xffi_walk_vec_at(stack, i))->lhs.kind == XFFI_WALK_MAP) status = raise_unorderable_map();
  while (stack->count) pop_frame(c, stack);
  xffi_walk_vec_free(stack);
  *out = result;
  return status;
}

static int compare_values(comparer *c, const xffi_any *l, const xffi_any *r, int *out) {
  int r0 = compare_immediate(c, l, r, out);
  if (r0) return r0 > 0 ? XFFI_OK : XFFI_FAIL;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(compare_frame)};
  r0 = push_pair(c, &stack, l, r, out);
  if (r0 != 0) {
    if (r0 < 0) goto fail;
    xffi_walk_vec_free(&stack);
    return XFFI_OK;
  }
  for (;;) {
    compare_frame *f = xffi_walk_vec_top(&stack);
    xffi_any a, b;
    int more = next_pair(c, f, &a, &b);
    if (more < 0) goto fail;
    int result;
    if (more) {
      int done = compare_immediate(c, &a, &b, &result);
      if (done < 0) goto fail;
      if (!done) {
        done = push_pair(c, &stack, &a, &b, &result);
        if (done < 0) goto fail;
        if (!done) continue;
      }
      if (result != 0) return terminate(c, &stack, result, out);
      continue;
    }
    result = f->lhs.kind == XFFI_WALK_SEQ ? (f->lhs_size < f->rhs_size ? -1 : f->lhs_size > f->rhs_size) : 0;
    /* The frame holds a reference to each side: shared means held elsewhere too. */
    xffi_object *lo = f->lhs.held.v_obj, *ro = f->rhs.held.v_obj;
    if (result == 0 && xffi_object_strong_count(lo) > 2 && xffi_object_strong_count(ro) > 2 &&
        !xffi_walk_table_put(&c->equal_pairs, lo, ro))
      goto fail;
    pop_frame(c, &stack);
    if (!stack.count) {
      xffi_walk_vec_free(&stack);
      *out = result;
      return XFFI_OK;
    }
    if (result != 0) return terminate(c, &stack, result, out);
  }
fail:
  while (stack.count) pop_frame(c, &stack);
  xffi_walk_vec_free(&stack);
  return XFFI_FAIL;
}

static int run(int *out, const xffi_any *lhs, const xffi_any *rhs, int eq_only) {
  comparer c = {.eq_only = eq_only,
                .eq_column = xffi_walk_column("__ffi_eq__"),
                .compare_column = xffi_walk_column("__ffi_compare__")};
  int result = 0;
  int status = compare_values(&c, lhs, rhs, &result);
  xffi_walk_table_free(&c.on_stack);
  xffi_walk_table_free(&c.equal_pairs);
  xffi_walk_callback_end(c.fn_eq, c.fn_eq_link);
  xffi_walk_callback_end(c.fn_compare, c.fn_compare_link);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = eq_only ? result == 0 : sign(result);
  return XFFI_OK;
}

int xffi_recursive_equal(int *out, const xffi_any *lhs, const xffi_any *rhs) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = 0;
  XFFI_CHECK_ARG_NOT_NULL(lhs);
  XFFI_CHECK_ARG_NOT_NULL(rhs);
  XFFI_CHECK_ARG_ANY(lhs);
  XFFI_CHECK_ARG_ANY(rhs);
  return run(out, lhs, rhs, 1);
}

int xffi_recursive_compare(int *out, const xffi_any *lhs, const xffi_any *rhs) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = 0;
  XFFI_CHECK_ARG_NOT_NULL(lhs);
  XFFI_CHECK_ARG_NOT_NULL(rhs);
  XFFI_CHECK_ARG_ANY(lhs);
  XFFI_CHECK_ARG_ANY(rhs);
  return run(out, lhs, rhs, 0);
}
