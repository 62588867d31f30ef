#!/usr/bin/env bash
# Linux aarch64: Debian's cross gcc, the suite and the tour under qemu-aarch64.
source "$(dirname "$0")/_linux.sh"
linux_cross aarch64
