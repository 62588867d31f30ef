#!/usr/bin/env bash
# Runs cargo with scripts/valgrind-runner.sh as the runner of the host target
# (CARGO_TARGET_<HOST TRIPLE>_RUNNER, which wins over any runner in cargo's
# config files), so every test binary that command starts runs under valgrind:
#   scripts/cargo-valgrind.sh test -p xffi --test cross -- --test-threads=2
# The runner is set for this command only; builds are unaffected (cargo reuses
# what a plain `cargo test` built).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
host=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$host" ] || { echo "cargo-valgrind.sh: rustc -vV names no host triple" >&2; exit 1; }
export "CARGO_TARGET_$(echo "$host" | tr 'a-z-' 'A-Z_')_RUNNER=$here/valgrind-runner.sh"
exec cargo "$@"
