#!/usr/bin/env bash
# Builds tests/endian/small_keys.c with the library's C sources statically for
# s390x (big-endian) and runs it under qemu-user. Needs gcc-s390x-linux-gnu
# and qemu-user (apt-get install -y gcc-s390x-linux-gnu qemu-user).
# Usage: tests/endian/run.sh [source root (default: this checkout)] [output dir]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:-$here}
out=${2:-$here/build/s390x}
mkdir -p "$out"
mapfile -t sources < <(find "$src/c" -name '*.c' | sort)
s390x-linux-gnu-gcc -std=c11 -O1 -static -pthread -DXFFI_BUILDING -I"$src/include" -I"$src/c" \
  "${sources[@]}" "$here/tests/endian/small_keys.c" -lm -o "$out/small_keys"
qemu-s390x -L /usr/s390x-linux-gnu "$out/small_keys"
