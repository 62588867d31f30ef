/* Fuzz target: structural map and mutate (c/structural_mutate.c) with
 * callbacks that change the value being walked. The input builds nested
 * Lists, Dicts and Arrays of ints, some shared, and then scripts what each
 * callback call does to one of those containers (clear, pop, push, set an
 * item, set or erase a Dict key, grow a Dict past a rehash) before it maps
 * an int. The target holds the containers it may change (so they outlive
 * the walk); the in-place path, which needs them unshared, is tested in
 * tests/c/walk/test_walk_callback_changes.c. Checks: the walk
 * gives a result or raises a ValueError naming the change (never a memory
 * error or leak: ASan and LeakSanitizer watch), and the result hashes and
 * compares equal to itself. */
#include "fuzz_common.h"

#include <xffi/structural.h>
#include <xffi/structural_visit.h>

enum { MAX_CONTAINERS = 32, MAX_ACTIONS = 64 };

typedef struct script {
  xffi_object *containers[MAX_CONTAINERS]; /* owned: a callback may drop them from the value */
  int32_t kinds[MAX_CONTAINERS];
  int count;
  uint8_t actions[MAX_ACTIONS][3];
  int num_actions, next;
} script;

/* Builds a value of at most depth levels; records the containers made. */
static xffi_any build(fuzz_input *in, script *s, int depth) {
  uint8_t pick = fuzz_u8(in);
  if (depth == 0 || pick % 4 == 0 || in->n == 0) return xffi_any_int(fuzz_i64(in));
  if (pick % 4 == 3 && s->count > 0) { /* share an earlier container */
    int i = fuzz_u8(in) % s->count;
    xffi_object_inc_ref(s->containers[i]);
    xffi_any v = xffi_any_object(s->containers[i]);
    v.type_index = s->kinds[i];
    return v;
  }
  int n = fuzz_u8(in) % 5;
  xffi_any items[5], keys[5];
  for (int i = 0; i < n; ++i) {
    items[i] = build(in, s, depth - 1);
    keys[i] = xffi_any_int(i);
  }
  xffi_object *made = NULL;
  int32_t kind = pick % 4 == 1 ? XFFI_TYPE_LIST : pick % 8 == 2 ? XFFI_TYPE_DICT : XFFI_TYPE_ARRAY;
  if (kind == XFFI_TYPE_LIST)
    FUZZ_CHECK(xffi_list_new(&made, items, n) == XFFI_OK);
  else if (kind == XFFI_TYPE_DICT)
    FUZZ_CHECK(xffi_dict_new(&made, keys, items, n) == XFFI_OK);
  else
    FUZZ_CHECK(xffi_array_new(&made, items, n) == XFFI_OK);
  for (int i = 0; i < n; ++i) xffi_any_release(&items[i]);
  if (s->count < MAX_CONTAINERS && kind != XFFI_TYPE_ARRAY) {
    xffi_object_inc_ref(made);
    s->containers[s->count] = made;
    s->kinds[s->count++] = kind;
  }
  return xffi_any_object(made);
}

/* The next scripted change, applied to one of the mutable containers. */
static void act(script *s) {
  if (s->next >= s->num_actions || s->count == 0) return;
  const uint8_t *a = s->actions[s->next++];
  xffi_object *c = s->containers[a[1] % s->count];
  xffi_any v = xffi_any_int(a[2]), k = xffi_any_int(a[2] % 6), popped = xffi_any_none();
  int64_t size = 0;
  if (s->kinds[a[1] % s->count] == XFFI_TYPE_LIST) {
    const xffi_any *items;
    FUZZ_CHECK(xffi_array_items(&items, &size, c) == XFFI_OK);
    switch (a[0] % 5) {
      case 0: FUZZ_CHECK(xffi_list_clear(c) == XFFI_OK); break;
      case 1:
        if (size > 0) FUZZ_CHECK(xffi_list_pop(&popped, c) == XFFI_OK);
        xffi_any_release(&popped);
        break;
      case 2: FUZZ_CHECK(xffi_list_push(c, &v) == XFFI_OK); break;
      case 3:
        if (size > 0) FUZZ_CHECK(xffi_list_set(c, a[2] % size, &v) == XFFI_OK);
        break;
      default: break; /* no change */
    }
    return;
  }
  switch (a[0] % 3) {
    case 0: FUZZ_CHECK(xffi_dict_set(c, &k, &v) == XFFI_OK); break;
    case 1:
      if (xffi_dict_erase(c, &k) != XFFI_OK) { /* a missing key: refused, nothing changed */
        xffi_object *err = xffi_error_move_raised();
        FUZZ_CHECK(err != NULL);
        xffi_object_dec_ref(err);
      }
      break;
    default:
      for (int i = 0; i < 40; ++i) { /* grow past a rehash */
        xffi_any big = xffi_any_int(100 + i);
        FUZZ_CHECK(xffi_dict_set(c, &big, &v) == XFFI_OK);
      }
  }
}

static int map_callback(void *resource, const xffi_any *value, int32_t region, xffi_any *result) {
  (void)region;
  act(resource);
  if (value->type_index != XFFI_TYPE_INT) return XFFI_STRUCTURAL_DECLINED;
  *result = xffi_any_int(value->v_int64 ^ 1);
  return XFFI_OK;
}

static int mutate_callback(void *resource, xffi_object *mutator, const xffi_any *value, int32_t mode,
                           xffi_any *result) {
  (void)mode;
  act(resource);
  if (value->type_index == XFFI_TYPE_INT) {
    *result = xffi_any_int(value->v_int64 ^ 1);
    return XFFI_OK;
  }
  return xffi_structural_mutator_default_mutate(result, mutator, value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  script s;
  memset(&s, 0, sizeof(s));
  uint8_t mode = fuzz_u8(&in);
  xffi_any root = build(&in, &s, 6);
  while (s.num_actions < MAX_ACTIONS && in.n >= 3) {
    for (int i = 0; i < 3; ++i) s.actions[s.num_actions][i] = fuzz_u8(&in);
    ++s.num_actions;
  }
  /* Keep a reference (the copy path) unless the mode gives the root over (in place). */
  xffi_any given = root, out = xffi_any_none();
  if (mode & 1) xffi_any_copy(&given, &root);
  int status = mode & 2 ? xffi_structural_mutate(&out, &given, mutate_callback, &s)
                        : xffi_structural_map(&out, &given, (mode >> 2) & 1, map_callback, &s);
  if (status != XFFI_OK) {
    fuzz_expect_raised(XFFI_KIND_VALUE, mode & 2 ? "StructuralMutate" : "StructuralMap");
  } else {
    int64_t h = 0;
    int equal = 0;
    FUZZ_CHECK(xffi_structural_hash(&h, &out, 0) == XFFI_OK);
    FUZZ_CHECK(xffi_structural_equal(&equal, &out, &out, 0) == XFFI_OK && equal);
    xffi_any_release(&out);
  }
  if (mode & 1) xffi_any_release(&root);
  for (int i = 0; i < s.count; ++i) xffi_object_dec_ref(s.containers[i]);
  return 0;
}
