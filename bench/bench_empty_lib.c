/* An empty shared library: the baselines of bench_load (and of the library
 * facts of bench_vs_tvm). Built twice:
 * - libbench_empty_lib.so: nothing in it, no dynamic dependencies;
 * - libbench_deps_lib.so (XFFI_BENCH_WITH_DEPS): still nothing of its own,
 *   but the shape of libxffi.so: libc and ld-linux as dependencies (DT_NEEDED)
 *   and a thread-local block. The dynamic loader allocates for a library's
 *   dependency list, so this is the fair baseline for "xffi allocates
 *   nothing at load". */
#ifdef XFFI_BENCH_WITH_DEPS
#  include <unistd.h>

static _Thread_local long xffi_bench_slot[3]; /* general-dynamic TLS: __tls_get_addr, from ld-linux */
long xffi_bench_deps_symbol(void);
long xffi_bench_deps_symbol(void) { return (long)getpid() + xffi_bench_slot[0]++; /* getpid: from libc */ }
#else
int xffi_bench_empty_symbol(void);
int xffi_bench_empty_symbol(void) { return 0; }
#endif
