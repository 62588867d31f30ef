# scripts/cross/_install.sh: what the cross target scripts share: installing
# Debian packages and the summary line
# (sourced; test-cross.sh skips files starting with _).
#   cross_sudo COMMAND...      runs COMMAND as root (sudo unless already root)
#   cross_install [--no-recommends] PACKAGE...
#                              installs the packages that are missing; apt may
#                              be busy with another install on the machine, so
#                              it is retried (60 times, 10 s apart)
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
#   cross_reference_tour       builds (incrementally) and runs the x86-64 tour;
#                              prints the path of its output, the reference
#                              every target's tour must print
#   cross_ctest                runs the suite in $work/build (log in
#                              $work/ctest.log), prints its result lines and
#                              sets status, passed and failed
cross_sudo() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

cross_install() {
  local flags=() missing=() p i
  if [ "${1:-}" = --no-recommends ]; then
    flags=(--no-install-recommends)
    shift
  fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing Debian packages: ${missing[*]}"
  for i in $(seq 1 60); do
    if cross_sudo apt-get update -qq &&
      cross_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${flags[@]}" "${missing[@]}" >/dev/null; then
      return 0
    fi
    echo "apt is busy or failed; retrying in 10 s ($i/60)" >&2
    sleep 10
  done
  return 1
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
  # Built (incrementally) and run every time: a reference kept from an older
  # tree would compare the target's tour with another version's.
  cmake -S "$repo" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXFFI_BUILD_TESTS=OFF \
    -DXFFI_BUILD_BENCH=OFF >/dev/null &&
    cmake --build "$dir" --target tour >/dev/null &&
    "$dir/examples/tour" >"$dir/tour.txt" || return 1
  echo "$dir/tour.txt"
}
