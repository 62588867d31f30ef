/* c/func_registry.c: the process-wide registry of global functions.
 *
 * Design
 * ------
 * Readers (xffi_func_global_get) are lock-free and write only memory of their
 * own thread; writers (register, remove) are serialised by one mutex.
 *
 * - The table is open addressing with linear probing over an array of
 *   pointers to immutable entries { hash, function, name }. An entry is never
 *   changed after it is published: replacing a function publishes a new
 *   entry, removing one stores a tombstone in its slot (so probe chains that
 *   pass through it stay intact for readers in flight). The table is reached
 *   through one atomic pointer; growing it (or sweeping tombstones) builds a
 *   new table that shares the entries and publishes it.
 *
 * - Reclamation (when can an old table, a removed entry and the registry's
 *   reference to its function be released?) uses a grace period, as in RCU.
 *   Each thread that looks names up owns a reader record on its own cache
 *   line, holding a sequence number it makes odd on entering a lookup and
 *   even on leaving it. A writer first unpublishes (stores the tombstone or
 *   the new table), then scans every record and, for each record found odd,
 *   waits until its number changes. Both the reader's "enter" store and the
 *   writer's unpublishing stores are sequentially consistent, as are the
 *   loads that follow them, so in the single total order either the reader
 *   entered after the unpublish (and cannot see the old pointer), or the
 *   writer sees the reader inside and waits for it to leave; leaving is a
 *   release store the writer acquires, so everything the reader did with the
 *   old entry, including taking its own reference to the function, happens
 *   before the writer releases anything. So a function returned by a lookup
 *   is never freed between being found and being inc-ref'd, with no reader
 *   counter shared between threads and nothing leaked: unlike "keep retired
 *   tables until exit", memory stays bounded under endless register/remove.
 *   Writers wait only for lookups in flight, which are a few dozen
 *   instructions and never block.
 *
 * - The registry's references are released after the mutex is dropped, so a
 *   finalizer may itself use the registry.
 *
 * - Cache lines. A lookup writes only its own reader record and the
 *   reference count of the function it finds; all else it reads (the table
 *   pointer, the table, the entries) is immutable while published, and each
 *   of these has cache lines of its own: allocated 64-byte aligned and
 *   rounded up to whole lines, or (statics) aligned and padded. Otherwise an
 *   entry could share a line with memory that another thread writes, such as
 *   the reference count of the function registered after it, and every such
 *   write would take the line away from the readers (false sharing: two
 *   threads looking up different names ran at a third of the speed of one,
 *   depending on where malloc happened to place things).
 *
 * - Reader records: 64 static ones (no allocation for the first 64 threads
 *   looking names up at the same time), then allocated ones, kept in a list
 *   and never freed; a thread gives its record back for reuse when it exits
 *   (a pthread key destructor). The thread-local pointer to the record's seq
 *   word uses the initial-exec TLS model (a few instructions, like the error
 *   slot). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/string.h>

#include "internal.h"
#include "string_internal.h"

/* ---- Entries and tables ---- */

#define CACHE_LINE 64

/* bytes rounded up to whole cache lines (bytes <= SIZE_MAX - CACHE_LINE). */
static inline size_t whole_lines(size_t bytes) { return (bytes + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1); }

typedef struct entry {
  uint64_t hash;
  xffi_object *func; /* the registry's strong reference */
  size_t len;
  char name[]; /* len bytes and a NUL */
} entry;

typedef struct table {
  size_t mask; /* capacity - 1; capacity is a power of two */
  _Atomic(entry *) slots[];
} table;

/* The tombstone is a real entry that matches no name (no length is
 * SIZE_MAX), so a probe needs no separate tombstone test. */
static _Alignas(CACHE_LINE) union {
  entry e;
  char line[CACHE_LINE];
} tombstone_line = {{0, NULL, SIZE_MAX}};
#define TOMBSTONE (&tombstone_line.e)

#define INITIAL_CAPACITY 64

/* The published table, alone on its cache line (at offset 0; see reader). */
static _Alignas(CACHE_LINE) struct {
  _Atomic(table *) table;
  char pad[CACHE_LINE - sizeof(void *)];
} current;
_Static_assert(sizeof current == CACHE_LINE, "the table pointer has its own cache line");

/* Writers' state, guarded by writer_lock. */
static pthread_mutex_t writer_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t live_count; /* live entries in current.table */
static size_t used_count; /* live entries + tombstones */

/* ---- Reader records ---- */

#define STATIC_READERS 64

/* seq is the last word of the line, and not at offset 0 like the table
 * pointer, the table's mask and an entry's hash: the loads that follow the
 * "enter" store must not have the same address bits 0-11 as seq (4 KiB
 * aliasing). 64 records of 64 bytes cover every line of a 4 KiB page, so one
 * of them always matched the table pointer; the thread that got it ran its
 * lookups at 27 ns instead of 19 (measured with bench_function). At offset
 * 56, seq can meet neither the 16-byte aligned reference count of a function
 * malloc allocated nor the fields of an entry with a name under 32 bytes. */
typedef struct reader {
  atomic_int owned;    /* 1 while a thread owns the record */
  struct reader *next; /* allocated records only: the overflow list */
  char pad[CACHE_LINE - sizeof(void *) * 2 - sizeof(uint64_t)];
  _Atomic uint64_t seq; /* odd while the owner is inside a lookup */
} reader;
_Static_assert(sizeof(reader) == CACHE_LINE, "one reader record per cache line");
_Static_assert(offsetof(reader, seq) == CACHE_LINE - sizeof(uint64_t), "seq is the record's last word");

static _Alignas(CACHE_LINE) reader static_readers[STATIC_READERS];
static _Atomic(reader *) overflow_readers;

/* The seq word of the calling thread's record (pointing at the word itself
 * saves gcc an address computation per lookup). */
#if defined(__GNUC__) && !defined(__APPLE__)
static _Thread_local _Atomic uint64_t *my_seq __attribute__((tls_model("initial-exec")));
#else
static _Thread_local _Atomic uint64_t *my_seq;
#endif

static pthread_once_t reader_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t reader_key;
static int reader_key_ok;

/* Runs when a thread that owned a record exits: gives the record back. */
static void reader_release(void *record) {
  reader *r = record;
  my_seq = NULL;
  atomic_store_explicit(&r->owned, 0, memory_order_release);
}

static void reader_key_create(void) { reader_key_ok = pthread_key_create(&reader_key, reader_release) == 0; }

static int reader_claim(reader *r) {
  int expected = 0;
  return atomic_load_explicit(&r->owned, memory_order_relaxed) == 0 &&
         atomic_compare_exchange_strong_explicit(&r->owned, &expected, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

/* The slow path of the first lookup on a thread: claims a free record, or
 * allocates one. NULL (MemoryError raised) if memory runs out. */
static reader *reader_acquire(void) {
  pthread_once(&reader_key_once, reader_key_create);
  reader *found = NULL;
  for (size_t i = 0; i < STATIC_READERS && !found; ++i)
    if (reader_claim(&static_readers[i])) found = &static_readers[i];
  for (reader *r = atomic_load_explicit(&overflow_readers, memory_order_acquire); r && !found; r = r->next)
    if (reader_claim(r)) found = r;
  if (!found) {
    found = xffi_alloc_aligned(CACHE_LINE, sizeof(reader));
    if (!found) {
      xffi_error_raise_out_of_memory();
      return NULL;
    }
    memset(found, 0, sizeof *found);
    atomic_init(&found->seq, 0);
    atomic_init(&found->owned, 1);
    reader *head = atomic_load_explicit(&overflow_readers, memory_order_relaxed);
    do {
      found->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&overflow_readers, &head, found, memory_order_release,
                                                    memory_order_relaxed));
  }
  /* Without the key the record is simply never given back (still correct). */
  if (reader_key_ok) pthread_setspecific(reader_key, found);
  my_seq = &found->seq;
  return found;
}

/* Waits until every lookup that was in flight when the caller unpublished
 * something has finished. The caller's unpublishing stores are seq_cst. */
static void wait_for_readers_in(reader *r) {
  uint64_t seq = atomic_load_explicit(&r->seq, memory_order_seq_cst);
  if (!(seq & 1)) return;
  while (atomic_load_explicit(&r->seq, memory_order_acquire) == seq) sched_yield();
}

static void wait_for_readers(void) {
  for (size_t i = 0; i < STATIC_READERS; ++i) wait_for_readers_in(&static_readers[i]);
  for (reader *r = atomic_load_explicit(&overflow_readers, memory_order_acquire); r; r = r->next)
    wait_for_readers_in(r);
}

/* ---- Lookup ---- */

static inline uint64_t load64(const char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline uint32_t load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The words of a and b from byte 16 on (len > 24; the last word was
 * compared already): the rare long names, out of the probe loop. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int names_equal_tail(const char *a, const char *b, size_t len) {
  for (size_t i = 16; i + 8 < len; i += 8)
    if (load64(a + i) != load64(b + i)) return 0;
  return 1;
}

/* memcmp(a, b, len) == 0 without a library call: names are short, and this
 * is most of a lookup's compare cost. Straight-line up to 24 bytes: from 8
 * bytes the first, last and (above 16) second words; below 8 bytes two
 * overlapping 4-byte words, or the first, middle and last byte, cover every
 * byte (as in the hash's short path). */
static inline int names_equal(const char *a, const char *b, size_t len) {
  if (len >= 8) {
    uint64_t diff = (load64(a) ^ load64(b)) | (load64(a + len - 8) ^ load64(b + len - 8));
    if (len > 16) diff |= load64(a + 8) ^ load64(b + 8);
    if (XFFI_UNLIKELY(len > 24) && diff == 0) return names_equal_tail(a, b, len);
    return diff == 0;
  }
  if (len >= 4) return ((load32(a) ^ load32(b)) | (load32(a + len - 4) ^ load32(b + len - 4))) == 0;
  if (len == 0) return 1;
  return ((a[0] ^ b[0]) | (a[len >> 1] ^ b[len >> 1]) | (a[len - 1] ^ b[len - 1])) == 0;
}

/* No separate tombstone test: the tombstone's length matches no name. */
static inline int entry_matches(const entry *e, uint64_t hash, const char *name, size_t len) {
  return e->hash == hash && e->len == len && names_equal(e->name, name, len);
}

/* The lookup itself, for the seq word of the calling thread's reader
 * record; out and name are checked by the callers and hash is
 * xffi_hash_bytes(name, len). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int lookup_in(_Atomic uint64_t *my, xffi_object **out, const char *name, size_t len, uint64_t hash) {
  uint64_t seq = atomic_load_explicit(my, memory_order_relaxed) + 1;
  atomic_store_explicit(my, seq, memory_order_seq_cst); /* enter */
  xffi_object *found = NULL;
  table *t = atomic_load_explicit(&current.table, memory_order_seq_cst);
  if (t) {
    for (size_t i = (size_t)hash & t->mask;; i = (i + 1) & t->mask) {
      entry *e = atomic_load_explicit(&t->slots[i], memory_order_seq_cst);
      if (!e) break;
      if (entry_matches(e, hash, name, len)) {
        found = e->func; /* never NULL: only the tombstone has none, and it matches nothing */
        __atomic_fetch_add(XFFI_REF_COUNTS(found), XFFI_REF_STRONG_ONE, __ATOMIC_RELAXED);
        break;
      }
    }
  }
  atomic_store_explicit(my, seq + 1, memory_order_release); /* leave */
  *out = found;
  return XFFI_OK;
}

/* A thread's first lookup: claims a reader record, then looks up. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int lookup_first(xffi_object **out, const char *name, size_t len) {
  reader *r = reader_acquire();
  if (!r) return XFFI_FAIL;
  return lookup_in(&r->seq, out, name, len, xffi_hash_inline(name, len));
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int lookup(xffi_object **out, const char *name, size_t len) {
  _Atomic uint64_t *my = my_seq;
  if (XFFI_UNLIKELY(!my)) return lookup_first(out, name, len);
  return lookup_in(my, out, name, len, xffi_hash_inline(name, len));
}

int xffi_func_global_get_bytes(xffi_object **out, xffi_byte_array name) {
  if (XFFI_UNLIKELY(!out)) return xffi_raise_null_arg("xffi_func_global_get", "out");
  if (XFFI_UNLIKELY(!name.data && name.size))
    return xffi_error_raise(XFFI_KIND_VALUE, "xffi_func_global_get: name.data is NULL but name.size is %zu",
                            name.size);
  return lookup(out, name.data, name.size);
}

int xffi_func_global_get(xffi_object **out, const char *name) {
  if (XFFI_UNLIKELY(!out)) return xffi_raise_null_arg("xffi_func_global_get", "out");
  if (XFFI_UNLIKELY(!name)) {
    *out = NULL;
    return xffi_raise_null_arg("xffi_func_global_get", "name");
  }
  return lookup(out, name, strlen(name));
}

/* ---- Writers (all under writer_lock) ---- */

/* The slot holding name in t, or NULL. Writers only. */
static _Atomic(entry *) *find_slot(table *t, uint64_t hash, const char *name, size_t len) {
  if (!t) return NULL;
  for (size_t i = (size_t)hash & t->mask;; i = (i + 1) & t->mask) {
    entry *e = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
    if (!e) return NULL;
    if (entry_matches(e, hash, name, len)) return &t->slots[i];
  }
}

/* Puts e into the first empty or tombstone slot of its chain; returns
 * whether the slot was empty (used_count grows). Writers only. */
static int insert_entry(table *t, entry *e) {
  for (size_t i = (size_t)e->hash & t->mask;; i = (i + 1) & t->mask) {
    entry *old = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
    if (!old || old == TOMBSTONE) {
      atomic_store_explicit(&t->slots[i], e, memory_order_seq_cst);
      return old == NULL;
    }
  }
}

/* Cache-line aligned and padded (see "Cache lines" above); capacity is at
 * most a few times the number of entries, so the size cannot overflow. */
static table *table_new(size_t capacity) {
  table *t = xffi_alloc_aligned(CACHE_LINE, whole_lines(sizeof(table) + capacity * sizeof(_Atomic(entry *))));
  if (!t) return NULL;
  t->mask = capacity - 1;
  for (size_t i = 0; i < capacity; ++i) atomic_init(&t->slots[i], NULL);
  return t;
}

/* Makes room for one more entry: when live + tombstones would pass half
 * the capacity, builds a table at most a quarter full with the live entries
 * and publishes it (linear probing stays at about one probe per lookup; a
 * slot is 8 bytes, so 1000 names cost 32 KiB of table at most). *retired receives the old table, to free after the grace
 * period. Returns XFFI_OK or XFFI_FAIL (MemoryError raised, nothing changed). */
static int reserve_one(table **retired) {
  *retired = NULL;
  table *t = atomic_load_explicit(&current.table, memory_order_relaxed);
  if (t && (used_count + 1) * 2 <= t->mask + 1) return XFFI_OK;
  size_t capacity = INITIAL_CAPACITY;
  while ((live_count + 1) * 4 > capacity) capacity *= 2;
  table *fresh = table_new(capacity);
  if (!fresh) return xffi_error_raise_out_of_memory();
  size_t used = 0;
  if (t) {
    for (size_t i = 0; i <= t->mask; ++i) {
      entry *e = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
      if (e && e != TOMBSTONE) used += (size_t)insert_entry(fresh, e);
    }
  }
  atomic_store_explicit(&current.table, fresh, memory_order_seq_cst);
  used_count = used;
  *retired = t;
  return XFFI_OK;
}

/* Cache-line aligned and padded (see "Cache lines" above). Freed with
 * xffi_free_aligned. */
static entry *entry_new(uint64_t hash, const char *name, size_t len, xffi_object *func) {
  if (len > SIZE_MAX - sizeof(entry) - CACHE_LINE) return NULL;
  entry *e = xffi_alloc_aligned(CACHE_LINE, whole_lines(sizeof(entry) + len + 1));
  if (!e) return NULL;
  e->hash = hash;
  e->func = func;
  e->len = len;
  memcpy(e->name, name, len);
  e->name[len] = '\0';
  return e;
}

/* Frees what writers retired, after the grace period, outside the lock. */
static void release_retired(table *old_table, entry *old_entry) {
  xffi_free_aligned(old_table);
  if (old_entry) {
    xffi_object_dec_ref(old_entry->func);
    xffi_free_aligned(old_entry);
  }
}

int xffi_func_global_register(const char *name, xffi_object *func, int allow_override) {
  static const char fn[] = "xffi_func_global_register";
  if (!name) return xffi_raise_null_arg(fn, "name");
  if (!name[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", fn);
  if (xffi_check_object_arg(fn, "func", func, XFFI_TYPE_FUNCTION) != XFFI_OK) return XFFI_FAIL;
  size_t len = strlen(name);
  uint64_t hash = xffi_hash_bytes(name, len);
  entry *e = entry_new(hash, name, len, func);
  if (!e) return xffi_error_raise_out_of_memory();

  pthread_mutex_lock(&writer_lock);
  table *t = atomic_load_explicit(&current.table, memory_order_relaxed);
  _Atomic(entry *) *slot = find_slot(t, hash, name, len);
  entry *replaced = NULL;
  table *retired = NULL;
  if (slot) {
    if (!allow_override) {
      pthread_mutex_unlock(&writer_lock);
      xffi_free_aligned(e);
      return xffi_error_raise(XFFI_KIND_VALUE,
                              "%s: a function named '%s' is already registered (pass allow_override to replace it)",
                              fn, name);
    }
    replaced = atomic_load_explicit(slot, memory_order_relaxed);
    xffi_object_inc_ref_inline(func);
    atomic_store_explicit(slot, e, memory_order_seq_cst);
  } else {
    if (reserve_one(&retired) != XFFI_OK) {
      pthread_mutex_unlock(&writer_lock);
      xffi_free_aligned(e);
      return XFFI_FAIL;
    }
    xffi_object_inc_ref_inline(func);
    used_count += (size_t)insert_entry(atomic_load_explicit(&current.table, memory_order_relaxed), e);
    live_count++;
  }
  if (replaced || retired) wait_for_readers();
  pthread_mutex_unlock(&writer_lock);
  release_retired(retired, replaced);
  return XFFI_OK;
}

int xffi_func_global_remove(const char *name) {
  static const char fn[] = "xffi_func_global_remove";
  if (!name) return xffi_raise_null_arg(fn, "name");
  if (!name[0]) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", fn);
  size_t len = strlen(name);
  uint64_t hash = xffi_hash_bytes(name, len);
  pthread_mutex_lock(&writer_lock);
  _Atomic(entry *) *slot = find_slot(atomic_load_explicit(&current.table, memory_order_relaxed), hash, name, len);
  if (!slot) {
    pthread_mutex_unlock(&writer_lock);
    return xffi_error_raise(XFFI_KIND_KEY, "%s: no global function named '%s'", fn, name);
  }
  entry *removed = atomic_load_explicit(slot, memory_order_relaxed);
  atomic_store_explicit(slot, TOMBSTONE, memory_order_seq_cst);
  live_count--;
  wait_for_readers();
  pthread_mutex_unlock(&writer_lock);
  release_retired(NULL, removed);
  return XFFI_OK;
}

int xffi_func_global_list(xffi_object **out_names, size_t capacity, size_t *out_count) {
  static const char fn[] = "xffi_func_global_list";
  if (!out_count) return xffi_raise_null_arg(fn, "out_count");
  if (!out_names && capacity > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: out_names is NULL but capacity is %zu", fn, capacity);
  pthread_mutex_lock(&writer_lock);
  table *t = atomic_load_explicit(&current.table, memory_order_relaxed);
  size_t written = 0;
  int status = XFFI_OK;
  for (size_t i = 0; t && i <= t->mask && written < capacity; ++i) {
    entry *e = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
    if (!e || e == TOMBSTONE) continue;
    if (xffi_string_new(&out_names[written], e->name, e->len) != XFFI_OK) {
      status = XFFI_FAIL;
      break;
    }
    written++;
  }
  size_t total = live_count;
  pthread_mutex_unlock(&writer_lock);
  if (status != XFFI_OK) {
    for (size_t i = 0; i < written; ++i) {
      xffi_object_dec_ref(out_names[i]);
      out_names[i] = NULL;
    }
    return XFFI_FAIL;
  }
  *out_count = total;
  return XFFI_OK;
}
