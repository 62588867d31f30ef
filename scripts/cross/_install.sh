# scripts/cross/_install.sh: what the cross target scripts share: installing
# what they need and the summary line
# (sourced; test-cross.sh skips files starting with _).
#   cross_sudo COMMAND...      runs COMMAND as root (sudo unless already root)
#   cross_install              installs what is missing of what every cross
#                              target needs (scripts/install-deps.sh cross: one
#                              apt-get install; nothing when all is there)
#   cross_target_begin TARGET  for a target script run from the repository
#                              root: sets root, build_root, work (its build
#                              directory), prefix, jobs and the summary counters
#                              (builds passed failed tour), and prints
#                              "cross TARGET: builds ..., tests N passed M failed,
#                              tour identical ..." when the script exits
#   cross_build_suite TOOLCHAIN
#                              configures and builds xffi (library, suite,
#                              tour; Debug, no benchmarks) for the toolchain
#                              in $work/build, sets builds=yes, or prints the
#                              errors of its logs and returns 1
#   cross_reference_tour       runs the x86-64 tour, XFFI_HOST_TOUR if set (the
#                              release build of scripts/test.sh, built in the
#                              same run), else one built here (incrementally);
#                              prints the path of its output, the reference
#                              every target's tour must print
#   cross_ctest                runs the suite in $work/build (log in
#                              $work/ctest.log), prints its result lines and
#                              sets status, passed and failed
cross_sudo() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

cross_install() {
  bash "$(dirname "${BASH_SOURCE[0]}")/../install-deps.sh" cross
}

cross_target_begin() {
  target=$1
  root=$(pwd)
  build_root=$(realpath -m "${XFFI_BUILD_ROOT:-$root/build}")
  work=$build_root/cross/$target
  prefix=$work/prefix
  jobs=${XFFI_JOBS:-2}
  builds=no passed=0 failed=0 tour=no
  trap 'echo "cross $target: builds $builds, tests $passed passed $failed failed, tour identical $tour"' EXIT
}

cross_ctest() {
  ctest --test-dir "$work/build" -j "$jobs" --timeout 600 --output-on-failure >"$work/ctest.log" 2>&1
  status=$?
  grep -E '^\s*[0-9]+/[0-9]+ Test|tests passed|\*\*\*' "$work/ctest.log" | tail -40
  passed=$(grep -cE '^\s*[0-9]+/[0-9]+ Test .* Passed' "$work/ctest.log")
  failed=$(grep -cE '^\s*[0-9]+/[0-9]+ Test .*(\*\*\*|Failed|Not Run|Timeout)' "$work/ctest.log")
}

cross_build_suite() {
  local toolchain=$1 tvm_include
  tvm_include=$(python3 -m tvm_ffi.config --includedir 2>/dev/null || true)
  export XFFI_CROSS_PREFIX=$prefix PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
  if cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Debug \
    -DXFFI_BUILD_BENCH=OFF -DXFFI_TVM_FFI_INCLUDE_DIR="$tvm_include" >"$work/configure.log" 2>&1 &&
    cmake --build "$work/build" -j "$jobs" >"$work/build.log" 2>&1; then
    builds=yes
  else
    cat "$work/configure.log" "$work/build.log" | grep -E 'error|Error|FAILED' | head -40
    return 1
  fi
}

cross_reference_tour() {
  local repo dir
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  dir=$(realpath -m "${XFFI_BUILD_ROOT:-$repo/build}")/cross/host-tour
  local tour=${XFFI_HOST_TOUR:-$dir/examples/tour}
  mkdir -p "$dir"
  # Built (incrementally) and run every time: a reference kept from an older
  # tree would compare the target's tour with another version's.
  if [ -z "${XFFI_HOST_TOUR:-}" ]; then
    cmake -S "$repo" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXFFI_BUILD_TESTS=OFF \
      -DXFFI_BUILD_BENCH=OFF >/dev/null &&
      cmake --build "$dir" --target tour >/dev/null || return 1
  fi
  "$tour" >"$dir/tour.txt" || return 1
  echo "$dir/tour.txt"
}
