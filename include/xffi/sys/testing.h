/* xffi/sys/testing.h: hooks for tests and leak checkers (extension tier,
 * not the stable ABI). Failure injection is no hook: tests install a failing
 * allocator (xffi/sys/allocator.h, tests/c/helpers/failing_allocator.h). */
#ifndef XFFI_SYS_TESTING_H
#define XFFI_SYS_TESTING_H

#include <stddef.h>
#include <stdint.h>
#include <xffi/export.h>

XFFI_EXTERN_C_BEGIN

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
