/* A library whose only content is an initial-exec TLS block of
 * XFFI_TLS_FILLER_BYTES bytes. test_tls_dlopen loads several of these to use
 * up the static TLS surplus that glibc reserves for libraries loaded with
 * dlopen, as a process with many such plugins or Python extensions does.
 * initial-exec sets STATIC_TLS on the library, so dlopen either places the
 * block in the surplus or fails with "cannot allocate memory in static TLS
 * block". */
static _Thread_local char filler[XFFI_TLS_FILLER_BYTES] __attribute__((tls_model("initial-exec"), aligned(8)));

/* Touches the block, so that its initial-exec access is really there. */
__attribute__((visibility("default"))) long xffi_tls_filler_touch(void);
long xffi_tls_filler_touch(void) {
  filler[0]++;
  return (long)sizeof filler + filler[0];
}
