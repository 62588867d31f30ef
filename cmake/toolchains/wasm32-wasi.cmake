# WebAssembly with WASI: clang and Debian's wasi-libc (packages clang,
# lld, wasi-libc, libclang-rt-14-dev-wasm32). No threads and no shared
# libraries: libxffi is static and single-threaded (c/platform_wasi.c).
# Programs run under wasmtime's PyPI package (scripts/cross/wasi-run.py).
set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR}/../wasi) # Platform/WASI.cmake
# For cmocka (the library uses neither): wasi-libc has no <setjmp.h>, so
# cmocka and the tests get a stand-in; signal() is wasi-libc's emulation;
# cmocka.h declares its own uintptr_t unless told that <stdint.h>'s exists
# (it recognises glibc's and Windows' only, not wasi-libc's).
set(CMAKE_C_FLAGS_INIT "-isystem ${CMAKE_CURRENT_LIST_DIR}/../wasi -D_WASI_EMULATED_SIGNAL -D_UINTPTR_T_DEFINED")
# wasm-ld's default stack is 64 KiB; programs get 1 MiB, as a C program
# expects (repr's __ffi_repr__ hooks, which call back through the printer,
# nest up to 256 deep on the C stack).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-lwasi-emulated-signal -Wl,-z,stack-size=1048576")
set(CMAKE_FIND_ROOT_PATH /usr/lib/wasm32-wasi /usr/include/wasm32-wasi $ENV{XFFI_CROSS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(XFFI_PYTHON3 NAMES python3)
# CMOCKA_TEST_ABORT=1: cmocka prints a failed assertion's message and aborts
# instead of jumping back to its runner, which WebAssembly cannot do (the
# stand-in longjmp above is then never reached).
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_COMMAND} -E env CMOCKA_TEST_ABORT=1
  ${XFFI_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/../../scripts/cross/wasi-run.py)
