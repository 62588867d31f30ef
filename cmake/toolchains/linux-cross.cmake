# What the Linux cross toolchain files share (included by aarch64.cmake,
# s390x.cmake and i686.cmake, which set CMAKE_SYSTEM_PROCESSOR,
# XFFI_CROSS_TRIPLE and CMAKE_CROSSCOMPILING_EMULATOR first): Debian's cross
# gcc for the triple unless another compiler is given, its sysroot, and the
# prefix where scripts/cross/cmocka.sh installed the target's cmocka.
set(CMAKE_SYSTEM_NAME Linux)
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
