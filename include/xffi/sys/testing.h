/* xffi/sys/testing.h: hooks for tests (extension tier, not the stable ABI).
 *
 * They let a test make the library's Nth heap allocation fail and count
 * allocations, to prove that every operation reports out-of-memory cleanly
 * and leaks nothing. Both work per thread: a test's injected failures hit
 * only its own thread, so tests may run side by side. They cost one
 * thread-local decrement and a sign test per allocation. */
#ifndef XFFI_SYS_TESTING_H
#define XFFI_SYS_TESTING_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

/* From now on, let n more allocations of the calling thread succeed and
 * fail every one after them (n = 0 fails the very next). A negative n turns
 * failure injection off. Other threads are not affected. */
XFFI_API void xffi_testing_fail_alloc_after(int64_t n);

/* The number of heap allocations the library made so far in the calling thread. */
XFFI_API uint64_t xffi_testing_alloc_count(void);

/* The global function registry's writers never wait for lookups in flight:
 * what they replace or remove (old tables, entries and the registry's
 * references to their functions) waits on a retired list until no lookup
 * can reach it, and a later write frees it. This frees now, without
 * waiting, whatever no lookup can reach any more, and returns how many
 * retired blocks are still waiting (0 once no lookup is in flight). Leak
 * checkers and tests call it once the threads that look names up are done. */
XFFI_API size_t xffi_testing_registry_reclaim(void);

XFFI_EXTERN_C_END

#endif /* XFFI_SYS_TESTING_H */
