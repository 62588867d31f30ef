/* c/compat/globals/structural_hooks.c: the structural hooks and type flags
 * tvm-ffi's runtime registers on its built-in types, which tvm-ffi's C++
 * and Rust walkers read from the type-attribute columns:
 *
 *   __s_visit__ on Array, List (each element), Map, Dict (each value, not
 *   the keys); __s_mutate__ and __s_maybe_inplace_mutate__ on the same four
 *   and on String, Bytes and BigInt (leaves: always "unchanged");
 *   __ffi_type_final__ on the runtime's thirteen types that have it.
 * (The Function-valued ones are in c/compat/globals/type_runtime_hooks.c.)
 *
 * A hook is a native function in an OpaquePtr entry, called as
 * hook(walker, value) with value borrowed, and returns an owned value:
 * None (visit: go on), the walker's own result when it stopped (an
 * ffi.VisitInterrupt or an Error, handed back as it came), an Error, or for
 * mutation tvm-ffi's "unchanged" marker or a replacement. The walker is
 * the caller's object in tvm-ffi's layout (StructuralVisitorObj,
 * StructuralMutatorObj): the object header, then a pointer to its table of
 * functions, then the definition-region kind. xffi's own walks
 * (c/lib/walk/) read no hook of a built-in type, so these serve foreign
 * walkers only.
 *
 * Mutation as the wheel does it: a child that is a uniquely held object
 * goes to the walker's maybe_inplace_mutate when the container itself may
 * change in place, every other child to its mutate. Copying (or when the
 * container is shared), the result is the marker when no child changed,
 * else a new container with the replacements; in place, the replacements
 * are written into the container and the result is the marker. */
#include <string.h>

#include <xffi/array.h>
#include <xffi/function.h>
#include <xffi/map.h>
#include <xffi/sys/object.h>

#include "compat/globals/structural_hooks.h"
#include "runtime/check.h"
#include "runtime/internal.h"
#include "runtime/static_object.h"
#include "runtime/type_internal.h"

/* tvm-ffi's walker objects; only the table pointer is read here. */
typedef struct tvm_walker {
  xffi_object header;
  const void *table;
  int32_t def_region_kind;
} tvm_walker;
typedef xffi_any (*tvm_walk_fn)(tvm_walker *walker, xffi_any value);
typedef struct tvm_visitor_table {
  tvm_walk_fn visit;
} tvm_visitor_table;
typedef struct tvm_mutator_table {
  tvm_walk_fn mutate, maybe_inplace_mutate;
  void *var_remap_get, *var_remap_set; /* not used by container hooks */
} tvm_mutator_table;

static xffi_any raised_any(void) {
  xffi_object *err = xffi_error_move_raised();
  xffi_any out = xffi_any_none();
  if (err) {
    out.type_index = XFFI_TYPE_ERROR;
    out.v_obj = err;
  }
  return out;
}

static xffi_any unchanged_any(void) {
  xffi_any out = xffi_any_none();
  out.type_index = XFFI_TYPE_UNCHANGED;
  return out;
}

/* ---- Visiting ---- */

static xffi_any visit_child(tvm_walker *walker, const xffi_any *child) {
  return ((const tvm_visitor_table *)walker->table)->visit(walker, *child);
}

static xffi_any visit_seq(tvm_walker *walker, xffi_any value) {
  const xffi_any *items = NULL;
  int64_t size = 0;
  if (xffi_array_items(&items, &size, value.v_obj) != XFFI_OK) return raised_any();
  for (int64_t i = 0; i < size; ++i) {
    xffi_any result = visit_child(walker, &items[i]);
    if (result.type_index != XFFI_TYPE_NONE) return result;
  }
  return xffi_any_none();
}

static xffi_any visit_map_values(tvm_walker *walker, xffi_any value) {
  int64_t cursor = 0;
  xffi_map_item item;
  while (xffi_map_next(&item, value.v_obj, &cursor) == XFFI_OK && item.key) {
    xffi_any result = visit_child(walker, item.value);
    if (result.type_index != XFFI_TYPE_NONE) return result;
  }
  return xffi_any_none();
}

/* ---- Mutating ---- */

/* The walker's answer for child (borrowed): *out receives the replacement
 * (owned), or None when the child stays. Returns None, or the Error to
 * hand back (owned). */
static xffi_any mutate_child(tvm_walker *walker, const xffi_any *child, int inplace, xffi_any *out) {
  const tvm_mutator_table *table = walker->table;
  int unique_object = xffi_any_is_object(child) && xffi_object_strong_count(child->v_obj) == 1;
  xffi_any result = (inplace && unique_object ? table->maybe_inplace_mutate : table->mutate)(walker, *child);
  *out = xffi_any_none();
  if (result.type_index == XFFI_TYPE_ERROR) return result;
  if (result.type_index == XFFI_TYPE_UNCHANGED) return xffi_any_none();
  if (result.type_index == child->type_index && result.small_len == child->small_len &&
      result.v_int64 == child->v_int64) {
    xffi_any_release(&result); /* the child itself: nothing changes */
    return xffi_any_none();
  }
  *out = result;
  return xffi_any_none();
}

static void release_all(xffi_any *values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) xffi_any_release(&values[i]);
  xffi_free(values);
}

/* Array or List (value borrowed): inplace asks for the walker's in-place
 * mutation where the container is uniquely held. */
static xffi_any mutate_seq(tvm_walker *walker, xffi_any value, int inplace) {
  const xffi_any *items = NULL;
  int64_t size = 0;
  if (xffi_array_items(&items, &size, value.v_obj) != XFFI_OK) return raised_any();
  inplace = inplace && xffi_object_strong_count(value.v_obj) == 1;
  xffi_any *replaced = size ? xffi_alloc_zeroed((size_t)size, sizeof(xffi_any)) : NULL;
  if (size && !replaced) return xffi_error_raise_out_of_memory(), raised_any();
  int changed = 0;
  for (int64_t i = 0; i < size; ++i) {
    xffi_any error = mutate_child(walker, &items[i], inplace, &replaced[i]);
    if (error.type_index != XFFI_TYPE_NONE) return release_all(replaced, size), error;
    changed |= replaced[i].type_index != XFFI_TYPE_NONE;
  }
  xffi_any out = unchanged_any();
  if (!changed) return release_all(replaced, size), out;
  if (inplace) {
    xffi_object *seq = value.v_obj; /* uniquely held: a set writes in place */
    for (int64_t i = 0; i < size; ++i) {
      if (replaced[i].type_index == XFFI_TYPE_NONE) continue;
      int status = value.type_index == XFFI_TYPE_LIST ? xffi_list_set(seq, i, &replaced[i])
                                                      : xffi_array_set(&seq, i, &replaced[i]);
      if (status != XFFI_OK) return release_all(replaced, size), raised_any();
    }
    return release_all(replaced, size), out;
  }
  /* A copy: the replacements, and the other children as they are. */
  for (int64_t i = 0; i < size; ++i)
    if (replaced[i].type_index == XFFI_TYPE_NONE && xffi_any_copy(&replaced[i], &items[i]) != XFFI_OK)
      return release_all(replaced, size), raised_any();
  xffi_object *copy = NULL;
  int status =
      value.type_index == XFFI_TYPE_LIST ? xffi_list_new(&copy, replaced, size) : xffi_array_new(&copy, replaced, size);
  release_all(replaced, size);
  if (status != XFFI_OK) return raised_any();
  return xffi_any_object(copy);
}

/* Map or Dict (value borrowed): the values change, the keys stay. */
static xffi_any mutate_map(tvm_walker *walker, xffi_any value, int inplace) {
  int64_t size = 0;
  if (xffi_map_length(&size, value.v_obj) != XFFI_OK) return raised_any();
  inplace = inplace && xffi_object_strong_count(value.v_obj) == 1;
  /* keys[i] (borrowed) and the replacement of its value (owned), per entry. */
  const xffi_any **keys = size ? xffi_alloc_zeroed((size_t)size, sizeof(*keys)) : NULL;
  xffi_any *replaced = size ? xffi_alloc_zeroed((size_t)size, sizeof(xffi_any)) : NULL;
  if (size && (!keys || !replaced)) {
    xffi_free((void *)keys);
    xffi_free(replaced);
    return xffi_error_raise_out_of_memory(), raised_any();
  }
  int64_t cursor = 0, count = 0;
  int changed = 0;
  xffi_map_item item;
  while (count < size && xffi_map_next(&item, value.v_obj, &cursor) == XFFI_OK && item.key) {
    keys[count] = item.key;
    xffi_any error = mutate_child(walker, item.value, inplace, &replaced[count]);
    if (error.type_index != XFFI_TYPE_NONE) return xffi_free((void *)keys), release_all(replaced, size), error;
    changed |= replaced[count++].type_index != XFFI_TYPE_NONE;
  }
  xffi_any out = unchanged_any();
  xffi_object *target = value.v_obj;
  if (changed && !inplace) {
    int status =
        value.type_index == XFFI_TYPE_DICT ? xffi_dict_copy(&target, value.v_obj) : xffi_map_copy(&target, value.v_obj);
    if (status != XFFI_OK) return xffi_free((void *)keys), release_all(replaced, size), raised_any();
    out = xffi_any_object(target);
  }
  /* Keys are borrowed from value, which the copy shares them with; a set
   * on an existing key replaces its value where it is. */
  for (int64_t i = 0; changed && i < count; ++i) {
    if (replaced[i].type_index == XFFI_TYPE_NONE) continue;
    int status = value.type_index == XFFI_TYPE_DICT ? xffi_dict_set(target, keys[i], &replaced[i])
                                                    : xffi_map_set(&target, keys[i], &replaced[i]);
    if (status != XFFI_OK) {
      if (target != value.v_obj) xffi_object_dec_ref(target);
      return xffi_free((void *)keys), release_all(replaced, size), raised_any();
    }
  }
  xffi_free((void *)keys);
  release_all(replaced, size);
  return out;
}

/* The hooks, in the signature tvm-ffi calls them with. */
static xffi_any visit_array(tvm_walker *walker, xffi_any value) { return visit_seq(walker, value); }
static xffi_any visit_map(tvm_walker *walker, xffi_any value) { return visit_map_values(walker, value); }
static xffi_any mutate_seq_copy(tvm_walker *walker, xffi_any value) { return mutate_seq(walker, value, 0); }
static xffi_any mutate_seq_inplace(tvm_walker *walker, xffi_any value) { return mutate_seq(walker, value, 1); }
static xffi_any mutate_map_copy(tvm_walker *walker, xffi_any value) { return mutate_map(walker, value, 0); }
static xffi_any mutate_map_inplace(tvm_walker *walker, xffi_any value) { return mutate_map(walker, value, 1); }
static xffi_any mutate_leaf(tvm_walker *walker, xffi_any value) {
  (void)walker, (void)value;
  return unchanged_any();
}

/* ---- Registration ---- */

static int put_hook(int32_t type_index, const char *name, tvm_walk_fn hook) {
  xffi_any entry = xffi_any_none();
  void *address;
  _Static_assert(sizeof(hook) == sizeof(address), "a function pointer fits an OpaquePtr");
  memcpy(&address, &hook, sizeof(address));
  entry.type_index = XFFI_TYPE_OPAQUE_PTR;
  entry.v_ptr = address;
  return xffi_type_register_attr(type_index, name, &entry);
}

static int put_final(const char *type_key, int final) {
  const xffi_type_info *info = xffi_type_find_by_key(type_key, strlen(type_key));
  if (!info) return xffi_error_raise(XFFI_KIND_RUNTIME, "the runtime type %s is not registered", type_key);
  xffi_any entry = xffi_any_bool(final);
  return xffi_type_register_attr(info->type_index, "__ffi_type_final__", &entry);
}

int xffi_structural_hooks_register(void) {
  static const int32_t seqs[] = {XFFI_TYPE_ARRAY, XFFI_TYPE_LIST}, maps[] = {XFFI_TYPE_MAP, XFFI_TYPE_DICT};
  static const int32_t leaves[] = {XFFI_TYPE_STRING, XFFI_TYPE_BYTES, XFFI_TYPE_BIGINT};
  for (int i = 0; i < 2; ++i)
    if (put_hook(seqs[i], "__s_visit__", visit_array) != XFFI_OK ||
        put_hook(seqs[i], "__s_mutate__", mutate_seq_copy) != XFFI_OK ||
        put_hook(seqs[i], "__s_maybe_inplace_mutate__", mutate_seq_inplace) != XFFI_OK ||
        put_hook(maps[i], "__s_visit__", visit_map) != XFFI_OK ||
        put_hook(maps[i], "__s_mutate__", mutate_map_copy) != XFFI_OK ||
        put_hook(maps[i], "__s_maybe_inplace_mutate__", mutate_map_inplace) != XFFI_OK)
      return XFFI_FAIL;
  for (int i = 0; i < 3; ++i)
    if (put_hook(leaves[i], "__s_mutate__", mutate_leaf) != XFFI_OK ||
        put_hook(leaves[i], "__s_maybe_inplace_mutate__", mutate_leaf) != XFFI_OK)
      return XFFI_FAIL;
  /* As the wheel registers them: true, except for the enum bases and the
   * walkers, which it marks false. */
  static const char *const final_types[] = {"ffi.Module",
                                            "ffi.VisitInterrupt",
                                            "ffi.BigInt",
                                            "ffi.EnumState",
                                            "ffi.reflection.AccessStep",
                                            "ffi.reflection.AccessPath",
                                            "ffi.VisitErrorContext",
                                            "ffi.StructuralKey"};
  static const char *const open_types[] = {"ffi.Enum", "ffi.IntEnum", "ffi.StrEnum", "ffi.StructuralVisitor",
                                           "ffi.StructuralMutator"};
  for (size_t i = 0; i < sizeof(final_types) / sizeof(final_types[0]); ++i)
    if (put_final(final_types[i], 1) != XFFI_OK) return XFFI_FAIL;
  for (size_t i = 0; i < sizeof(open_types) / sizeof(open_types[0]); ++i)
    if (put_final(open_types[i], 0) != XFFI_OK) return XFFI_FAIL;
  return XFFI_OK;
}
