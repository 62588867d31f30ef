/* c/lib/container/map_dense.c: maps of more than 4 pairs in tvm-ffi's dense layout
 * (c/lib/container/map_table.h): blocks of 16 metadata bytes and 16 items, collision
 * chains linked by one of 126 jumps, the home slot by Fibonacci hashing, an
 * insertion-order list through the items. The rules C++ inline code reads
 * and changes a table by are tvm-ffi's (a key heads or joins the chain of its
 * home slot); within them xffi sizes and fills its tables its own way: at
 * least 16 slots, doubling at 3/4 load, a rehash that places every chain
 * head first and never moves a chain. So a table xffi builds may have other
 * bytes than tvm-ffi's from the same keys; each runtime reads and changes
 * the other's (tests/interop/test_interop_map.c). Where tvm-ffi would walk or
 * grow without limit, xffi's own inserts stop with an error (docs/map.md,
 * "Hostile keys"). */
#include "runtime/check.h"
#include "lib/container/map_table.h"

const uint64_t xffi_map_jumps[MAP_NUM_JUMPS] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    /* triangular numbers */
    21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136, 153, 171, 190, 210, 231, 253, 276, 300, 325, 351, 378, 406, 435, 465,
    496, 528, 561, 595, 630, 666, 703, 741, 780, 820, 861, 903, 946, 990, 1035, 1081, 1128, 1176, 1225, 1275, 1326,
    1378, 1431, 1485, 1540, 1596, 1653, 1711, 1770, 1830, 1891, 1953, 2016, 2080, 2145, 2211, 2278, 2346, 2415, 2485,
    2556, 2628,
    /* then larger steps */
    UINT64_C(8515), UINT64_C(19110), UINT64_C(42778), UINT64_C(96141), UINT64_C(216153), UINT64_C(486591),
    UINT64_C(1092981), UINT64_C(2458653), UINT64_C(5532801), UINT64_C(12442566), UINT64_C(27993903), UINT64_C(62983476),
    UINT64_C(141717030), UINT64_C(318844378), UINT64_C(717352503), UINT64_C(1614057336), UINT64_C(3631522476),
    UINT64_C(8170957530), UINT64_C(18384510628), UINT64_C(41364789378), UINT64_C(93070452520), UINT64_C(209408356380),
    UINT64_C(471168559170), UINT64_C(1060128894105), UINT64_C(2385289465695), UINT64_C(5366898840628),
    UINT64_C(12075518705635), UINT64_C(27169915244790), UINT64_C(61132312065111), UINT64_C(137547689707000),
    UINT64_C(309482283181501), UINT64_C(696335127828753), UINT64_C(1566753995631385), UINT64_C(3525196511162271),
    UINT64_C(7931691992677701), UINT64_C(17846306936293605), UINT64_C(40154190677507445), UINT64_C(90346928918121501),
    UINT64_C(203280589587557251), UINT64_C(457381325854679626), UINT64_C(1029107982097042876),
    UINT64_C(2315492959180353330), UINT64_C(5209859154120846435)};

/* The most chain elements a relocation moves; a longer chain tail makes the
 * insert rehash instead (still a valid table for C++; tvm-ffi would move it). */
#define RELOCATE_MAX 64

static inline int meta_is_head(unsigned char meta) { return (meta & 0x80u) == 0; }
static inline uint64_t meta_jump(unsigned char meta) { return xffi_map_jumps[meta & 0x7Fu]; }
static inline void meta_set_jump(map_object *m, uint64_t i, unsigned jump) {
  unsigned char *meta = map_meta(m, i);
  *meta = (unsigned char)((*meta & 0x80u) | jump);
}

void xffi_map_dense_table_size(uint64_t cap, uint32_t *fib_shift, uint64_t *n_slots) {
  /* At least one whole block: tvm-ffi's 8-slot table (for 4 entries) takes
   * the same 784-byte block and leaves half of it unused, then rehashes at
   * the 8th entry; 16 slots cost no memory and skip that rehash. */
  if (cap < MAP_BLOCK_CAP / 2) cap = MAP_BLOCK_CAP / 2;
  uint32_t shift = 64;
  uint64_t slots = 1;
  for (uint64_t c = cap; c; c >>= 1) {
    shift -= 1;
    slots <<= 1;
  }
  if (slots < cap * 2) {
    *fib_shift = shift - 1;
    *n_slots = slots << 1;
  } else {
    *fib_shift = shift;
    *n_slots = slots;
  }
}

int xffi_map_dense_alloc_blocks(map_object *m, uint64_t n_slots, uint32_t fib_shift) {
  uint64_t n_blocks = (n_slots + MAP_BLOCK_CAP - 1) / MAP_BLOCK_CAP;
  if (n_blocks > SIZE_MAX / MAP_BLOCK_BYTES) return xffi_error_raise_out_of_memory(); /* 32-bit targets */
  unsigned char *blocks = xffi_alloc((size_t)(n_blocks * MAP_BLOCK_BYTES));
  if (!blocks) return xffi_error_raise_out_of_memory();
  for (uint64_t b = 0; b < n_blocks; ++b) memset(blocks + b * MAP_BLOCK_BYTES, 0xFF, MAP_BLOCK_CAP);
  m->data = blocks;
  m->data_deleter = xffi_map_free_storage;
  m->slots = n_slots;
  m->size = 0;
  m->fib_shift = fib_shift;
  m->list_head = m->list_tail = MAP_NONE;
  return XFFI_OK;
}

/* ---- The insertion-order list ---- */

static inline void list_unlink(map_object *m, uint64_t i) {
  map_item *it = map_item_at(m, i);
  if (it->prev == MAP_NONE)
    m->list_head = it->next;
  else
    map_item_at(m, it->prev)->next = it->next;
  if (it->next == MAP_NONE)
    m->list_tail = it->prev;
  else
    map_item_at(m, it->next)->prev = it->prev;
}

/* Appends slot i (its item it) to the insertion order. */
static inline void list_push_back(map_object *m, uint64_t i, map_item *it) {
  uint64_t tail = m->list_tail;
  it->prev = tail;
  it->next = MAP_NONE;
  if (tail != MAP_NONE)
    map_item_at(m, tail)->next = i;
  else
    m->list_head = i;
  m->list_tail = i;
}

/* The item now at slot dst takes src's place in the list. */
static void list_replace(map_object *m, uint64_t src, uint64_t dst) {
  map_item *s = map_item_at(m, src), *d = map_item_at(m, dst);
  d->prev = s->prev;
  d->next = s->next;
  if (d->prev == MAP_NONE)
    m->list_head = dst;
  else
    map_item_at(m, d->prev)->next = dst;
  if (d->next == MAP_NONE)
    m->list_tail = dst;
  else
    map_item_at(m, d->next)->prev = dst;
}

void xffi_map_dense_move_to_end(map_object *m, uint64_t i) {
  list_unlink(m, i);
  list_push_back(m, i, map_item_at(m, i));
}

/* ---- Chains ---- */

/* xffi's load limit: a table takes keys until it is 3/4 full, then doubles
 * (tvm-ffi's fills to 99%). The chain rules do not depend on it: C++ code
 * inserting into xffi's table applies its own limit. Below 3/4 far fewer
 * home slots lie inside another key's chain (so fewer chains move to make
 * room for a head) and a chain's end almost always has a free slot near it;
 * the price is memory: 65 to 131 bytes per entry of a large table instead
 * of tvm-ffi's 50 to 99 (docs/map.md). */
static int over_load(uint64_t size, uint64_t slots) { return (size + 1) * 4 > slots * 3; }
static int is_full(const map_object *m) { return over_load(m->size, m->slots); }

/* The first empty slot reachable from i by jump 1..125: *slot and *jump. */
static int next_empty(const map_object *m, uint64_t i, uint64_t *slot, unsigned *jump) {
  const unsigned char *blocks = m->data;
  uint64_t mask = m->slots - 1;
  /* Jumps 1..15 reach the next 15 slots: their metadata bytes in a row,
   * but for the step into the next block. */
  uint64_t c = (i + 1) & mask;
  const unsigned char *meta = blocks + (c / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES + c % MAP_BLOCK_CAP;
  for (unsigned j = 1; j < MAP_BLOCK_CAP; ++j) {
    if (*meta == MAP_META_EMPTY) {
      *slot = c;
      *jump = j;
      return 1;
    }
    c = (c + 1) & mask;
    meta = c % MAP_BLOCK_CAP == 0 ? blocks + (c / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES : meta + 1;
  }
  for (unsigned j = MAP_BLOCK_CAP; j < MAP_NUM_JUMPS; ++j) {
    c = (i + xffi_map_jumps[j]) & mask;
    if (blocks[(c / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES + c % MAP_BLOCK_CAP] == MAP_META_EMPTY) {
      *slot = c;
      *jump = j;
      return 1;
    }
  }
  return 0;
}

/* The slot before i in its chain (i is not a head). */
static int find_prev(uint64_t *out, const map_object *m, uint64_t i) {
  uint64_t hash = 0;
  if (xffi_map_any_hash(&hash, &map_item_at(m, i)->key) != XFFI_OK) return XFFI_FAIL;
  uint64_t prev = map_fib_slot(hash, m->fib_shift);
  for (uint64_t steps = 0; steps <= m->slots; ++steps) {
    uint64_t next = map_wrap(m, prev + meta_jump(*map_meta(m, prev)));
    if (next == i) {
      *out = prev;
      return XFFI_OK;
    }
    prev = next;
  }
  return xffi_error_raise(XFFI_KIND_VALUE, "map: a chain of the dense table is corrupt (slot %llu unreachable)",
                          (unsigned long long)i);
}

/* Where each element of a relocated chain tail goes: its new slot and the
 * jump that links it from its predecessor. */
typedef struct relocation_plan {
  uint64_t dest[RELOCATE_MAX];
  unsigned char jump[RELOCATE_MAX];
  int n;
} relocation_plan;

/* A dry run of the relocation below: whether every element of the chain
 * tail starting at target finds an empty slot (so the real run, which
 * mutates, cannot stop half way), recording where each goes. Slots taken and
 * vacated by earlier steps are tracked in the plan and a small array; a tail
 * longer than RELOCATE_MAX is refused. */
static int plan_relocation(relocation_plan *plan, const map_object *m, uint64_t target, uint64_t w) {
  uint64_t vacated[RELOCATE_MAX];
  int n_vacated = 0;
  uint64_t r = target;
  plan->n = 0;
  for (;;) {
    if (plan->n == RELOCATE_MAX) return 0;
    int found = 0;
    for (unsigned j = 1; j < MAP_NUM_JUMPS && !found; ++j) {
      uint64_t c = map_wrap(m, w + xffi_map_jumps[j]);
      /* Free: empty now or vacated by an earlier step, and not planned for
       * another element. target (protected) is neither empty nor vacated. */
      int empty = *map_meta(m, c) == MAP_META_EMPTY;
      for (int k = 0; !empty && k < n_vacated; ++k)
        if (vacated[k] == c) empty = 1;
      for (int k = 0; empty && k < plan->n; ++k)
        if (plan->dest[k] == c) empty = 0;
      if (empty) {
        plan->dest[plan->n] = c;
        plan->jump[plan->n] = (unsigned char)j;
        plan->n += 1;
        w = c;
        found = 1;
      }
    }
    if (!found) return 0;
    if (r != target) vacated[n_vacated++] = r;
    uint64_t jump = meta_jump(*map_meta(m, r));
    if (jump == 0) return 1;
    r = map_wrap(m, r + jump);
  }
}

/* Moves the chain tail that starts at target (a body slot of another chain)
 * to the slots of the plan, each reachable from its predecessor, so that
 * target becomes free (tvm-ffi's TrySpareListHead; the first
 * vacated slot is marked protected until the new head is written). */
static void relocate_tail(map_object *m, uint64_t target, uint64_t w, const relocation_plan *plan) {
  uint64_t r = target;
  for (int k = 0; k < plan->n; ++k) {
    uint64_t dest = plan->dest[k];
    map_item *from = map_item_at(m, r), *to = map_item_at(m, dest);
    to->key = from->key;
    to->value = from->value;
    *map_meta(m, dest) = 0x80u;
    list_replace(m, r, dest);
    unsigned char r_meta = *map_meta(m, r);
    *map_meta(m, r) = k == 0 ? MAP_META_PROTECTED : MAP_META_EMPTY;
    meta_set_jump(m, w, plan->jump[k]);
    w = dest;
    r = map_wrap(m, r + meta_jump(r_meta));
  }
}

/* Puts the pair (bits moved, never failing) into slot i as a chain element
 * (meta = the given head/body bit with jump 0). */
static inline void put_item(map_object *m, uint64_t i, unsigned char meta, const xffi_any *key, const xffi_any *value) {
  unsigned char *block = (unsigned char *)m->data + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES;
  map_item *it = (map_item *)(block + MAP_BLOCK_CAP) + i % MAP_BLOCK_CAP; /* map_item_at */
  it->key = *key;
  it->value = *value;
  block[i % MAP_BLOCK_CAP] = meta;
  m->size += 1;
  list_push_back(m, i, it);
}

/* Makes the storage of t (a fresh table holding m's items, moved) m's own,
 * and frees m's old storage through its deleter. The object header is left
 * alone (other threads may be counting references). */
static void install(map_object *m, const map_object *t) {
  void *old = m->data;
  void (*old_deleter)(void *) = m->data_deleter;
  m->data = t->data;
  m->data_deleter = t->data_deleter;
  m->slots = t->slots;
  m->size = t->size;
  m->fib_shift = t->fib_shift;
  m->list_head = t->list_head;
  m->list_tail = t->list_tail;
  if (old_deleter) old_deleter(old);
}

enum { TRY_INSERTED, TRY_NEEDS_REHASH, TRY_FAILED };

/* The error of an insert into a full chain (hash flooding). */
static int refuse_long_chain(const char *fn) {
  return xffi_error_raise(XFFI_KIND_VALUE,
                          "%s: %d keys of this map share one hash chain (at most %d): refusing to insert another "
                          "(hash flooding; docs/map.md)",
                          fn, MAP_MAX_CHAIN, MAP_MAX_CHAIN);
}

/* try_insert's case of a home slot i that lies inside another chain: that
 * chain's tail moves away and the key heads its own chain at i. */
MAP_OUT_OF_LINE int insert_as_new_head(map_object *m, uint64_t i, const xffi_any *key, const xffi_any *value) {
  if (is_full(m)) return TRY_NEEDS_REHASH;
  uint64_t w = 0;
  if (find_prev(&w, m, i) != XFFI_OK) return TRY_FAILED;
  relocation_plan plan;
  if (!plan_relocation(&plan, m, i, w)) return TRY_NEEDS_REHASH;
  relocate_tail(m, i, w, &plan);
  put_item(m, i, 0x00u, key, value);
  return TRY_INSERTED;
}

/* tvm-ffi's TryInsert for a key known to be absent. limit_chain: stop with an
 * error when the key's chain already holds MAP_MAX_CHAIN keys (xffi's own
 * inserts; a rehash re-inserts without the limit, its chains only shrink).
 * end (or NULL): the end of the key's chain in m, from the caller's search. */
static int try_insert(const char *fn, map_object *m, const xffi_any *key, const xffi_any *value, uint64_t hash,
                      int limit_chain, const map_chain_end *end) {
  uint64_t i = map_fib_slot(hash, m->fib_shift);
  unsigned char meta = *map_meta(m, i);
  if (meta == MAP_META_EMPTY) {
    put_item(m, i, 0x00u, key, value);
    return TRY_INSERTED;
  }
  if (!meta_is_head(meta)) return insert_as_new_head(m, i, key, value);
  /* The key's chain: its last slot, as the search found it or walked now. */
  uint64_t length = 1;
  if (end && end->last != MAP_NONE) {
    i = end->last;
    length = end->length;
  } else {
    for (uint64_t jump; (jump = meta_jump(*map_meta(m, i))) != 0; ++length) {
      if (limit_chain && length >= MAP_MAX_CHAIN) break; /* refused below: no need to walk on */
      i = map_wrap(m, i + jump);
    }
  }
  if (limit_chain && length >= MAP_MAX_CHAIN) {
    refuse_long_chain(fn);
    return TRY_FAILED;
  }
  if (is_full(m)) return TRY_NEEDS_REHASH;
  uint64_t empty = 0;
  unsigned jump = 0;
  if (!next_empty(m, i, &empty, &jump)) return TRY_NEEDS_REHASH;
  put_item(m, empty, 0x80u, key, value);
  meta_set_jump(m, i, jump);
  return TRY_INSERTED;
}

/* Slot i of t: its metadata byte and its item (map_meta and map_item_at,
 * the block found once). */
static inline map_item *slot_of(const map_object *t, uint64_t i, unsigned char **meta) {
  unsigned char *block = (unsigned char *)t->data + (i / MAP_BLOCK_CAP) * MAP_BLOCK_BYTES;
  *meta = block + i % MAP_BLOCK_CAP;
  return (map_item *)(block + MAP_BLOCK_CAP) + i % MAP_BLOCK_CAP;
}

/* The first pass of rebuild for one pair: it heads the chain of its home
 * slot in t if no other pair took that slot first. */
static inline void claim_home(map_object *t, const xffi_any *key, const xffi_any *value, uint64_t hash) {
  unsigned char *meta;
  map_item *to = slot_of(t, map_fib_slot(hash, t->fib_shift), &meta);
  if (*meta != MAP_META_EMPTY) return;
  *meta = 0x00u;
  to->key = *key;
  to->value = *value;
}

/* The live slots of m's block starting at slot `first`: the block's slot
 * count (the last block of a table under 16 slots has fewer). */
static inline uint64_t slots_in_block(const map_object *m, uint64_t first) {
  return m->slots - first < MAP_BLOCK_CAP ? m->slots - first : MAP_BLOCK_CAP;
}
static inline int slot_is_live(unsigned char meta) { return meta != MAP_META_EMPTY && meta != MAP_META_PROTECTED; }

/* The second pass of a rebuild for one pair (key, value, hash), after every
 * pair's claim_home: unless it heads its home's chain, it goes after the end
 * of that chain; then it joins the insertion order after *last (the item
 * linked last, NULL for none), and becomes *last. 0 when no free slot is
 * within the chain end's jumps (t is too small). */
MAP_KEY_INLINE int place_in_order(map_object *t, const xffi_any *key, const xffi_any *value, uint64_t hash,
                                  map_item **last) {
  uint64_t at = map_fib_slot(hash, t->fib_shift);
  unsigned char *meta;
  map_item *to = slot_of(t, at, &meta);
  if (!map_same_bits(&to->key, key)) {
    for (uint64_t jump; (jump = meta_jump(*meta)) != 0;) to = slot_of(t, at = map_wrap(t, at + jump), &meta);
    uint64_t empty = 0;
    unsigned jump = 0;
    if (!next_empty(t, at, &empty, &jump)) return 0;
    *meta = (unsigned char)(*meta | jump); /* the chain's end had jump 0 */
    to = slot_of(t, at = empty, &meta);
    *meta = 0x80u;
    to->key = *key;
    to->value = *value;
  }
  to->prev = t->list_tail;
  to->next = MAP_NONE;
  if (*last)
    (*last)->next = at;
  else
    t->list_head = at;
  t->list_tail = at;
  *last = to;
  t->size += 1;
  return 1;
}

/* hashes[i]: the AnyHash of the key in slot i of m, for every live slot
 * (walked block by block: no list walk). XFFI_FAIL when a custom hash
 * failed (raised). */
static int hash_items(uint64_t *hashes, const map_object *m) {
  const unsigned char *block = m->data;
  for (uint64_t first = 0; first < m->slots; first += MAP_BLOCK_CAP, block += MAP_BLOCK_BYTES) {
    const map_item *items = (const map_item *)(block + MAP_BLOCK_CAP);
    for (uint64_t k = 0, n = slots_in_block(m, first); k < n; ++k)
      if (slot_is_live(block[k]) && map_key_hash(&hashes[first + k], &items[k].key) != XFFI_OK) return XFFI_FAIL;
  }
  return XFFI_OK;
}

/* Fills the fresh, empty table t with m's items (bits copied) and then the
 * new pair (key, value, hash), in m's insertion order; hashes: hash_items'
 * for m. Keys are distinct, so none is compared with another (a key is told
 * from the others by its bits). Two passes: every home slot is taken by one
 * of the keys that call it home, as the head of their chain; then, in
 * insertion order, each other key is appended to the chain of its home,
 * into a slot that no key calls home (every home holds a head by then), so
 * no chain ever moves, and the insertion order is linked. The result obeys
 * tvm-ffi's chain rules, so its code reads and changes it as its own, though
 * the bytes may differ from those of tvm-ffi's key-by-key rehash.
 * TRY_NEEDS_REHASH: t is too small (the load limit, or a chain end with no
 * free slot within its jumps), and is garbage. m is never changed. */
static int rebuild(map_object *t, const map_object *m, const uint64_t *hashes, const xffi_any *key,
                   const xffi_any *value, uint64_t hash) {
  if (over_load(m->size, t->slots)) return TRY_NEEDS_REHASH;
  /* Heads, in slot order. */
  const unsigned char *block = m->data;
  for (uint64_t first = 0; first < m->slots; first += MAP_BLOCK_CAP, block += MAP_BLOCK_BYTES) {
    const map_item *items = (const map_item *)(block + MAP_BLOCK_CAP);
    for (uint64_t k = 0, n = slots_in_block(m, first); k < n; ++k)
      if (slot_is_live(block[k])) claim_home(t, &items[k].key, &items[k].value, hashes[first + k]);
  }
  claim_home(t, key, value, hash);
  /* The other keys, and the order. */
  map_item *last = NULL;
  for (uint64_t i = m->size ? m->list_head : MAP_NONE; i != MAP_NONE; i = map_item_at(m, i)->next) {
    const map_item *it = map_item_at(m, i);
    if (!place_in_order(t, &it->key, &it->value, hashes[i], &last)) return TRY_NEEDS_REHASH;
  }
  return place_in_order(t, key, value, hash, &last) ? TRY_INSERTED : TRY_NEEDS_REHASH;
}

/* Slots whose hashes a rehash keeps on the stack; more take a heap array. */
#define REHASH_STACK_SLOTS 64

/* The rehash: a table of twice the slots (again until everything fits),
 * filled by rebuild. Each key is hashed once, before anything changes. */
static int rehash_insert(const char *fn, map_object *m, xffi_any *key, xffi_any *value, uint64_t hash) {
  uint64_t stack_hashes[REHASH_STACK_SLOTS];
  uint64_t *hashes = m->slots <= REHASH_STACK_SLOTS ? stack_hashes : xffi_alloc((size_t)m->slots * sizeof(uint64_t));
  if (!hashes) return xffi_error_raise_out_of_memory();
  int status = hash_items(hashes, m);
  /* A table emptied by tvm-ffi's ReleaseMemory (0 slots) starts again at 16. */
  uint64_t n_slots = m->slots ? m->slots * 2 : MAP_BLOCK_CAP, shift = m->slots ? m->fib_shift - 1 : 60;
  for (; status == XFFI_OK; n_slots *= 2, shift -= 1) {
    /* Growth is capped: past MAP_MAX_SLOTS, or when a table that is mostly
     * empty cannot place a key, the keys collide on purpose. */
    if (n_slots > MAP_MAX_SLOTS || (n_slots >= (UINT64_C(1) << 17) && m->size + 1 < n_slots / 32)) {
      status = xffi_error_raise(XFFI_KIND_VALUE,
                                "%s: the map cannot place its %llu keys in %llu slots (colliding keys; docs/map.md)",
                                fn, (unsigned long long)(m->size + 1), (unsigned long long)n_slots);
      break;
    }
    map_object t;
    memset(&t, 0, sizeof(t));
    status = xffi_map_dense_alloc_blocks(&t, n_slots, (uint32_t)shift);
    if (status != XFFI_OK) break;
    if (rebuild(&t, m, hashes, key, value, hash) == TRY_INSERTED) {
      install(m, &t); /* the old items were moved: only memory freed */
      *key = xffi_any_none();
      *value = xffi_any_none();
      break;
    }
    xffi_map_free_storage(t.data); /* bit copies only: nothing to release */
  }
  if (hashes != stack_hashes) xffi_free(hashes);
  return status;
}

int xffi_map_dense_insert_new(const char *fn, map_object *m, xffi_any *key, xffi_any *value, uint64_t hash,
                              const map_chain_end *end) {
  int rc = m->slots == 0 ? TRY_NEEDS_REHASH : try_insert(fn, m, key, value, hash, 1, end);
  if (rc == TRY_INSERTED) {
    *key = xffi_any_none();
    *value = xffi_any_none();
    return XFFI_OK;
  }
  if (rc == TRY_FAILED) return XFFI_FAIL;
  return rehash_insert(fn, m, key, value, hash);
}

int xffi_map_dense_from_small(map_object *m, uint64_t cap) {
  uint64_t n = 0;
  uint32_t shift = 0;
  xffi_map_dense_table_size(cap, &shift, &n);
  map_object t;
  memset(&t, 0, sizeof(t));
  if (xffi_map_dense_alloc_blocks(&t, n, shift) != XFFI_OK) return XFFI_FAIL;
  const map_pair *pairs = map_small_pairs(m);
  for (uint64_t k = 0; k < m->size; ++k) {
    uint64_t h = 0;
    /* A small table of distinct keys always fits a 16-slot table. */
    if (xffi_map_any_hash(&h, &pairs[k].key) != XFFI_OK ||
        try_insert("", &t, &pairs[k].key, &pairs[k].value, h, 0, NULL) != TRY_INSERTED) {
      xffi_map_free_storage(t.data);
      return XFFI_FAIL;
    }
  }
  install(m, &t); /* the pairs were moved: only memory (or an emptied small map) freed */
  return XFFI_OK;
}

int xffi_map_dense_remove_at(map_object *m, uint64_t i, xffi_any *key_out, xffi_any *value_out) {
  unsigned char meta = *map_meta(m, i);
  map_item *it = map_item_at(m, i);
  if (meta_jump(meta) == 0) {
    uint64_t prev = MAP_NONE;
    if (!meta_is_head(meta) && find_prev(&prev, m, i) != XFFI_OK) return XFFI_FAIL;
    *key_out = it->key;
    *value_out = it->value;
    if (prev != MAP_NONE) meta_set_jump(m, prev, 0);
    list_unlink(m, i);
    *map_meta(m, i) = MAP_META_EMPTY;
  } else {
    /* The chain's last element fills the hole: no tombstones. */
    uint64_t last = i, prev = i;
    for (uint64_t jump; (jump = meta_jump(*map_meta(m, last))) != 0;) {
      prev = last;
      last = map_wrap(m, last + jump);
    }
    *key_out = it->key;
    *value_out = it->value;
    list_unlink(m, i);
    map_item *l = map_item_at(m, last);
    it->key = l->key;
    it->value = l->value;
    list_replace(m, last, i);
    *map_meta(m, last) = MAP_META_EMPTY;
    meta_set_jump(m, prev, 0);
  }
  m->size -= 1;
  return XFFI_OK;
}

void xffi_map_dense_release_items(map_object *m) {
  /* Block by block: each metadata byte beside its item, no slot arithmetic. */
  unsigned char *block = m->data;
  for (uint64_t first = 0; first < m->slots; first += MAP_BLOCK_CAP, block += MAP_BLOCK_BYTES) {
    map_item *items = (map_item *)(block + MAP_BLOCK_CAP);
    uint64_t in_block = m->slots - first < MAP_BLOCK_CAP ? m->slots - first : MAP_BLOCK_CAP;
    for (uint64_t k = 0; k < in_block; ++k) {
      if (block[k] == MAP_META_EMPTY || block[k] == MAP_META_PROTECTED) continue;
      block[k] = MAP_META_EMPTY;
      xffi_any_release(&items[k].key);
      xffi_any_release(&items[k].value);
    }
  }
  m->size = 0;
  m->list_head = m->list_tail = MAP_NONE;
}
