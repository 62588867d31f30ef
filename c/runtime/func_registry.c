/* c/runtime/func_registry.c: the process-wide registry of global functions.
 *
 * Design
 * ------
 * Readers (xffi_function_global_lookup) are lock-free and write only memory of their
 * own thread; writers (register, remove) are serialised by one mutex and
 * never wait for readers.
 *
 * - The table is open addressing with linear probing over an array of
 *   pointers to immutable entries { hash, function, name }. An entry is never
 *   changed after it is published (but for the String its name is listed as,
 *   which readers never read: see "Listing the names"): replacing a function publishes a new
 *   entry, removing one stores a tombstone in its slot (so probe chains that
 *   pass through it stay intact for readers in flight). The table is reached
 *   through one atomic pointer; growing it (or sweeping tombstones) builds a
 *   new table that shares the entries and publishes it.
 *
 * - Reclamation (when can an old table, a removed entry and the registry's
 *   reference to its function be released?) is epoch based. A global epoch
 *   counter sits next to the table pointer. Each thread that looks names up
 *   owns a reader record on its own cache line, holding an announcement:
 *   (epoch << 1) | 1 while inside a lookup, with the epoch it read on
 *   entering, and 0 outside. A writer unpublishes (stores the tombstone or
 *   the new table) and puts what it unpublished on the retired list, tagged
 *   with the current epoch. It then tries, without waiting, to advance the
 *   epoch: one scan of the records, and the epoch moves on only if no reader
 *   is inside with an older announcement. Something retired at epoch e is
 *   freed once the epoch reaches e + 2: every lookup that could have seen it
 *   entered before it was unpublished, so it announced e or older, and the
 *   two advances each needed it to have left (the first one if it announced
 *   older than e, the second one if it announced e). The announcement store,
 *   the epoch and table loads of a lookup, the unpublishing stores and the
 *   writers' scans are all sequentially consistent, which is what makes "the
 *   scan saw the reader's announcement" follow from "the reader saw the old
 *   pointer"; leaving is a release store the scan acquires, so everything a
 *   reader did with an entry, including taking its own reference to the
 *   function, happens before the entry is released.
 *
 *   So a writer's cost is one scan of the records, whatever the readers do:
 *   a preempted reader only delays when memory is freed, never a writer.
 *   With no lookup in flight a writer advances twice and frees what it
 *   retired at once (so a remove releases the registry's reference before it
 *   returns, as before); otherwise a later writer frees it, or
 *   xffi_testing_registry_reclaim does. What waits on the retired list is
 *   what writers retired since the oldest lookup still in flight entered
 *   (bounded by the writes made meanwhile: nothing is retired without a
 *   write), and the list stays reachable from a static, so leak checkers
 *   report nothing.
 *
 * - The registry's references are released after the mutex is dropped, so a
 *   finalizer may itself use the registry.
 *
 * - Listing the names (xffi_function_global_names, under the mutex) hands out
 *   a String per name that each entry (and each built-in) keeps once made: a
 *   client that lists them again and again (the tvm_ffi package does it for
 *   every API namespace a library registers: 51 times while importing TVM,
 *   about 2,000 names each) then takes references instead of allocating a
 *   String per name each time, as on tvm-ffi's own runtime, whose listings
 *   allocate nothing per name either (bench/bench_tvm_clients.py counts).
 *   The entry's String is its one field set after publishing; only writers,
 *   under the mutex, read or set it, and it is released with the entry.
 *
 * - Cache lines. A lookup writes only its own reader record and the
 *   reference count of the function it finds; all else it reads (the table
 *   pointer and epoch, the table, the entries) changes only on writes, and
 *   each of these has cache lines of its own: allocated 64-byte aligned and
 *   rounded up to whole lines, or (statics) aligned and padded. Otherwise an
 *   entry could share a line with memory that another thread writes, such as
 *   the reference count of the function registered after it, and every such
 *   write would take the line away from the readers (false sharing: two
 *   threads looking up different names ran at a third of the speed of one,
 *   depending on where malloc happened to place things). The link that puts
 *   an entry or table on the retired list is at the end of its allocation,
 *   after everything a reader reads.
 *
 * - Reader records: 64 static ones (no allocation for the first 64 threads
 *   looking names up at the same time), then allocated ones, kept in a list
 *   and never freed; a thread gives its record back for reuse when it exits
 *   (a thread key's exit callback). The thread-local pointer to the record's
 *   announcement uses the compiler's default TLS model (see "Thread-local
 *   storage" in c/runtime/internal.h). */
#include <stdatomic.h>
#include <string.h>

#include <xffi/function.h>
#include <xffi/string.h>
#include <xffi/sys/testing.h>

#include "runtime/builtin_index.h"
#include "runtime/check.h"
#include "runtime/func_registry.h"
#include "runtime/function_signature.h"
#include "runtime/hash.h"
#include "runtime/internal.h"
#include "platform/platform.h"
#include "runtime/string_internal.h"

/* Names are hashed with the process's secret key (c/runtime/hash.h): a caller that
 * chooses names cannot make them share a probe run and turn registration
 * and lookup quadratic. */
static inline uint64_t name_hash(const char *name, size_t len) {
  xffi_hash_key_ensure();
  return xffi_keyed_hash_bytes(name, len);
}

/* ---- Entries and tables ---- */

#define CACHE_LINE 64

/* bytes rounded up to whole cache lines (bytes <= SIZE_MAX - CACHE_LINE). */
static inline size_t whole_lines(size_t bytes) { return (bytes + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1); }

/* The link that puts an unpublished entry or table on the retired list (see
 * "Reclamation"). Writers only; it lies after everything readers read. */
typedef struct retired {
  struct retired *next;
  uint64_t epoch;           /* the global epoch when it was unpublished */
  void *block;              /* the entry or table, freed with xffi_free_aligned */
  xffi_object *func;        /* an entry's function reference (released too), or NULL */
  xffi_object *name_string; /* an entry's listed name (released too), or NULL */
} retired;

/* Where the retired link of a block whose readable part is used bytes lies. */
static inline size_t retired_link_offset(size_t used) {
  return (used + _Alignof(retired) - 1) & ~(size_t)(_Alignof(retired) - 1);
}

/* An entry with no function hides the built-in global of its name (see
 * "Built-in globals" below). Doc and metadata texts follow the name in the
 * same block (each NUL-terminated); lookups never read them. */
typedef struct entry {
  uint64_t hash;
  xffi_object *func; /* the registry's strong reference, or NULL: hides a built-in */
  size_t len;
  size_t doc_len;
  size_t metadata_len;
  xffi_object *name_string; /* the name as a String once listed (see "Listing the names"), or NULL */
  char name[];              /* len bytes and a NUL, then the doc and the metadata, each with a NUL */
} entry;

static inline const char *entry_doc(const entry *e) { return e->name + e->len + 1; }
static inline const char *entry_metadata(const entry *e) { return entry_doc(e) + e->doc_len + 1; }

typedef struct table {
  size_t mask; /* capacity - 1; capacity is a power of two */
  _Atomic(entry *) slots[];
} table;

/* The tombstone is a real entry that matches no name (no length is
 * SIZE_MAX), so a probe needs no separate tombstone test. */
static _Alignas(CACHE_LINE) union {
  entry e;
  char line[CACHE_LINE];
} tombstone_line = {{0, NULL, SIZE_MAX, 0, 0, NULL}};
#define TOMBSTONE (&tombstone_line.e)

#define INITIAL_CAPACITY 64

/* The published table (at offset 0; see reader) and the global epoch, which
 * every lookup reads and only writers change, alone on their cache line. */
static _Alignas(CACHE_LINE) union {
  struct {
    _Atomic(table *) table;
    _Atomic uint64_t epoch;
  };
  char line[CACHE_LINE]; /* the rest of the line stays empty, on every target */
} current;
_Static_assert(sizeof current == CACHE_LINE, "the table pointer and epoch have their own cache line");

/* Writers' state, guarded by writer_lock. */
static xffi_mutex writer_lock = XFFI_MUTEX_INITIALIZER;
static size_t live_count;     /* entries in current.table (with a function or hiding a built-in) */
static size_t used_count;     /* live entries + tombstones */
static retired *retired_list; /* newest first, so epochs never grow along it */
static size_t retired_count;  /* links on retired_list */

/* ---- Reader records ---- */

#define STATIC_READERS 64

/* A record per thread, each on a cache line of its own (the alignment pads
 * it), since every lookup writes its thread's announcement. */
typedef struct reader {
  _Alignas(CACHE_LINE) _Atomic uint64_t announced; /* (epoch << 1) | 1 inside a lookup, 0 outside */
  atomic_int owned;                                /* 1 while a thread owns the record */
  struct reader *next;                             /* allocated records only: the overflow list */
} reader;
_Static_assert(sizeof(reader) == CACHE_LINE, "one reader record per cache line");

static reader static_readers[STATIC_READERS];
static _Atomic(reader *) overflow_readers;

/* The announcement word of the calling thread's record (pointing at the
 * word itself saves gcc an address computation per lookup). Default TLS
 * model, so that the library may be loaded with dlopen (c/runtime/internal.h). */
static _Thread_local _Atomic uint64_t *my_announcement;

static xffi_once reader_key_once = XFFI_ONCE_INITIALIZER;
static xffi_thread_key reader_key;
static int reader_key_ok;

/* Runs when a thread that owned a record exits: gives the record back. */
static void reader_release(void *record) {
  reader *r = record;
  my_announcement = NULL;
  atomic_store_explicit(&r->owned, 0, memory_order_release);
}

static void reader_key_create(void) { reader_key_ok = xffi_thread_key_create(&reader_key, reader_release) == 0; }

static int reader_claim(reader *r) {
  int expected = 0;
  return atomic_load_explicit(&r->owned, memory_order_relaxed) == 0 &&
         atomic_compare_exchange_strong_explicit(&r->owned, &expected, 1, memory_order_acquire, memory_order_relaxed);
}

/* The slow path of the first lookup on a thread: claims a free record, or
 * allocates one. NULL (MemoryError raised) if memory runs out. */
static reader *reader_acquire(void) {
  xffi_call_once(&reader_key_once, reader_key_create);
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
    atomic_init(&found->announced, 0);
    atomic_init(&found->owned, 1);
    reader *head = atomic_load_explicit(&overflow_readers, memory_order_relaxed);
    do {
      found->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&overflow_readers, &head, found, memory_order_release,
                                                    memory_order_relaxed));
  }
  /* Without the key the record is simply never given back (still correct). */
  if (reader_key_ok) xffi_thread_key_set(reader_key, found);
  my_announcement = &found->announced;
  return found;
}

/* Whether the record holds a lookup that entered before epoch was reached.
 * The load is seq_cst (see "Reclamation"), and acquires the record's
 * leaving store. */
static int reader_holds_back(reader *r, uint64_t epoch) {
  uint64_t announced = atomic_load_explicit(&r->announced, memory_order_seq_cst);
  return (announced & 1) && (announced >> 1) != epoch;
}

/* Advances the global epoch by one unless a lookup in flight entered in an
 * older epoch; returns whether it did. One scan of the records, no waiting.
 * Writers only (under writer_lock). */
static int try_advance_epoch(void) {
  uint64_t epoch = atomic_load_explicit(&current.epoch, memory_order_relaxed);
  for (size_t i = 0; i < STATIC_READERS; ++i)
    if (reader_holds_back(&static_readers[i], epoch)) return 0;
  for (reader *r = atomic_load_explicit(&overflow_readers, memory_order_acquire); r; r = r->next)
    if (reader_holds_back(r, epoch)) return 0;
  atomic_store_explicit(&current.epoch, epoch + 1, memory_order_seq_cst);
  return 1;
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
static int
names_equal_tail(const char *a, const char *b, size_t len) {
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

/* ---- Built-in globals ----
 * The runtime's own ffi.* functions live in static tables (c/compat/globals/builtin_globals.h)
 * and are never copied into the table: a lookup that finds no entry for a
 * name asks the static index (c/runtime/builtin_index.h). An entry of the same name
 * overrides the built-in (registering one needs allow_override, as for any
 * taken name); removing a built-in, or an entry that overrode one, leaves
 * an entry with no function, which hides it. */

/* The built-in function named name, with a new reference (to a static,
 * immortal object), or NULL. */
static inline xffi_object *builtin_function(const char *name, size_t len, uint64_t hash) {
  const xffi_builtin_global *g = xffi_builtin_find(name, len, hash);
  if (!g) return NULL;
  xffi_object_inc_ref_inline(&g->function->header);
  return &g->function->header;
}

/* A name this registry has no entry for: the process's other runtime's
 * function of that name when this one is bound to it (its ffi.* globals,
 * other plugins' functions; c/runtime/foreign.c), else the built-in. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
lookup_unregistered(xffi_object **out, const char *name, size_t len, uint64_t hash) {
  if (xffi_foreign_global_get(out, (xffi_byte_array){name, len}) != XFFI_OK) return XFFI_FAIL;
  if (!*out) *out = builtin_function(name, len, hash);
  return XFFI_OK;
}

/* The lookup itself, for the announcement word of the calling thread's
 * reader record; out and name are checked by the callers and hash is
 * name_hash(name, len). The epoch load is seq_cst so that it cannot
 * return an epoch newer than an unpublishing store the lookup precedes. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
lookup_in(_Atomic uint64_t *my, xffi_object **out, const char *name, size_t len, uint64_t hash) {
  uint64_t epoch = atomic_load_explicit(&current.epoch, memory_order_seq_cst);
  atomic_store_explicit(my, epoch << 1 | 1, memory_order_seq_cst); /* enter */
  xffi_object *found = NULL;
  int matched = 0;
  table *t = atomic_load_explicit(&current.table, memory_order_seq_cst);
  if (t) {
    for (size_t i = (size_t)hash & t->mask;; i = (i + 1) & t->mask) {
      entry *e = atomic_load_explicit(&t->slots[i], memory_order_seq_cst);
      if (!e) break;
      if (entry_matches(e, hash, name, len)) {
        matched = 1;
        found = e->func;                   /* NULL when it hides a built-in */
        xffi_object_inc_ref_inline(found); /* aborts at the count limit like every increment */
        break;
      }
    }
  }
  atomic_store_explicit(my, 0, memory_order_release); /* leave */
  if (!matched) {
    /* No other runtime (the common case): the built-in, with one load more. */
    if (XFFI_UNLIKELY(!xffi_foreign_runtime_known_absent())) return lookup_unregistered(out, name, len, hash);
    found = builtin_function(name, len, hash);
  }
  *out = found;
  return XFFI_OK;
}

/* A thread's first lookup: claims a reader record, then looks up. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
lookup_first(xffi_object **out, const char *name, size_t len) {
  reader *r = reader_acquire();
  if (!r) return XFFI_FAIL;
  return lookup_in(&r->announced, out, name, len, name_hash(name, len));
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
lookup(xffi_object **out, const char *name, size_t len) {
  _Atomic uint64_t *my = my_announcement;
  if (XFFI_UNLIKELY(!my)) return lookup_first(out, name, len);
  return lookup_in(my, out, name, len, name_hash(name, len));
}

int xffi_function_global_lookup_bytes(xffi_object **out, xffi_byte_array name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  XFFI_CHECK_ARG(name.data, name.data || !name.size, XFFI_KIND_VALUE, "is NULL but name.size is %zu", name.size);
  return lookup(out, name.data, name.size);
}

int xffi_function_global_lookup(xffi_object **out, const char *name) {
  XFFI_CHECK_ARG_NOT_NULL(out);
  if (XFFI_UNLIKELY(!name)) {
    *out = NULL;
    return xffi_raise_null_arg(__func__, "name");
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

/* The bytes of a table or entry that readers read; its retired link follows. */
static inline size_t table_readable_bytes(size_t capacity) {
  return sizeof(table) + capacity * sizeof(_Atomic(entry *));
}
static inline size_t entry_readable_bytes(const entry *e) {
  return sizeof(entry) + e->len + 1 + e->doc_len + 1 + e->metadata_len + 1;
}

/* Cache-line aligned and padded (see "Cache lines" above); capacity is at
 * most a few times the number of entries, so the size cannot overflow. */
static table *table_new(size_t capacity) {
  size_t bytes = retired_link_offset(table_readable_bytes(capacity)) + sizeof(retired);
  table *t = xffi_alloc_aligned(CACHE_LINE, whole_lines(bytes));
  if (!t) return NULL;
  t->mask = capacity - 1;
  for (size_t i = 0; i < capacity; ++i) atomic_init(&t->slots[i], NULL);
  return t;
}

/* Puts block, an entry or table the caller just unpublished whose readable
 * part is readable_bytes long, on the retired list, tagged with the current
 * epoch. func is the entry's function reference, stolen (released with the
 * entry), or NULL for a table. Writers only. */
static void retire(void *block, size_t readable_bytes, xffi_object *func, xffi_object *name_string) {
  retired *link = (retired *)((char *)block + retired_link_offset(readable_bytes));
  link->epoch = atomic_load_explicit(&current.epoch, memory_order_relaxed);
  link->block = block;
  link->func = func;
  link->name_string = name_string;
  link->next = retired_list;
  retired_list = link;
  retired_count++;
}

/* Advances the epoch as far as the lookups in flight allow (twice at most:
 * a third advance frees nothing more) and detaches from the retired list
 * what no lookup can reach any more, for release_retired once the lock is
 * dropped. Never waits. Writers only. */
static retired *detach_reclaimable(void) {
  if (!retired_list) return NULL;
  if (try_advance_epoch()) try_advance_epoch();
  uint64_t epoch = atomic_load_explicit(&current.epoch, memory_order_relaxed);
  retired **link = &retired_list; /* newest first: the older tail goes */
  while (*link && (*link)->epoch + 2 > epoch) link = &(*link)->next;
  retired *ready = *link;
  *link = NULL;
  for (retired *r = ready; r; r = r->next) retired_count--;
  return ready;
}

/* Frees what detach_reclaimable returned and releases the functions' references,
 * outside the lock (a finalizer may use the registry). */
static void release_retired(retired *ready) {
  while (ready) {
    retired *next = ready->next; /* the link lies inside the block */
    xffi_object *func = ready->func, *name_string = ready->name_string;
    xffi_free_aligned(ready->block);
    if (func) xffi_object_dec_ref(func);
    if (name_string) xffi_object_dec_ref(name_string);
    ready = next;
  }
}

/* Makes room for one more entry: when live + tombstones would pass half
 * the capacity, builds a table at most a quarter full with the live entries
 * and publishes it, retiring the old one (linear probing stays at about one
 * probe per lookup; a slot is 8 bytes, so 1000 names cost 32 KiB of table at
 * most). Returns XFFI_OK or XFFI_FAIL (MemoryError raised, nothing changed). */
static int reserve_one(void) {
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
  if (t) retire(t, table_readable_bytes(t->mask + 1), NULL, NULL);
  return XFFI_OK;
}

/* Cache-line aligned and padded (see "Cache lines" above), with room for
 * the retired link. func is the registry's reference to be (not taken
 * here), or NULL for an entry hiding a built-in; the texts are copied.
 * Freed with xffi_free_aligned. NULL when memory runs out (nothing raised). */
static entry *entry_new(uint64_t hash, xffi_byte_array name, xffi_object *func, xffi_byte_array doc,
                        xffi_byte_array metadata) {
  size_t slack = SIZE_MAX - sizeof(entry) - sizeof(retired) - 2 * CACHE_LINE - 3;
  if (name.size > slack || doc.size > slack - name.size || metadata.size > slack - name.size - doc.size) return NULL;
  entry header = {hash, func, name.size, doc.size, metadata.size, NULL};
  size_t bytes = retired_link_offset(entry_readable_bytes(&header)) + sizeof(retired);
  entry *e = xffi_alloc_aligned(CACHE_LINE, whole_lines(bytes));
  if (!e) return NULL;
  *e = header;
  char *text = e->name;
  if (name.size) memcpy(text, name.data, name.size);
  text[name.size] = '\0';
  text += name.size + 1;
  if (doc.size) memcpy(text, doc.data, doc.size);
  text[doc.size] = '\0';
  text += doc.size + 1;
  if (metadata.size) memcpy(text, metadata.data, metadata.size);
  text[metadata.size] = '\0';
  return e;
}

/* Retires the entry the caller just unpublished, with the registry's
 * reference to its function (if any). Writers only. */
static void retire_entry(entry *e) { retire(e, entry_readable_bytes(e), e->func, e->name_string); }

/* Frees what the epoch allows, after the caller's write, and drops the lock. */
static void unlock_and_reclaim(void) {
  retired *ready = detach_reclaimable();
  xffi_mutex_unlock(&writer_lock);
  release_retired(ready);
}

int xffi_registry_set(xffi_byte_array name, xffi_object *func, xffi_byte_array doc, xffi_byte_array metadata,
                      int allow_override, const char *duplicate_kind, const char *fn, const char *tvm_suffix) {
  /* Every way in refuses it: no lookup or erase by C string could reach it. */
  if (!name.size) return xffi_error_raise(XFFI_KIND_VALUE, "%s: name is empty", fn);
  uint64_t hash = name_hash(name.data, name.size);
  entry *e = entry_new(hash, name, func, doc, metadata);
  if (!e) return xffi_error_raise_out_of_memory();

  xffi_mutex_lock(&writer_lock);
  table *t = atomic_load_explicit(&current.table, memory_order_relaxed);
  _Atomic(entry *) *slot = find_slot(t, hash, name.data, name.size);
  entry *replaced = slot ? atomic_load_explicit(slot, memory_order_relaxed) : NULL;
  /* Taken: by a live entry, or by a built-in no entry overrides or hides. */
  int taken = replaced ? replaced->func != NULL : xffi_builtin_find(name.data, name.size, hash) != NULL;
  if (taken && !allow_override) {
    xffi_mutex_unlock(&writer_lock);
    xffi_free_aligned(e);
    if (tvm_suffix)
      return xffi_error_raise(duplicate_kind, "Global Function `%.*s` is already registered%s", (int)name.size,
                              name.data, tvm_suffix);
    return xffi_error_raise(duplicate_kind,
                            /* tvm-ffi's wording, which its callers match: "`name` is already registered" */
                            "%s: Global Function `%.*s` is already registered (pass allow_override to replace it)", fn,
                            (int)name.size, name.data);
  }
  if (replaced) {
    xffi_object_inc_ref_inline(func);
    atomic_store_explicit(slot, e, memory_order_seq_cst);
    retire_entry(replaced);
  } else {
    if (reserve_one() != XFFI_OK) {
      xffi_mutex_unlock(&writer_lock);
      xffi_free_aligned(e);
      return XFFI_FAIL;
    }
    xffi_object_inc_ref_inline(func);
    used_count += (size_t)insert_entry(atomic_load_explicit(&current.table, memory_order_relaxed), e);
    live_count++;
  }
  unlock_and_reclaim();
  return XFFI_OK;
}

int xffi_registry_remove(xffi_byte_array name, int *out_removed) {
  uint64_t hash = name_hash(name.data, name.size);
  *out_removed = 0;
  /* Removing a built-in, or an entry overriding one, leaves a hiding entry:
   * made before the lock, and freed unused otherwise. */
  entry *hider = NULL;
  if (xffi_builtin_find(name.data, name.size, hash)) {
    xffi_byte_array none = {NULL, 0};
    hider = entry_new(hash, name, NULL, none, none);
    if (!hider) return xffi_error_raise_out_of_memory();
  }
  xffi_mutex_lock(&writer_lock);
  _Atomic(entry *) *slot =
      find_slot(atomic_load_explicit(&current.table, memory_order_relaxed), hash, name.data, name.size);
  entry *removed = slot ? atomic_load_explicit(slot, memory_order_relaxed) : NULL;
  if (removed && removed->func) {
    atomic_store_explicit(slot, hider ? hider : TOMBSTONE, memory_order_seq_cst);
    if (!hider) live_count--;
    hider = NULL;
    retire_entry(removed);
    *out_removed = 1;
  } else if (!removed && hider) {
    if (reserve_one() != XFFI_OK) {
      xffi_mutex_unlock(&writer_lock);
      xffi_free_aligned(hider);
      return XFFI_FAIL;
    }
    used_count += (size_t)insert_entry(atomic_load_explicit(&current.table, memory_order_relaxed), hider);
    live_count++;
    hider = NULL;
    *out_removed = 1;
  }
  unlock_and_reclaim();
  xffi_free_aligned(hider); /* unused: nothing of that name was visible */
  return XFFI_OK;
}

int xffi_function_global_info(xffi_any *out_doc, xffi_any *out_metadata, int *out_found, xffi_byte_array name) {
  XFFI_CHECK_ARG_NOT_NULL(out_found);
  XFFI_CHECK_ARG(name.data, name.data || !name.size, XFFI_KIND_VALUE, "is NULL but name.size is %zu", name.size);
  if (out_doc) *out_doc = xffi_any_none();
  if (out_metadata) *out_metadata = xffi_any_none();
  *out_found = 0;
  uint64_t hash = name_hash(name.data, name.size);
  /* Copied under the lock: a writer may retire the entry as soon as it drops it. */
  xffi_mutex_lock(&writer_lock);
  _Atomic(entry *) *slot =
      find_slot(atomic_load_explicit(&current.table, memory_order_relaxed), hash, name.data, name.size);
  const char *doc = "", *metadata = "";
  size_t doc_len = 0, metadata_len = 0;
  int found = 0, status = XFFI_OK;
  char expanded[1024]; /* a built-in's metadata, from its signature (the longest is about 420 bytes) */
  if (slot) {
    const entry *e = atomic_load_explicit(slot, memory_order_relaxed);
    if (e->func) {
      found = 1;
      doc = entry_doc(e), doc_len = e->doc_len;
      metadata = entry_metadata(e), metadata_len = e->metadata_len;
    }
  } else {
    const xffi_builtin_global *g = xffi_builtin_find(name.data, name.size, hash);
    if (g) {
      found = 1;
      long len = g->signature ? xffi_signature_metadata(expanded, sizeof expanded, g->signature) : 0;
      if (len < 0) {
        status = xffi_error_raise(XFFI_KIND_RUNTIME, "%s: the built-in %s has a malformed or too long signature '%s'",
                                  __func__, g->name, g->signature);
      } else if (len > 0) {
        metadata = expanded, metadata_len = (size_t)len;
      }
    }
  }
  if (status == XFFI_OK && found && out_doc) status = xffi_any_from_str(out_doc, doc, doc_len);
  if (found && status == XFFI_OK && out_metadata) status = xffi_any_from_str(out_metadata, metadata, metadata_len);
  xffi_mutex_unlock(&writer_lock);
  if (status != XFFI_OK) {
    if (out_doc) xffi_any_release(out_doc);
    return XFFI_FAIL;
  }
  *out_found = found;
  return XFFI_OK;
}

size_t xffi_testing_registry_reclaim(void) {
  xffi_mutex_lock(&writer_lock);
  retired *ready = detach_reclaimable();
  size_t waiting = retired_count;
  xffi_mutex_unlock(&writer_lock);
  release_retired(ready);
  return waiting;
}

/* The built-ins' listed names (see "Listing the names"): builtin_count
 * Strings, each NULL until first listed; kept for the process's life.
 * Writers only, under the lock. */
static xffi_object **builtin_name_strings;

/* Writes a new reference to the String of name to out_names[*written] if
 * there is room (*written grows), counting it in *total either way. The
 * String is *cached, made there on first use (the cache keeps its reference). */
static int list_name(xffi_object **out_names, size_t capacity, size_t *written, size_t *total, xffi_object **cached,
                     const char *name, size_t len) {
  ++*total;
  if (*written >= capacity) return XFFI_OK;
  if (!*cached && xffi_string_new(cached, name, len) != XFFI_OK) return XFFI_FAIL;
  xffi_object_inc_ref(*cached);
  out_names[(*written)++] = *cached;
  return XFFI_OK;
}

int xffi_function_global_names(xffi_object **out_names, int64_t *out_count, int64_t requested_capacity) {
  XFFI_CHECK_ARG_NOT_NULL(out_count);
  if (requested_capacity < 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: capacity is negative (%lld)", __func__,
                            (long long)requested_capacity);
  if (!out_names && requested_capacity > 0)
    return xffi_error_raise(XFFI_KIND_VALUE, "%s: out_names is NULL but capacity is %lld", __func__,
                            (long long)requested_capacity);
  /* Fewer names than that can ever exist, so the cast cannot cut a real count. */
  size_t capacity = (uint64_t)requested_capacity > SIZE_MAX ? SIZE_MAX : (size_t)requested_capacity;
  size_t builtins = xffi_builtin_count();
  xffi_mutex_lock(&writer_lock);
  table *t = atomic_load_explicit(&current.table, memory_order_relaxed);
  size_t written = 0, total = 0;
  int status = XFFI_OK;
  if (!builtin_name_strings && capacity > 0 && builtins > 0) {
    builtin_name_strings = xffi_alloc(builtins * sizeof(xffi_object *));
    if (builtin_name_strings)
      memset(builtin_name_strings, 0, builtins * sizeof(xffi_object *));
    else
      status = xffi_error_raise_out_of_memory();
  }
  /* Entries with a function, then the built-ins no entry overrides or hides. */
  for (size_t i = 0; t && i <= t->mask && status == XFFI_OK; ++i) {
    entry *e = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
    if (!e || e == TOMBSTONE || !e->func) continue;
    status = list_name(out_names, capacity, &written, &total, &e->name_string, e->name, e->len);
  }
  for (size_t i = 0; i < builtins && status == XFFI_OK; ++i) {
    const char *name = xffi_builtin_at(i)->name;
    size_t len = strlen(name);
    if (find_slot(t, name_hash(name, len), name, len)) continue;
    xffi_object *uncached = NULL; /* when counting only (capacity 0) nothing is listed */
    status = list_name(out_names, capacity, &written, &total,
                       builtin_name_strings ? &builtin_name_strings[i] : &uncached, name, len);
  }
  xffi_mutex_unlock(&writer_lock);
  if (status != XFFI_OK) {
    for (size_t i = 0; i < written; ++i) {
      xffi_object_dec_ref(out_names[i]);
      out_names[i] = NULL;
    }
    return XFFI_FAIL;
  }
  *out_count = (int64_t)total;
  return XFFI_OK;
}
