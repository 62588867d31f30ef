#!/usr/bin/env bash
# Linux i686, 32-bit: built with Debian's cross gcc and again with clang (whose
# inline atomics need the 8-byte aligned reference count), the suite and the
# tour run natively through the 32-bit loader (see cmake/toolchains/i686.cmake).
source "$(dirname "$0")/_linux.sh"
status=0
linux_cross i686 || status=1
linux_cross i686 clang || status=1
exit $status
