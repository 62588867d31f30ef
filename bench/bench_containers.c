/* Container benchmarks (issue 4, sequences and maps): Map/Dict lookup of
 * string and int keys, Dict insert of int keys (and bytes per entry at
 * 1,000,000; and of 40,000 keys chosen to collide under the old unkeyed
 * hash, issue 12, or to share one chain of tvm-ffi's hash), Array get and push. Each operation is measured against a
 * baseline doing the physical minimum of the same work in plain C, in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xffi/array.h>
#include <xffi/map.h>
#include <xffi/xffi.h>
#include <xffi/sys/array.h>
#include <xffi/sys/string.h>

#include "bench_harness.h"

#define NKEYS 1000

/* ---- Lookup of 1,000 string keys (hits) ---- */

/* The baseline: a bare open-addressing table over the same bytes, hashed
 * with the same function, compared with memcmp. */
typedef struct plain_table {
  uint32_t slots[2048]; /* key index + 1, 0 = empty */
  const char *key[NKEYS];
  size_t len[NKEYS];
  int64_t value[NKEYS];
} plain_table;

typedef struct lookup_ctx {
  plain_table *plain;
  xffi_object *map;
  xffi_object *dict;
  xffi_any probe[NKEYS]; /* String objects distinct from the stored keys */
  char text[NKEYS][24];
  xffi_any c_str_probe[NKEYS]; /* borrowed C strings (views), the same bytes */
} lookup_ctx;

/* 1,000 keys of 6 bytes, stored and probed as small strings (inline). */
typedef struct small_ctx {
  plain_table *plain;
  xffi_object *map;
  xffi_any probe[NKEYS];
  char text[NKEYS][8];
} small_ctx;

static void plain_insert(plain_table *t, int k) {
  uint64_t h = xffi_bytes_hash(t->key[k], t->len[k]);
  uint32_t i = (uint32_t)h & 2047;
  while (t->slots[i]) i = (i + 1) & 2047;
  t->slots[i] = (uint32_t)k + 1;
}

static void __attribute__((noinline)) lookup_baseline(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  plain_table *t = c->plain;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    xffi_byte_array key = xffi_string_cell_of_unchecked(c->probe[j].v_obj);
    uint64_t h = xffi_bytes_hash(key.data, key.size);
    for (uint32_t i = (uint32_t)h & 2047;; i = (i + 1) & 2047) {
      uint32_t s = t->slots[i];
      if (s && t->len[s - 1] == key.size && memcmp(t->key[s - 1], key.data, key.size) == 0) {
        sum += t->value[s - 1];
        break;
      }
    }
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

/* The baseline for C string probes: the bare table, with the strlen the
 * lookup needs. */
static void __attribute__((noinline)) lookup_c_str_baseline(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  plain_table *t = c->plain;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const char *key = c->c_str_probe[j].v_c_str;
    size_t size = strlen(key);
    uint64_t h = xffi_bytes_hash(key, size);
    for (uint32_t i = (uint32_t)h & 2047;; i = (i + 1) & 2047) {
      uint32_t s = t->slots[i];
      if (s && t->len[s - 1] == size && memcmp(t->key[s - 1], key, size) == 0) {
        sum += t->value[s - 1];
        break;
      }
    }
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_map_c_str(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const xffi_any *v;
    if (xffi_map_lookup(&v, c->map, &c->c_str_probe[j]) != XFFI_OK || !v) abort();
    sum += v->v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

/* The baseline for small-string probes: the bare table over the same bytes,
 * read from the probe Any. */
static void __attribute__((noinline)) lookup_small_baseline(void *ctx, uint64_t n) {
  small_ctx *c = ctx;
  plain_table *t = c->plain;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const xffi_any *key = &c->probe[j];
    size_t size = key->small_len;
    uint64_t h = xffi_bytes_hash(key->v_small, size);
    for (uint32_t i = (uint32_t)h & 2047;; i = (i + 1) & 2047) {
      uint32_t s = t->slots[i];
      if (s && t->len[s - 1] == size && memcmp(t->key[s - 1], key->v_small, size) == 0) {
        sum += t->value[s - 1];
        break;
      }
    }
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_map_small(void *ctx, uint64_t n) {
  small_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const xffi_any *v;
    if (xffi_map_lookup(&v, c->map, &c->probe[j]) != XFFI_OK || !v) abort();
    sum += v->v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_map(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const xffi_any *v;
    if (xffi_map_lookup(&v, c->map, &c->probe[j]) != XFFI_OK || !v) abort();
    sum += v->v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_map_get(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    xffi_any v;
    if (xffi_map_get(&v, c->map, &c->probe[j]) != XFFI_OK) abort();
    sum += v.v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_dict(void *ctx, uint64_t n) {
  lookup_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    const xffi_any *v;
    if (xffi_map_lookup(&v, c->dict, &c->probe[j]) != XFFI_OK || !v) abort();
    sum += v->v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

/* ---- Insert of int keys into a fresh table, then free ---- */

/* The baseline: a bare int64 -> int64 open-addressing table, doubling. */
static void __attribute__((noinline)) insert_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  uint64_t cap = 16, size = 0;
  int64_t *keys = calloc(cap, sizeof(int64_t)), *vals = calloc(cap, sizeof(int64_t));
  unsigned char *used = calloc(cap, 1);
  for (uint64_t k = 0; k < n; ++k) {
    if ((size + 1) * 4 > cap * 3) { /* grow and rehash */
      uint64_t ncap = cap * 2;
      int64_t *nk = calloc(ncap, sizeof(int64_t)), *nv = calloc(ncap, sizeof(int64_t));
      unsigned char *nu = calloc(ncap, 1);
      for (uint64_t i = 0; i < cap; ++i) {
        if (!used[i]) continue;
        uint64_t h = ((uint64_t)keys[i] * UINT64_C(0x9e3779b97f4a7c15)) >> 20;
        uint64_t j = h & (ncap - 1);
        while (nu[j]) j = (j + 1) & (ncap - 1);
        nu[j] = 1, nk[j] = keys[i], nv[j] = vals[i];
      }
      free(keys), free(vals), free(used);
      keys = nk, vals = nv, used = nu, cap = ncap;
    }
    int64_t key = (int64_t)(k * 2654435761u);
    uint64_t h = ((uint64_t)key * UINT64_C(0x9e3779b97f4a7c15)) >> 20;
    uint64_t j = h & (cap - 1);
    while (used[j] && keys[j] != key) j = (j + 1) & (cap - 1);
    if (!used[j]) size++;
    used[j] = 1, keys[j] = key, vals[j] = (int64_t)k;
  }
  BENCH_KEEP(size);
  free(keys), free(vals), free(used);
}

static void __attribute__((noinline)) insert_dict(void *ctx, uint64_t n) {
  (void)ctx;
  xffi_object *dict;
  if (xffi_dict_new(&dict, NULL, NULL, 0) != XFFI_OK) abort();
  for (uint64_t k = 0; k < n; ++k) {
    xffi_any key = xffi_any_int((int64_t)(k * 2654435761u)), value = xffi_any_int((int64_t)k);
    if (xffi_dict_set(dict, &key, &value) != XFFI_OK) abort();
  }
  xffi_object_dec_ref(dict);
}

/* ---- Lookup of 1,000 int keys (hits) ---- */

typedef struct int_ctx {
  int64_t keys[NKEYS];
  int64_t plain_keys[2048], plain_vals[2048];
  unsigned char plain_used[2048];
  xffi_object *dict;
} int_ctx;

static inline uint64_t plain_int_hash(int64_t key) { return ((uint64_t)key * UINT64_C(0x9e3779b97f4a7c15)) >> 20; }

/* The baseline: the bare int64 -> int64 table of insert_baseline. */
static void __attribute__((noinline)) lookup_int_baseline(void *ctx, uint64_t n) {
  int_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    int64_t key = c->keys[j];
    for (uint64_t i = plain_int_hash(key) & 2047;; i = (i + 1) & 2047)
      if (c->plain_used[i] && c->plain_keys[i] == key) {
        sum += c->plain_vals[i];
        break;
      }
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) lookup_int_dict(void *ctx, uint64_t n) {
  int_ctx *c = ctx;
  int64_t sum = 0;
  uint32_t j = 0;
  for (uint64_t it = 0; it < n; ++it) {
    xffi_any key = xffi_any_int(c->keys[j]);
    const xffi_any *found;
    if (xffi_map_lookup(&found, c->dict, &key) != XFFI_OK || !found) abort();
    sum += found->v_int64;
    if (++j == NKEYS) j = 0;
  }
  BENCH_KEEP(sum);
}

/* ---- Insert of 40,000 int keys chosen to collide under the old hash ----
 * The old int hash was an invertible mix (x ^= x >> 32, times an odd
 * constant, twice, then x ^= x >> 32) of key + golden ratio; inverting it
 * gives keys whose hashes share the low 32 bits, hence one home slot. Each
 * iteration inserts the next key; every 40,000 a fresh Dict starts. The
 * baseline inserts as many ordinary keys the same way. */

#define NFLOOD 40000

typedef struct flood_ctx {
  int64_t keys[NFLOOD];
} flood_ctx;

static uint64_t old_unmix(uint64_t h) {
  const uint64_t mul = UINT64_C(0xd6e8feb86659fd93);
  uint64_t inv = mul; /* the inverse modulo 2^64 by Newton's iteration */
  for (int i = 0; i < 5; ++i) inv *= 2 - mul * inv;
  h ^= h >> 32;
  h *= inv;
  h ^= h >> 32;
  h *= inv;
  return h ^ (h >> 32);
}

static void insert_keys_in_blocks(const int64_t *keys, uint64_t n) {
  xffi_object *dict = NULL;
  for (uint64_t k = 0; k < n; ++k) {
    if (k % NFLOOD == 0) {
      xffi_object_dec_ref(dict);
      if (xffi_dict_new(&dict, NULL, NULL, 0) != XFFI_OK) abort();
    }
    xffi_any key = xffi_any_int(keys[k % NFLOOD]), value = xffi_any_int((int64_t)k);
    if (xffi_dict_set(dict, &key, &value) != XFFI_OK) abort();
  }
  xffi_object_dec_ref(dict);
}

static void __attribute__((noinline)) flood_ordinary(void *ctx, uint64_t n) {
  (void)ctx;
  static int64_t keys[NFLOOD];
  for (int i = 0; i < NFLOOD; ++i) keys[i] = (int64_t)((uint64_t)i * 2654435761u);
  insert_keys_in_blocks(keys, n);
}

static void __attribute__((noinline)) flood_chosen(void *ctx, uint64_t n) {
  insert_keys_in_blocks(((flood_ctx *)ctx)->keys, n);
}

/* ---- Insert of 40,000 int keys chosen to share one chain of tvm-ffi's hash ----
 * The Map's hash is tvm-ffi's and cannot be keyed: key i has the hash h
 * with FIB * h = 0x5eed1234 << 32 + i, so every key's home slot is the same
 * at every table size (tests/c/container/test_map_flooding.c builds the same keys).
 * Every key is tried, as a careless caller would: the inserts past the
 * chain bound are refused (the error is dropped) and each costs one walk
 * of the chain. The baseline inserts as many ordinary keys the same way. */

static int64_t chain_flood_key(int i) {
  const uint64_t fib = UINT64_C(11400714819323198485);
  uint64_t inv = fib; /* the inverse modulo 2^64 by Newton's iteration */
  for (int k = 0; k < 5; ++k) inv *= 2 - fib * inv;
  uint64_t h = (UINT64_C(0x5eed1234) << 32 | (uint64_t)i) * inv;
  return (int64_t)((h ^ 1) - UINT64_C(0x9e3779b9) - 64); /* combine(1, v) = h, solved for v */
}

static void __attribute__((noinline)) chain_flood(void *ctx, uint64_t n) {
  const int64_t *keys = ((const flood_ctx *)ctx)->keys;
  xffi_object *dict = NULL;
  for (uint64_t k = 0; k < n; ++k) {
    if (k % NFLOOD == 0) {
      xffi_object_dec_ref(dict);
      if (xffi_dict_new(&dict, NULL, NULL, 0) != XFFI_OK) abort();
    }
    xffi_any key = xffi_any_int(keys[k % NFLOOD]), value = xffi_any_int((int64_t)k);
    if (xffi_dict_set(dict, &key, &value) != XFFI_OK) xffi_object_dec_ref(xffi_error_move_raised());
  }
  xffi_object_dec_ref(dict);
}

/* ---- Array get and push ---- */

typedef struct seq_ctx {
  xffi_any plain[1024];
  xffi_object *array;
  xffi_object *list; /* the same elements in a List */
} seq_ctx;

static void __attribute__((noinline)) get_baseline(void *ctx, uint64_t n) {
  seq_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    sum += c->plain[i & 1023].v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) get_inline(void *ctx, uint64_t n) {
  seq_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    BENCH_CLOBBER();
    sum += xffi_seq_items_unchecked(c->array)[i & 1023].v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) get_checked(void *ctx, uint64_t n) {
  seq_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v;
    if (xffi_array_get(&v, c->array, (int64_t)(i & 1023)) != XFFI_OK) abort();
    sum += v.v_int64;
  }
  BENCH_KEEP(sum);
}

static void __attribute__((noinline)) get_list(void *ctx, uint64_t n) {
  seq_ctx *c = ctx;
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v;
    if (xffi_array_get(&v, c->list, (int64_t)(i & 1023)) != XFFI_OK) abort();
    sum += v.v_int64;
  }
  BENCH_KEEP(sum);
}

/* Push n ints onto a fresh sequence, then free it. */
static void __attribute__((noinline)) push_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  size_t cap = 4, size = 0;
  xffi_any *data = malloc(cap * sizeof(xffi_any));
  for (uint64_t i = 0; i < n; ++i) {
    if (size == cap) data = realloc(data, (cap *= 2) * sizeof(xffi_any));
    data[size++] = xffi_any_int((int64_t)i);
  }
  BENCH_KEEP(data);
  free(data);
}

static void __attribute__((noinline)) push_array(void *ctx, uint64_t n) {
  (void)ctx;
  xffi_object *array;
  if (xffi_array_new_with_capacity(&array, 0) != XFFI_OK) abort();
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v = xffi_any_int((int64_t)i);
    if (xffi_array_push(&array, &v) != XFFI_OK) abort();
  }
  xffi_object_dec_ref(array);
}

/* Release of nested containers: n one-int Arrays in a List, then the List
 * freed, so each inner Array's deleter runs inside the List's and is parked
 * (the bounded-stack release path); the baseline mallocs and frees n blocks. */
static void __attribute__((noinline)) nested_release_baseline(void *ctx, uint64_t n) {
  (void)ctx;
  void **blocks = malloc(n * sizeof(void *));
  for (uint64_t i = 0; i < n; ++i) {
    blocks[i] = malloc(48);
    BENCH_KEEP(blocks[i]);
  }
  for (uint64_t i = 0; i < n; ++i) free(blocks[i]);
  free(blocks);
}

static void __attribute__((noinline)) nested_release_list(void *ctx, uint64_t n) {
  (void)ctx;
  xffi_object *list;
  if (xffi_list_new_with_capacity(&list, (int64_t)n) != XFFI_OK) abort();
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any one = xffi_any_int((int64_t)i);
    xffi_object *inner;
    if (xffi_array_new(&inner, &one, 1) != XFFI_OK) abort();
    xffi_any item = xffi_any_object(inner);
    if (xffi_list_push(list, &item) != XFFI_OK) abort();
    xffi_object_dec_ref(inner);
  }
  xffi_object_dec_ref(list);
}

static void __attribute__((noinline)) push_list(void *ctx, uint64_t n) {
  (void)ctx;
  xffi_object *list;
  if (xffi_list_new_with_capacity(&list, 0) != XFFI_OK) abort();
  for (uint64_t i = 0; i < n; ++i) {
    xffi_any v = xffi_any_int((int64_t)i);
    if (xffi_list_push(list, &v) != XFFI_OK) abort();
  }
  xffi_object_dec_ref(list);
}

/* ---- 1,000,000 int keys: ns per insert and bytes per entry (measured once) ---- */

static void measure_million(void) {
  const int64_t n = 1000000;
  uint64_t t0 = bench_now_ns();
  insert_baseline(NULL, (uint64_t)n);
  uint64_t t1 = bench_now_ns();
  bench_record("insert 1,000,000 int keys (once)", "baseline", (double)(t1 - t0) / (double)n, -1, -1,
               "open addressing int64->int64, 75% load");
  xffi_object *dict;
  if (xffi_dict_new(&dict, NULL, NULL, 0) != XFFI_OK) abort();
  uint64_t m0 = bench_malloc_count();
  t0 = bench_now_ns();
  for (int64_t k = 0; k < n; ++k) {
    xffi_any key = xffi_any_int((int64_t)((uint64_t)k * 2654435761u)), value = xffi_any_int(k);
    if (xffi_dict_set(dict, &key, &value) != XFFI_OK) abort();
  }
  t1 = bench_now_ns();
  uint64_t m1 = bench_malloc_count();
  size_t bytes = 0;
  if (xffi_map_memory_bytes(&bytes, dict) != XFFI_OK) abort();
  char note[96];
  snprintf(note, sizeof(note), "%.1f bytes/entry (Anys included)", (double)bytes / (double)n);
  bench_record("insert 1,000,000 int keys (once)", "xffi-dict", (double)(t1 - t0) / (double)n, -1,
               (double)(m1 - m0) / (double)n, note);
  printf("dict of %lld int keys: %zu bytes, %.2f bytes per entry\n", (long long)n, bytes, (double)bytes / (double)n);
  xffi_object_dec_ref(dict);
}

int main(int argc, char **argv) {
  bench_init(argc, argv);
  int child = 0;
  for (int i = 1; i < argc; ++i) child |= strcmp(argv[i], "--child") == 0;

  /* Lookup tables: the stored keys are String objects; the probes are other
   * String objects with the same bytes (no pointer-equality shortcut). */
  static lookup_ctx lc;
  static plain_table pt;
  lc.plain = &pt;
  if (xffi_map_new(&lc.map, NULL, NULL, 0) != XFFI_OK || xffi_dict_new(&lc.dict, NULL, NULL, 0) != XFFI_OK) abort();
  for (int k = 0; k < NKEYS; ++k) {
    snprintf(lc.text[k], sizeof(lc.text[k]), "key/%04d/name", k);
    size_t len = strlen(lc.text[k]);
    xffi_any key = xffi_any_c_str(lc.text[k]), value = xffi_any_int(k);
    if (xffi_map_set(&lc.map, &key, &value) != XFFI_OK || xffi_dict_set(lc.dict, &key, &value) != XFFI_OK) abort();
    xffi_object *probe;
    if (xffi_string_new(&probe, lc.text[k], len) != XFFI_OK) abort();
    lc.probe[k] = xffi_any_object(probe);
    lc.c_str_probe[k] = xffi_any_c_str(lc.text[k]);
    pt.key[k] = lc.text[k];
    pt.len[k] = len;
    pt.value[k] = k;
    plain_insert(&pt, k);
  }
  bench_case lookups[] = {
      {"baseline", lookup_baseline, &lc},
      {"xffi-map-lookup", lookup_map, &lc},
      {"xffi-map-get", lookup_map_get, &lc},
      {"xffi-dict-lookup", lookup_dict, &lc},
  };
  bench_op("lookup hit, 1,000 string keys (13 B)", lookups, 4);

  bench_case c_str_lookups[] = {
      {"baseline", lookup_c_str_baseline, &lc},
      {"xffi-map-lookup", lookup_map_c_str, &lc},
  };
  bench_op("lookup hit, 1,000 string keys (13 B), C-string probe", c_str_lookups, 2);

  /* Short keys: stored as small strings (a C string of at most 7 bytes is
   * copied in as one), probed with small strings. */
  static small_ctx sm;
  static plain_table spt;
  sm.plain = &spt;
  if (xffi_map_new(&sm.map, NULL, NULL, 0) != XFFI_OK) abort();
  for (int k = 0; k < NKEYS; ++k) {
    snprintf(sm.text[k], sizeof(sm.text[k]), "k%05d", k);
    xffi_any key = xffi_any_c_str(sm.text[k]), value = xffi_any_int(k);
    if (xffi_map_set(&sm.map, &key, &value) != XFFI_OK) abort();
    if (xffi_any_from_str(&sm.probe[k], sm.text[k], 6) != XFFI_OK || sm.probe[k].type_index != XFFI_TYPE_SMALL_STR)
      abort();
    spt.key[k] = sm.text[k];
    spt.len[k] = 6;
    spt.value[k] = k;
    plain_insert(&spt, k);
  }
  bench_case small_lookups[] = {
      {"baseline", lookup_small_baseline, &sm},
      {"xffi-map-lookup", lookup_map_small, &sm},
  };
  bench_op("lookup hit, 1,000 small-string keys (6 B)", small_lookups, 2);

  bench_case inserts[] = {{"baseline", insert_baseline, NULL}, {"xffi-dict", insert_dict, NULL}};
  bench_op("insert int keys (fresh table, freed)", inserts, 2);

  static int_ctx ic;
  if (xffi_dict_new(&ic.dict, NULL, NULL, 0) != XFFI_OK) abort();
  for (int k = 0; k < NKEYS; ++k) {
    ic.keys[k] = (int64_t)((uint64_t)k * 2654435761u);
    xffi_any key = xffi_any_int(ic.keys[k]), value = xffi_any_int(k);
    if (xffi_dict_set(ic.dict, &key, &value) != XFFI_OK) abort();
    uint64_t i = plain_int_hash(ic.keys[k]) & 2047;
    while (ic.plain_used[i]) i = (i + 1) & 2047;
    ic.plain_used[i] = 1, ic.plain_keys[i] = ic.keys[k], ic.plain_vals[i] = k;
  }
  bench_case int_lookups[] = {{"baseline", lookup_int_baseline, &ic}, {"xffi-dict-lookup", lookup_int_dict, &ic}};
  bench_op("lookup hit, 1,000 int keys", int_lookups, 2);

  static flood_ctx fc;
  for (int i = 0; i < NFLOOD; ++i)
    fc.keys[i] = (int64_t)(old_unmix(((uint64_t)(i + 1) << 32) | 0x5eed1234u) - UINT64_C(0x9e3779b97f4a7c15));
  bench_case floods[] = {{"ordinary keys", flood_ordinary, NULL}, {"xffi-dict", flood_chosen, &fc}};
  bench_op("insert 40,000 int keys colliding under the old hash", floods, 2);

  static flood_ctx chain_fc;
  for (int i = 0; i < NFLOOD; ++i) chain_fc.keys[i] = chain_flood_key(i);
  bench_case chain_floods[] = {{"ordinary keys", flood_ordinary, NULL}, {"xffi-dict", chain_flood, &chain_fc}};
  bench_set_iteration_multiple(NFLOOD); /* whole runs of 40,000 inserts */
  bench_op("insert 40,000 ints on one tvm-ffi hash chain, all tried", chain_floods, 2);
  bench_set_iteration_multiple(1);

  static seq_ctx sc;
  if (xffi_array_new_with_capacity(&sc.array, 1024) != XFFI_OK) abort();
  for (int i = 0; i < 1024; ++i) {
    sc.plain[i] = xffi_any_int(i);
    if (xffi_array_push(&sc.array, &sc.plain[i]) != XFFI_OK) abort();
  }
  if (xffi_list_slice(&sc.list, sc.array, 0, 1024) != XFFI_OK) abort();
  bench_case gets[] = {{"baseline", get_baseline, &sc},
                       {"xffi-inline", get_inline, &sc},
                       {"xffi-array-get", get_checked, &sc},
                       {"xffi-list-get", get_list, &sc}};
  bench_op("array get (int element)", gets, 4);

  bench_case pushes[] = {
      {"baseline", push_baseline, NULL}, {"xffi-array", push_array, NULL}, {"xffi-list", push_list, NULL}};
  bench_op("push int (fresh sequence, freed)", pushes, 3);

  bench_case nested_releases[] = {{"baseline", nested_release_baseline, NULL},
                                  {"xffi-list", nested_release_list, NULL}};
  bench_op("release a List of one-int Arrays (per Array)", nested_releases, 2);

  if (!child) measure_million();

  for (int k = 0; k < NKEYS; ++k) xffi_object_dec_ref(lc.probe[k].v_obj);
  xffi_object_dec_ref(lc.map);
  xffi_object_dec_ref(sm.map);
  xffi_object_dec_ref(lc.dict);
  xffi_object_dec_ref(ic.dict);
  xffi_object_dec_ref(sc.array);
  xffi_object_dec_ref(sc.list);
  return bench_finish();
}
