/* The libraries test_load compares libxffi.so with. Built twice:
 * - libtest_load_baseline.so: nothing of its own, but the shape of
 *   libxffi.so as the dynamic loader sees it: a SONAME, libc and ld-linux as
 *   dependencies (DT_NEEDED), thread-local storage of the model that
 *   libxffi uses (general-dynamic, which calls __tls_get_addr from
 *   ld-linux; libxffi has no initial-exec TLS, see c/internal.h), and an
 *   atomic read-modify-write like libxffi's reference counts. The loader
 *   allocates for a library's dependency list and its TLS module, and the
 *   atomic makes the toolchain link its own atomics support where it has one
 *   (on aarch64, gcc's outline atomics bring libgcc's init_have_lse_atomics
 *   constructor), so this is what loading "a library like libxffi that does
 *   nothing at load" costs on the platform at hand.
 * - libtest_load_ctor_control.so (XFFI_TEST_LOAD_CTOR_ALLOCATES): the same
 *   plus a constructor that allocates once. The test expects it to cost one
 *   allocation and one initialiser more than the baseline: the negative
 *   control that shows both of the test's checks can fail. */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static _Thread_local long load_slot_gd[4] __attribute__((tls_model("global-dynamic")));
static _Atomic long load_calls;

long xffi_test_load_symbol(void);
long xffi_test_load_symbol(void) { /* getpid: from libc */
  return (long)getpid() + load_slot_gd[3]++ + load_slot_gd[0]++ + atomic_fetch_add(&load_calls, 1);
}

#ifdef XFFI_TEST_LOAD_CTOR_ALLOCATES
/* volatile: the compiler may not drop the malloc/free pair. */
void *volatile xffi_test_load_ctor_block;
__attribute__((constructor)) static void allocate_at_load(void) {
  xffi_test_load_ctor_block = malloc(32);
  free(xffi_test_load_ctor_block);
}
#endif
