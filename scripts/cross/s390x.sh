#!/usr/bin/env bash
# Linux s390x, big-endian: Debian's cross gcc, the suite and the tour under
# qemu-s390x.
source "$(dirname "$0")/_linux.sh"
linux_cross s390x
