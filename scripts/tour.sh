#!/usr/bin/env bash
# Builds and runs the xffi tour: the C part, then the Rust part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh tour
build=${XFFI_BUILD_ROOT:-build}/tour
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXFFI_BUILD_TESTS=OFF -DXFFI_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target tour >"$build/build.log" || { cat "$build/build.log"; exit 1; }
"$build/examples/tour"
echo
cargo run -q --release -p xffi --example tour
