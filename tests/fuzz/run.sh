#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined, leak checking on) and runs each for a
# bounded time, starting from its checked-in seed corpus. Fails if any target
# fails to build, crashes, leaks, trips a sanitizer or breaks one of its
# model checks; the input that did it is left in <build>/artifacts/.
#
#   tests/fuzz/run.sh [seconds per target] [build dir]
#     seconds: default $XFFI_FUZZ_SECONDS or 20; 0 only replays the seeds.
#     build dir: default $XFFI_FUZZ_BUILD or build/fuzz.
#   XFFI_FUZZ_SOURCES=DIR fuzzes the library sources in DIR/c instead of
#   ./c (to try a candidate fix without touching the checkout).
#   tests/fuzz/run.sh 20 /tmp/fz fuzz_any   (only the named targets)
#
# New inputs found during a run go to <build>/corpus/<target>, never into the
# checked-in seeds. Every crash found becomes a test in
# tests/c/test_fuzz_regressions.c.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${1:-${XFFI_FUZZ_SECONDS:-20}}
build=${2:-${XFFI_FUZZ_BUILD:-$root/build/fuzz}}
shift $(($# > 2 ? 2 : $#))
cc=${XFFI_FUZZ_CC:-clang}
jobs=${XFFI_JOBS:-2}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wpedantic -Wshadow -Werror -Iinclude"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi

mkdir -p "$build/obj" "$build/artifacts" || exit 1
# The library, instrumented for coverage but without libFuzzer's main.
src=${XFFI_FUZZ_SOURCES:-$root}
printf '%s\n' "$src"/c/*.c | xargs -P "$jobs" -I{} sh -c \
  'o="$1/obj/$(basename "$2" .c).o"; exec '"$cc $cflags -I$src/c -DXFFI_BUILDING $san"' -fsanitize=fuzzer-no-link -c "$2" -o "$o"' \
  _ "$build" {} || { echo "fuzz: building the library failed"; exit 1; }
rm -f "$build/libxffi_fuzz.a"
ar rcs "$build/libxffi_fuzz.a" "$build"/obj/*.o || exit 1

failed=()
for t in "${targets[@]}"; do
  if ! $cc $cflags $san -fsanitize=fuzzer "tests/fuzz/$t.c" "$build/libxffi_fuzz.a" -lpthread -ldl -lm \
      -o "$build/$t"; then
    failed+=("$t (build)")
    continue
  fi
  seeds=tests/fuzz/corpus/$t
  work=$build/corpus/$t
  mkdir -p "$work"
  if [ "$seconds" -eq 0 ]; then
    run=(-runs=0)
  else
    run=(-max_total_time="$seconds")
  fi
  echo "=== fuzz $t (${seconds} s)"
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/$t" "${run[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$build/$t.log" 2>&1; then
    tail -n 60 "$build/$t.log"
    failed+=("$t")
  else
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$build/$t.log" | tr '\n' ' '
    echo
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: FAILED: %s\n' "${failed[@]}"
  echo "fuzz: crashing inputs are in $build/artifacts/"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ok"
