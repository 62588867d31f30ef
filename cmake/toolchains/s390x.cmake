# Cross build for Linux s390x with Debian's gcc-s390x-linux-gnu (or clang, given
# -DCMAKE_C_COMPILER=clang). Executables, the tests among them, run under
# qemu-s390x (qemu-user) with the cross sysroot as its library root.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(XFFI_CROSS_TRIPLE s390x-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x -L /usr/${XFFI_CROSS_TRIPLE})
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
