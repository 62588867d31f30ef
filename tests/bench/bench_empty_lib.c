/* An empty shared library: the baseline of bench_load. */
int xffi_bench_empty_symbol(void);
int xffi_bench_empty_symbol(void) { return 0; }
