# Cross build for Linux i686 with Debian's gcc-i686-linux-gnu (or clang, given
# -DCMAKE_C_COMPILER=clang). Executables, the tests among them, run natively
# (an x86-64 Linux kernel runs 32-bit code) through the cross sysroot's
# dynamic loader. Not under qemu-i386: Debian 12's (7.2) hangs in a plain
# pthread_create + pthread_join.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(XFFI_CROSS_TRIPLE i686-linux-gnu)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER ${XFFI_CROSS_TRIPLE}-gcc)
endif()
set(CMAKE_C_COMPILER_TARGET ${XFFI_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${XFFI_CROSS_TRIPLE})
# Where scripts/cross/cmocka.sh installed the target's cmocka: searched as a
# second root, and the only place pkg-config looks.
set(XFFI_CROSS_PREFIX "" CACHE PATH "Prefix holding libraries built for the target (cmocka)")
if(XFFI_CROSS_PREFIX)
  list(APPEND CMAKE_FIND_ROOT_PATH ${XFFI_CROSS_PREFIX})
  set(ENV{PKG_CONFIG_LIBDIR} ${XFFI_CROSS_PREFIX}/lib/pkgconfig)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/${XFFI_CROSS_TRIPLE}/lib/ld-linux.so.2 --library-path /usr/${XFFI_CROSS_TRIPLE}/lib)
