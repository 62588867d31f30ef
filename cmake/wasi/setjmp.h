/* cmake/wasi/setjmp.h: a stand-in <setjmp.h> for wasm32-wasi test builds.
 *
 * wasi-libc (Debian's, 2022) has no setjmp: WebAssembly cannot unwind the
 * stack without the exception-handling proposal. cmocka needs it only to
 * leave a test at its first failed assertion and go on with the next; here
 * the failure (already printed by cmocka) ends the whole program with status
 * 1 instead, so a test binary that fails still fails, but stops at its first
 * failure. Used by cmake/toolchains/wasm32-wasi.cmake only; never by the
 * library. */
#ifndef XFFI_WASI_SETJMP_H
#define XFFI_WASI_SETJMP_H

#include <stdio.h>
#include <stdlib.h>

typedef int jmp_buf[1];

#define setjmp(env) ((void)(env), 0)

_Noreturn static inline void longjmp(jmp_buf env, int value) {
  (void)env, (void)value;
  fputs("[  FAILED  ] stopping at the first failure: wasm32-wasi has no longjmp back to the test runner\n", stderr);
  exit(1);
}

#endif /* XFFI_WASI_SETJMP_H */
