# Cross build for Linux aarch64 with Debian's gcc-aarch64-linux-gnu (or clang, given
# -DCMAKE_C_COMPILER=clang). Executables, the tests among them, run under
# qemu-aarch64 (qemu-user) with the cross sysroot as its library root.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(XFFI_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${XFFI_CROSS_TRIPLE})
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
