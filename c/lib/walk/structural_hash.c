/* c/lib/walk/structural_hash.c: xffi_structural_hash (ffi.StructuralHash), tvm-ffi's
 * StructuralHash number for number (see xffi/structural.h).
 *
 * The recipe (c(k, v) = StableHashCombine): a plain value c(index, its 8
 * payload bytes), NaN as the quiet NaN, a small string c(65, its bytes'
 * stable hash); a String or Bytes object c(index, stable hash of bytes); a
 * BigInt c(index, stable hash of its words); an Array or List
 * c(type_key_hash, n) then c(h, h_elem) per element; a Map or Dict
 * c(type_key_hash, n), then its entries sorted by key hash (keys hashed
 * without recursion: plain values, texts, BigInts, or objects already
 * hashed; other keys are left out), c(h, h_key) and c(h, h_value) for a
 * unique key hash, only c(h, h_key) for a repeated one; a Shape
 * c(type_key_hash, n) and its dims; a Tensor c(type_key_hash, ndim), dims,
 * dtype and the stable hash of its bytes; an object its type_key_hash
 * combined with each field not flagged ignored (or its __s_hash__ hook's
 * number), then a free variable c(h, its number in order of definition)
 * inside a definition region (its address outside one), a DAG node
 * c(h, its number in order of hashing). Each object is hashed once (memo).
 *
 * Only objects that can be reached again are memoised: the root of a walk,
 * and any object whose strong count exceeds 1 when it is met. Every edge of
 * the graph holds a strong reference, so an object with a count of 1 has
 * exactly one edge into it and the walk meets it once (through its one
 * holder, itself hashed once): a memo entry for it would never be read, nor
 * could it be an already-hashed Map key. Counts only rise under concurrent
 * readers and getters (which hand out a new reference), which errs towards
 * memoising; the graph must not be mutated during the walk either way. This
 * spares a random access into a table as large as the graph per object
 * (and the table's growth), and changes no hash: a lookup that could only
 * miss is skipped.
 *
 * A shared Array, List, Map or Dict (strong count above 1) is memoised too,
 * by (container, region), so that a DAG of containers costs its distinct
 * containers, not its paths. Its hash is the one the tree expansion gives:
 * it is recorded only when its walk depended on nothing but its contents,
 * i.e. numbered no free variable or DAG node and left out no Map key (the
 * events below); a container whose walk did is hashed again where met. */
#include <stdlib.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/structural.h>
#include <xffi/tensor.h>
#include <xffi/tvm_ffi.h>

#include "runtime/bigint.h"
#include "runtime/check.h"
#include "lib/container/map_table.h" /* map_step, map_text_of */
#include "lib/walk/recursive_walk.h"
#include "lib/walk/structural_plan.h"
#include "lib/walk/structural_region.h"

/* A small string's hash, remembered by its payload: a graph's Map keys
 * ("name", "value", ...) repeat, and a look-up costs less than the stable
 * hash of their bytes. */
typedef struct small_text_slot {
  uint64_t payload;
  uint64_t hash;
  uint32_t size;
  uint32_t filled;
} small_text_slot;

enum { SMALL_TEXT_SLOTS = 64 }; /* direct-mapped by a multiplicative hash of the payload */

typedef struct hasher {
  int32_t region;
  int skip_tensor_content;
  uint32_t free_var_counter, dag_node_counter; /* tvm-ffi's counters are 32 bits */
  uint64_t events;      /* what makes a hash depend on the walk so far: numbers given, Map keys left out */
  xffi_walk_table memo; /* object -> word: its hash (state 1 when done) */
  const xffi_type_attr_column *s_hash_column;
  xffi_object *fn_hash; /* owned: the callback handed to __s_hash__ hooks, made on first use */
  void **fn_hash_link;
  /* map_entry_hash of every Map being hashed, outermost first: one buffer
   * for the whole walk (frames end in reverse order of their start), not an
   * allocation per Map. */
  xffi_walk_vec map_entries;
  /* The frames of the innermost walk (a hook's callback starts another;
   * the outer ones are pinned by then), borrowed: pinned before a hook. */
  xffi_walk_vec *frames;
  small_text_slot small_texts[SMALL_TEXT_SLOTS];
} hasher;

/* A Map entry in hashing order. */
typedef struct map_entry_hash {
  uint64_t key_hash;
  const xffi_any *value; /* borrowed from the map the frame holds, or from held_values once pinned */
  int unique;            /* 0: its key hash repeats; the value is not hashed */
} map_entry_hash;

enum { HASH_SEQ, HASH_MAP, HASH_OBJECT };

/* A container or object being hashed, with only what its kind needs. */
typedef struct hash_frame {
  xffi_object *obj; /* borrowed, or owned once pinned */
  int32_t kind;     /* HASH_* */
  int32_t pinned;   /* 1: obj is held, and fields are read through their getters */
  uint64_t hash;
  int32_t seq_kind; /* objects: the type's structural kind; containers: -1 */
  int32_t entry_region, own_region;
  int32_t memoise;                   /* record the hash (it may be reached again) */
  uint64_t events_at_entry;          /* containers: h->events when the frame began */
  int64_t position;                  /* sequences: items given; objects: fields given */
  const xffi_field_plan *plan;       /* objects: the type's fields to hash (immortal) */
  xffi_any child;                    /* objects: the field value read last, when not a view in place */
  int32_t child_owned;               /* 1: child is a reference to release */
  size_t entries_begin, entries_end; /* maps: its sorted entries in hasher.map_entries */
  size_t entry_pos;
  xffi_any *held_values; /* pinned maps: references to the entries not hashed yet (a hook may change the map) */
  size_t entry_pos_held; /* ... from this entry on */
} hash_frame;

static inline uint64_t combine(uint64_t key, uint64_t value) { return map_hash_combine(key, value); }

static uint64_t payload_of(const xffi_any *v) {
  uint64_t word;
  memcpy(&word, &v->v_int64, sizeof(word));
  return word;
}

static uint64_t text_hash(const xffi_any *v) {
  xffi_byte_array b = map_text_of(v);
  int32_t index = xffi_walk_is_str(v->type_index) ? XFFI_TYPE_STRING : XFFI_TYPE_BYTES;
  return combine((uint64_t)index, map_stable_hash_bytes(b.data, b.size));
}

static uint64_t bigint_hash(const xffi_any *v) {
  xffi_byte_array words = xffi_bigint_content("ffi.StructuralHash", v);
  return combine(XFFI_TYPE_BIGINT, map_stable_hash_bytes(words.data, words.size));
}

/* A borrowed byte run (BYTE_ARRAY_PTR) hashed as the Bytes it stands for
 * (tvm-ffi converts it first): small bytes by their zero-padded payload, a
 * longer run as a Bytes object. */
static uint64_t byte_run_hash(const xffi_any *v) {
  xffi_byte_array b = *v->v_bytes_ptr;
  if (b.size > XFFI_SMALL_STR_MAX) return combine(XFFI_TYPE_BYTES, map_stable_hash_bytes(b.data, b.size));
  uint64_t word = 0;
  if (b.size) memcpy(&word, b.data, b.size);
  return combine(XFFI_TYPE_SMALL_BYTES, word);
}

/* text_hash of a small string, through the hasher's slots. */
static uint64_t small_text_hash(hasher *h, const xffi_any *v) {
  uint64_t payload = payload_of(v);
  small_text_slot *slot = &h->small_texts[(payload * UINT64_C(0x9e3779b97f4a7c15)) >> 58];
  if (slot->filled && slot->payload == payload && slot->size == v->small_len) return slot->hash;
  slot->payload = payload;
  slot->size = v->small_len;
  slot->filled = 1;
  slot->hash = text_hash(v);
  return slot->hash;
}

/* A value hashed without looking inside it (tvm-ffi's rules for plain
 * values; small bytes, unlike small strings, hash by their raw payload).
 * Borrowed texts (a C string, a byte run) hash by content, as the String or
 * Bytes they stand for, never by address. */
static uint64_t plain_hash(hasher *h, const xffi_any *v) {
  int32_t t = v->type_index;
  if (t == XFFI_TYPE_SMALL_STR) return small_text_hash(h, v);
  if (t == XFFI_TYPE_RAW_STR) return text_hash(v);
  if (t == XFFI_TYPE_BYTE_ARRAY_PTR) return byte_run_hash(v);
  if (t == XFFI_TYPE_FLOAT && v->v_float64 != v->v_float64) return combine((uint64_t)t, UINT64_C(0x7ff8000000000000));
  return combine((uint64_t)t, payload_of(v));
}

static int set_memo(hasher *h, const xffi_object *obj, uint64_t word) {
  xffi_walk_entry *e = xffi_walk_table_put(&h->memo, obj, NULL);
  if (!e) return XFFI_FAIL;
  e->state = 1;
  e->word = word;
  return XFFI_OK;
}

static int tensor_hash(hasher *h, const xffi_any *v, uint64_t *out) {
  DLTensor *t;
  if (xffi_tensor_cell_of(&t, v->v_obj) != XFFI_OK) return XFFI_FAIL;
  uint64_t s = combine(xffi_object_type_info_unchecked(v->v_obj)->type_key_hash, (uint64_t)(int64_t)t->ndim);
  for (int i = 0; i < t->ndim; ++i) s = combine(s, (uint64_t)t->shape[i]);
  uint64_t dtype_word = 0; /* the dtype as the low bytes of a zeroed payload */
  memcpy(&dtype_word, &t->dtype, sizeof(t->dtype));
  s = combine(s, dtype_word);
  if (!h->skip_tensor_content) {
    int contiguous = 0;
    if (t->device.device_type != kDLCPU)
      return xffi_error_raise(XFFI_KIND_RUNTIME, "StructuralHash: can only hash CPU tensor");
    if (xffi_tensor_is_contiguous(&contiguous, v->v_obj) != XFFI_OK) return XFFI_FAIL;
    if (!contiguous) return xffi_error_raise(XFFI_KIND_RUNTIME, "StructuralHash: Can only hash contiguous tensor");
    uint64_t size = 0;
    if (xffi_tensor_nbytes(&size, v->v_obj) != XFFI_OK) return XFFI_FAIL;
    s = combine(s, map_stable_hash_bytes((const char *)t->data + t->byte_offset, (size_t)size));
  }
  *out = s;
  return XFFI_OK;
}

static int hash_value(hasher *h, const xffi_any *value, uint64_t *out);

/* The callback of __s_hash__ hooks: (value, init, def_region_kind) -> c(init, hash(value)). */
static int fn_hash_call(void *resource, const xffi_any *args, int32_t num_args, xffi_any *result) {
  if (num_args != 3)
    return xffi_error_raise(XFFI_KIND_TYPE, "s_hash callback: expected 3 arguments, got %d", (int)num_args);
  hasher *h = xffi_walk_callback_target(resource, "s_hash callback");
  if (!h) return XFFI_FAIL;
  int64_t init = 0, opened = 0;
  if (xffi_any_to_int(&init, &args[1]) != XFFI_OK || xffi_any_to_int(&opened, &args[2]) != XFFI_OK) return XFFI_FAIL;
  if (opened < XFFI_REGION_NONE || opened > XFFI_REGION_SIMPLE)
    return xffi_error_raise(XFFI_KIND_VALUE, "s_hash callback: def_region_kind must be 0, 1 or 2, got %lld",
                            (long long)opened);
  int32_t saved = h->region;
  h->region = xffi_structural_child_region(saved, (int32_t)opened);
  uint64_t inner = 0;
  int status = hash_value(h, &args[0], &inner);
  h->region = saved;
  if (status != XFFI_OK) return XFFI_FAIL;
  *result = xffi_any_int((int64_t)combine((uint64_t)init, inner));
  return XFFI_OK;
}

/* Whether obj (borrowed), met as the root of a walk or not, may be met
 * again in this walk: see the file comment. */
static inline int may_meet_again(const xffi_object *obj, int is_root) {
  return is_root || xffi_object_strong_count(obj) > 1;
}

/* What an object's hash becomes after its fields: numbered free variables
 * and DAG nodes; remembered when memoise says it may be met again. */
static int finish_object(hasher *h, const xffi_object *obj, int32_t seq_kind, int32_t entry_region, int memoise,
                         uint64_t *hash) {
  if (seq_kind == XFFI_SEQ_HASH_FREE_VAR && entry_region != XFFI_REGION_NONE) {
    *hash = combine(*hash, h->free_var_counter++);
    ++h->events;
  } else if (seq_kind == XFFI_SEQ_HASH_FREE_VAR) {
    *hash = (uint64_t)(uintptr_t)obj;
  }
  if (seq_kind == XFFI_SEQ_HASH_DAG_NODE) {
    *hash = combine(*hash, h->dag_node_counter++);
    ++h->events;
  }
  return memoise ? set_memo(h, obj, *hash) : XFFI_OK;
}

/* Before a hook runs: the frame's Map entries not hashed yet get references
 * of their own, so a hook that erases them or moves the Dict's table leaves
 * the walk hashing the entries the Dict had when its walk began. */
static int hold_entries(hasher *h, hash_frame *f) {
  size_t n = f->entries_end - f->entry_pos;
  if (n == 0) return XFFI_OK;
  f->held_values = xffi_alloc(n * sizeof(xffi_any));
  if (!f->held_values) return xffi_error_raise_out_of_memory();
  f->entry_pos_held = f->entry_pos;
  for (size_t k = 0; k < n; ++k) {
    map_entry_hash *e = xffi_walk_vec_at(&h->map_entries, f->entry_pos + k);
    f->held_values[k] = *e->value;
    if (xffi_any_is_object(&f->held_values[k])) xffi_object_inc_ref(f->held_values[k].v_obj);
    e->value = &f->held_values[k];
  }
  return XFFI_OK;
}

static int call_hook(hasher *h, const xffi_any *hook, int32_t seq_kind, const xffi_any *v, int memoise, uint64_t *out) {
  if (hook->type_index != XFFI_TYPE_FUNCTION)
    return xffi_error_raise(XFFI_KIND_TYPE, "StructuralHash: __s_hash__ of %s must be a Function, got %s",
                            xffi_type_key(v->type_index), xffi_any_kind_name(hook));
  if (!h->fn_hash && xffi_walk_callback_new(&h->fn_hash, &h->fn_hash_link, fn_hash_call, h) != XFFI_OK)
    return XFFI_FAIL;
  /* The hook runs others' code, which may drop what the open frames borrow
   * (v too: held here for the call). */
  if (h->frames)
    for (size_t i = 0; i < h->frames->count; ++i) {
      hash_frame *f = xffi_walk_vec_at(h->frames, i);
      if (f->pinned) continue;
      if (f->kind == HASH_MAP && hold_entries(h, f) != XFFI_OK) return XFFI_FAIL;
      xffi_object_inc_ref(f->obj);
      f->pinned = 1;
    }
  int32_t entry = h->region;
  h->region = xffi_structural_own_region(seq_kind, entry);
  uint64_t init = xffi_object_type_info_unchecked(v->v_obj)->type_key_hash;
  xffi_any args[3] = {xffi_any_object_new_ref(v->v_obj), xffi_any_int((int64_t)init), xffi_any_object(h->fn_hash)},
           result = xffi_any_none();
  int status = xffi_function_call(hook->v_obj, args, 3, &result);
  xffi_any_release(&args[0]);
  h->region = entry;
  int64_t r = 0;
  if (status == XFFI_OK) status = xffi_any_to_int(&r, &result);
  xffi_any_release(&result);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = (uint64_t)r;
  return finish_object(h, v->v_obj, seq_kind, entry, memoise, out);
}

/* 1 with *out when value needs no frame, 0 when it does, -1 raised.
 * is_root: v is the root of a walk (always memoised). */
static int hash_immediate(hasher *h, const xffi_any *v, int is_root, uint64_t *out) {
  int32_t t = v->type_index;
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    *out = plain_hash(h, v);
    return 1;
  }
  const xffi_object *obj = v->v_obj;
  switch (t) {
    case XFFI_TYPE_STRING:
    case XFFI_TYPE_BYTES: *out = text_hash(v); return 1;
    case XFFI_TYPE_BIGINT: *out = bigint_hash(v); return 1;
    case XFFI_TYPE_SHAPE: {
      const xffi_shape_cell *cell = xffi_shape_cell_of_unchecked(obj);
      uint64_t s = combine(xffi_object_type_info_unchecked(obj)->type_key_hash, cell->size);
      for (size_t i = 0; i < cell->size; ++i) s = combine(s, (uint64_t)cell->data[i]);
      *out = s;
      return 1;
    }
    case XFFI_TYPE_TENSOR: return tensor_hash(h, v, out) == XFFI_OK ? 1 : -1;
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT: return 0;
    default: break;
  }
  const xffi_type_info *info = xffi_object_type_info_unchecked(obj);
  int32_t seq_kind = info->metadata ? info->metadata->structural_eq_hash_kind : XFFI_SEQ_HASH_UNSUPPORTED;
  if (seq_kind == XFFI_SEQ_HASH_UNSUPPORTED)
    return xffi_error_raise(XFFI_KIND_TYPE, "%s for type `%.*s`, so StructuralHash is not supported for this type",
                            info->metadata ? "_type_s_eq_hash_kind is not set" : "Type metadata is not set",
                            (int)info->type_key.size, info->type_key.data),
           -1;
  int memoise = may_meet_again(obj, is_root);
  const xffi_walk_entry *seen = memoise ? xffi_walk_table_find(&h->memo, obj, NULL) : NULL;
  if (seen && seen->state == 1) {
    *out = seen->word;
    return 1;
  }
  const xffi_any *hook = xffi_walk_type_attr(h->s_hash_column, t);
  if (hook) return call_hook(h, hook, seq_kind, v, memoise, out) == XFFI_OK ? 1 : -1;
  return 0;
}

/* A Map key's hash when it can be had without recursion; 0 when it cannot
 * (an object not hashed yet: the entry is left out, as tvm-ffi does). */
static int key_hash(hasher *h, const xffi_any *key, uint64_t *out) {
  int32_t t = key->type_index;
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN) {
    *out = t == XFFI_TYPE_SMALL_STR ? small_text_hash(h, key) : combine((uint64_t)t, payload_of(key));
    return 1;
  }
  if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES) {
    *out = text_hash(key);
    return 1;
  }
  if (t == XFFI_TYPE_BIGINT) {
    *out = bigint_hash(key);
    return 1;
  }
  const xffi_walk_entry *seen = xffi_walk_table_find(&h->memo, key->v_obj, NULL);
  if (!seen || seen->state != 1) return 0;
  *out = seen->word;
  return 1;
}

static int compare_entries(const void *a, const void *b) {
  uint64_t x = ((const map_entry_hash *)a)->key_hash, y = ((const map_entry_hash *)b)->key_hash;
  return x < y ? -1 : x > y;
}

/* Sorts e[0, n) by key hash: insertion sort for the few entries most Maps
 * have (no call per comparison), qsort beyond. */
static void sort_entries(map_entry_hash *e, size_t n) {
  if (n > 16) {
    qsort(e, n, sizeof(*e), compare_entries);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    map_entry_hash item = e[i];
    size_t j = i;
    for (; j > 0 && e[j - 1].key_hash > item.key_hash; --j) e[j] = e[j - 1];
    e[j] = item;
  }
}

/* The map's entries with their key hashes, appended to h->map_entries,
 * sorted, repeats marked. */
static int collect_entries(hasher *h, hash_frame *f) {
  f->entries_begin = f->entries_end = f->entry_pos = h->map_entries.count;
  int64_t cursor = 0;
  xffi_map_item item;
  for (;;) {
    map_step(&item, map_of(f->obj), &cursor);
    if (!item.key) break;
    uint64_t k;
    if (!key_hash(h, item.key, &k)) {
      ++h->events;
      continue;
    }
    xffi_walk_vec *v = &h->map_entries; /* inline while there is room */
    map_entry_hash *e =
        v->count < v->capacity ? (map_entry_hash *)(void *)v->data + v->count++ : xffi_walk_vec_push_unset(v);
    if (!e) return XFFI_FAIL;
    e->key_hash = k;
    e->value = item.value;
    xffi_walk_read_ahead(item.value, 1);
    e->unique = 1;
    f->entries_end = h->map_entries.count;
  }
  size_t n = f->entries_end - f->entries_begin;
  if (n == 0) return XFFI_OK; /* maybe no buffer yet: no pointer into it */
  map_entry_hash *e = xffi_walk_vec_at(&h->map_entries, f->entries_begin);
  sort_entries(e, n);
  for (size_t i = 1; i < n; ++i) /* repeats are rare, and next to each other once sorted */
    if (e[i - 1].key_hash == e[i].key_hash) e[i - 1].unique = e[i].unique = 0;
  return XFFI_OK;
}

/* A leaf's hash in *out: a plain value, a String or a Bytes (nothing inside
 * to walk, no hook to run); 0 for anything else. */
static inline int leaf_hash(hasher *h, const xffi_any *v, uint64_t *out) {
  int32_t t = v->type_index;
  if (t < XFFI_TYPE_STATIC_OBJECT_BEGIN)
    *out = plain_hash(h, v);
  else if (t == XFFI_TYPE_STRING || t == XFFI_TYPE_BYTES)
    *out = text_hash(v);
  else
    return 0;
  return 1;
}

/* The innermost frame (the size known here: no multiply by item_size). */
static inline hash_frame *top_frame(const xffi_walk_vec *stack) {
  return (hash_frame *)(void *)stack->data + (stack->count - 1);
}

/* is_root: 1 for the root of a walk; SHARED_CONTAINER for a container met
 * with a strong count above 1 (memoised); 0 otherwise. */
enum { SHARED_CONTAINER = 2 };

static int push_frame(hasher *h, xffi_walk_vec *stack, const xffi_any *value, int is_root) {
  if (stack->count >= XFFI_WALK_MAX_DEPTH) return xffi_walk_raise_too_deep("StructuralHash");
  xffi_object *obj = value->v_obj;
  const xffi_type_info *info = xffi_object_type_info_unchecked(obj);
  int32_t kind, seq_kind = -1;
  uint64_t hash = info->type_key_hash;
  const xffi_field_plan *plan = NULL;
  switch (value->type_index) {
    case XFFI_TYPE_ARRAY:
    case XFFI_TYPE_LIST:
      kind = HASH_SEQ;
      hash = combine(hash, (uint64_t)xffi_seq_size_unchecked(obj));
      xffi_walk_read_ahead(xffi_seq_items_unchecked(obj), xffi_seq_size_unchecked(obj));
      break;
    case XFFI_TYPE_MAP:
    case XFFI_TYPE_DICT:
      kind = HASH_MAP;
      hash = combine(hash, (uint64_t)map_of(obj)->size);
      map_read_ahead(map_of(obj));
      break;
    default:
      kind = HASH_OBJECT;
      seq_kind = info->metadata->structural_eq_hash_kind;
      plan = xffi_field_plan_of(info);
      if (!plan) return XFFI_FAIL;
      xffi_plan_read_ahead(plan, obj);
  }
  /* A new top frame, inline while there is room; every member is set below. */
  hash_frame *f = stack->count < stack->capacity ? (hash_frame *)(void *)stack->data + stack->count++
                                                 : xffi_walk_vec_push_unset(stack);
  if (!f) return XFFI_FAIL;
  f->obj = obj;
  f->kind = kind;
  f->pinned = 0;
  f->hash = hash;
  f->seq_kind = seq_kind;
  f->entry_region = h->region;
  f->own_region = seq_kind >= 0 ? xffi_structural_own_region(seq_kind, h->region) : h->region;
  f->memoise = seq_kind >= 0 ? may_meet_again(obj, is_root) : is_root == SHARED_CONTAINER;
  f->events_at_entry = h->events;
  f->position = 0;
  f->plan = plan;
  f->child = xffi_any_none();
  f->child_owned = 0;
  f->entries_begin = f->entries_end = f->entry_pos = 0;
  f->held_values = NULL;
  if (kind == HASH_MAP && collect_entries(h, f) != XFFI_OK) {
    h->map_entries.count = f->entries_begin;
    --stack->count;
    return XFFI_FAIL;
  }
  h->region = f->own_region;
  return XFFI_OK;
}

/* The frame's next child that needs the walk: 1 with *child (a view) and
 * *region, 0 at the end, -1 raised. Leaf children on the way are folded
 * into f->hash here, in one loop, not one walk step each. */
static int next_child(hasher *h, hash_frame *f, xffi_any *child, int32_t *region) {
  *region = f->own_region;
  uint64_t leaf;
  if (f->kind == HASH_SEQ) {
    /* The size re-read on each call: a hook run for the child given last may have changed a List. */
    const xffi_any *items = xffi_seq_items_unchecked(f->obj);
    int64_t n = xffi_seq_size_unchecked(f->obj), i = f->position;
    for (; i < n && leaf_hash(h, &items[i], &leaf); ++i) f->hash = combine(f->hash, leaf);
    if (i >= n) {
      f->position = i;
      return 0;
    }
    *child = items[i];
    f->position = i + 1;
    return 1;
  }
  if (f->kind == HASH_MAP) {
    while (f->entry_pos < f->entries_end) {
      const map_entry_hash *e = xffi_walk_vec_at(&h->map_entries, f->entry_pos++);
      f->hash = combine(f->hash, e->key_hash);
      if (!e->unique) continue;
      if (leaf_hash(h, e->value, &leaf)) {
        f->hash = combine(f->hash, leaf);
        continue;
      }
      *child = *e->value;
      return 1;
    }
    return 0;
  }
  if (f->child_owned) {
    xffi_any_release(&f->child);
    f->child_owned = 0;
  }
  if (f->position >= f->plan->count) return 0;
  const xffi_plan_field *pf = &f->plan->fields[f->position++];
  const xffi_any *c;
  f->child_owned = xffi_plan_read_owns(pf, f->pinned);
  if (xffi_plan_read(pf, f->obj, f->pinned, &f->child, &c) != XFFI_OK) return -1;
  *region = xffi_structural_child_region(f->own_region, pf->region);
  *child = *c;
  return 1;
}

/* The memo key of a container's hash: (container, region + 1), apart from
 * objects' (object, NULL). */
static inline const void *container_memo_tag(int32_t region) { return (const void *)(uintptr_t)(region + 1); }

static int set_container_memo(hasher *h, const xffi_object *obj, int32_t region, uint64_t word) {
  xffi_walk_entry *e = xffi_walk_table_put(&h->memo, obj, container_memo_tag(region));
  if (!e) return XFFI_FAIL;
  e->state = 1;
  e->word = word;
  return XFFI_OK;
}

/* 1 with *out when the shared container (met in h->region) has its hash
 * known, 0 when it must be walked. */
static inline int shared_container_hash(const hasher *h, const xffi_object *obj, uint64_t *out) {
  if (h->memo.used == 0) return 0;
  const xffi_walk_entry *seen = xffi_walk_table_find(&h->memo, obj, container_memo_tag(h->region));
  if (!seen || seen->state != 1) return 0;
  *out = seen->word;
  return 1;
}

static void pop_frame(hasher *h, xffi_walk_vec *stack) {
  hash_frame *f = top_frame(stack);
  h->region = f->entry_region;
  if (f->held_values) {
    for (size_t i = f->entry_pos_held; i < f->entries_end; ++i)
      xffi_any_release(&f->held_values[i - f->entry_pos_held]);
    xffi_free(f->held_values);
  }
  if (f->kind == HASH_MAP) h->map_entries.count = f->entries_begin;
  if (f->child_owned) xffi_any_release(&f->child);
  if (f->pinned) xffi_object_dec_ref(f->obj);
  --stack->count;
}

static int hash_value(hasher *h, const xffi_any *value, uint64_t *out) {
  int r = hash_immediate(h, value, 1, out);
  if (r) return r > 0 ? XFFI_OK : XFFI_FAIL;
  xffi_walk_vec stack = {NULL, 0, 0, sizeof(hash_frame)};
  xffi_walk_vec *outer_frames = h->frames;
  h->frames = &stack;
  if (push_frame(h, &stack, value, 1) != XFFI_OK) goto fail;
  for (;;) {
    hash_frame *f = top_frame(&stack);
    xffi_any child;
    int32_t region;
    int more = next_child(h, f, &child, &region);
    if (more < 0) goto fail;
    uint64_t done;
    if (more) {
      if (leaf_hash(h, &child, &done)) { /* an object's field (containers fold theirs in next_child) */
        f->hash = combine(f->hash, done);
        continue;
      }
      h->region = region;
      int32_t t = child.type_index;
      int container = t == XFFI_TYPE_ARRAY || t == XFFI_TYPE_LIST || t == XFFI_TYPE_MAP || t == XFFI_TYPE_DICT;
      int shared = container && xffi_object_strong_count(child.v_obj) > 1;
      r = shared ? shared_container_hash(h, child.v_obj, &done) : container ? 0 : hash_immediate(h, &child, 0, &done);
      if (r < 0) goto fail;
      if (r == 0) {
        if (push_frame(h, &stack, &child, shared ? SHARED_CONTAINER : 0) != XFFI_OK) goto fail;
        continue;
      }
      f->hash = combine(f->hash, done);
      h->region = f->own_region;
      continue;
    }
    done = f->hash;
    if (f->seq_kind >= 0 && finish_object(h, f->obj, f->seq_kind, f->entry_region, f->memoise, &done) != XFFI_OK)
      goto fail;
    if (f->seq_kind < 0 && f->memoise && h->events == f->events_at_entry &&
        set_container_memo(h, f->obj, f->entry_region, done) != XFFI_OK)
      goto fail;
    pop_frame(h, &stack);
    if (!stack.count) {
      *out = done;
      xffi_walk_vec_free(&stack);
      h->frames = outer_frames;
      return XFFI_OK;
    }
    f = top_frame(&stack);
    f->hash = combine(f->hash, done);
    h->region = f->own_region;
  }
fail:
  while (stack.count) pop_frame(h, &stack);
  xffi_walk_vec_free(&stack);
  h->frames = outer_frames;
  return XFFI_FAIL;
}

int xffi_structural_hash(int64_t *out, const xffi_any *value, int32_t options) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  *out = 0;
  XFFI_CHECK_ARG_NOT_NULL(value);
  XFFI_CHECK_ARG_ANY(value);
  if (options & ~(XFFI_STRUCTURAL_MAP_FREE_VARS | XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT))
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_structural_hash: unknown option bits 0x%x in options",
                            (unsigned)options);
  hasher h = {.region = (options & XFFI_STRUCTURAL_MAP_FREE_VARS) ? XFFI_REGION_PATTERN : XFFI_REGION_NONE,
              .skip_tensor_content = (options & XFFI_STRUCTURAL_SKIP_TENSOR_CONTENT) != 0,
              .s_hash_column = xffi_walk_column("__s_hash__"),
              .map_entries = {NULL, 0, 0, sizeof(map_entry_hash)}};
  uint64_t result = 0;
  int status = hash_value(&h, value, &result);
  xffi_walk_table_free(&h.memo);
  xffi_walk_vec_free(&h.map_entries);
  xffi_walk_callback_end(h.fn_hash, h.fn_hash_link);
  if (status != XFFI_OK) return XFFI_FAIL;
  *out = (int64_t)result;
  return XFFI_OK;
}
