# Cross build for Linux i686 with Debian's gcc-i686-linux-gnu (or clang, given
# -DCMAKE_C_COMPILER=clang). Executables, the tests among them, run natively
# (an x86-64 Linux kernel runs 32-bit code) through the cross sysroot's
# dynamic loader. Not under qemu-i386: Debian 12's (7.2) hangs in a plain
# pthread_create + pthread_join.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(XFFI_CROSS_TRIPLE i686-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/${XFFI_CROSS_TRIPLE}/lib/ld-linux.so.2 --library-path /usr/${XFFI_CROSS_TRIPLE}/lib)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
