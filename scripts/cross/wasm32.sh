#!/usr/bin/env bash
# wasm32-wasi: builds libxffi (static, single-threaded, module loading compiled
# out), the cmocka suite and the tour with clang and Debian's wasi-libc, and
# runs them under wasmtime (its PyPI package, through scripts/cross/wasi-run.py).
# Prints one summary line:
#   cross wasm32: builds yes|no, tests N passed M failed, tour identical yes|no
# Build trees: XFFI_BUILD_ROOT (default build/)/cross/. Idempotent installs.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/cross/_install.sh
cross_target_begin wasm32
cross_install || exit 1
mkdir -p "$work"
toolchain=$root/cmake/toolchains/wasm32-wasi.cmake
bash scripts/cross/cmocka.sh "$toolchain" "$prefix" || { echo "building cmocka for wasm32-wasi failed"; exit 1; }

cross_build_suite "$toolchain" || exit 1

cross_ctest
[ $status -ne 0 ] && grep -E 'error: |FAILED|!=|wasm backtrace' "$work/ctest.log" | head -40

# The tour's output must match the Linux x86-64 build's, byte for byte, or
# differ exactly as scripts/cross/wasm32.tour.diff says (sizes that depend on
# the pointer size).
reference=$(cross_reference_tour) && cp "$reference" "$work/tour-native.txt"
python3 scripts/cross/wasi-run.py "$work/build/examples/tour.wasm" >"$work/tour.txt" 2>"$work/tour.err"
tour_ok=no
if [ -s "$work/tour-native.txt" ] && cmp -s "$work/tour-native.txt" "$work/tour.txt"; then
  tour=yes tour_ok=yes
elif [ -s "$work/tour-native.txt" ] &&
  { diff "$work/tour-native.txt" "$work/tour.txt" >"$work/tour.diff"; cmp -s "$work/tour.diff" scripts/cross/wasm32.tour.diff; }; then
  tour_ok=yes
  echo "cross $target: the tour differs from x86-64's only where expected (scripts/cross/wasm32.tour.diff)"
else
  head -20 "$work/tour.diff"
fi

[ "$builds" = yes ] && [ $status -eq 0 ] && [ "$failed" -eq 0 ] && [ "$tour_ok" = yes ]
