#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with CMake (-DXFFI_FUZZ=ON with
# clang: the library and the targets instrumented with
# -fsanitize=fuzzer-no-link,address,undefined, each target linked with
# libFuzzer's main; see tests/fuzz/CMakeLists.txt) and runs each for a bounded
# time, leak checking on, starting from its checked-in seed corpus. Fails if
# any target fails to build, crashes, leaks, trips a sanitizer or breaks one
# of its model checks; the input that did it is left in <build>/artifacts/.
#
#   tests/fuzz/run.sh [seconds per target] [build dir]
#     seconds: default $XFFI_FUZZ_SECONDS or 20; 0 only replays the seeds.
#     XFFI_JOBS targets (default 2) run at a time, each for the full time.
#     build dir: default $XFFI_FUZZ_BUILD or build/fuzz.
#   XFFI_FUZZ_CC: the compiler, default clang.
#   tests/fuzz/run.sh 20 /tmp/fz fuzz_any   (only the named targets)
#
# New inputs found during a run go to <build>/corpus/<target>, never into the
# checked-in seeds. Every crash found becomes a test in
# tests/c/runtime/test_fuzz_regressions.c.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${1:-${XFFI_FUZZ_SECONDS:-20}}
build=${2:-${XFFI_FUZZ_BUILD:-$root/build/fuzz}}
shift $(($# > 2 ? 2 : $#))
cc=${XFFI_FUZZ_CC:-clang}
jobs=${XFFI_JOBS:-2}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi

mkdir -p "$build/artifacts" || exit 1
# Only the library and the fuzz targets: the tests, benchmarks and tour have
# builds of their own.
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug -DXFFI_FUZZ=ON \
    -DXFFI_BUILD_TESTS=OFF -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_EXAMPLES=OFF >/dev/null ||
  ! cmake --build "$build" -j "$jobs" --target "${targets[@]}"; then
  echo "fuzz: building the targets failed"
  exit 1
fi

# Each target is one libFuzzer process on one core: XFFI_JOBS of them run at
# once, each still for the full time. Their reports are printed in order.
fuzz_one() { # target: runs it, leaves its report in $build/$t.report and its status in $build/$t.status
  local t=$1 seeds=tests/fuzz/corpus/$1 work=$build/corpus/$1 run status
  mkdir -p "$work"
  if [ "$seconds" -eq 0 ]; then
    run=(-runs=0)
  else
    run=(-max_total_time="$seconds")
  fi
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$t" "${run[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$build/$t.log" 2>&1
  status=$?
  {
    echo "=== fuzz $t (${seconds} s)"
    if [ $status -ne 0 ]; then
      tail -n 60 "$build/$t.log"
    else
      grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$build/$t.log" | tr '\n' ' '
      echo
    fi
  } >"$build/$t.report"
  echo $status >"$build/$t.status"
}

running=0
for t in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  rm -f "$build/$t.status" "$build/$t.report"
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

failed=()
for t in "${targets[@]}"; do
  cat "$build/$t.report"
  [ "$(cat "$build/$t.status")" = 0 ] || failed+=("$t")
done

if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: FAILED: %s\n' "${failed[@]}"
  echo "fuzz: crashing inputs are in $build/artifacts/"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ok"
