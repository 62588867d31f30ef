# scripts/cross/_linux.sh: what the Linux cross targets share (sourced by
# aarch64.sh, s390x.sh, i686.sh; test-cross.sh skips files starting with _).
#   linux_cross TARGET [COMPILER]
# Installs Debian's cross gcc for TARGET (toolchain file
# cmake/toolchains/TARGET.cmake), its libc and qemu-user if missing
# (scripts/install-deps.sh cross), builds cmocka for it
# (scripts/cross/cmocka.sh), builds xffi (library, suite, tour; no
# benchmarks, which only run on the host) in Debug with -Werror, runs the
# suite under ctest (qemu-user, through the toolchain's emulator) and compares
# the tour's output with an x86-64 build's.
# COMPILER (default: the toolchain's gcc) may be clang. Prints one line
#   cross LABEL: builds yes|no, tests N passed M failed, tour identical yes|no
# and returns non-zero unless everything built and passed and the tour matched
# (or differed exactly as scripts/cross/TARGET.tour.diff says it must).
set -uo pipefail
cross_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cross_build=$(realpath -m "${XFFI_BUILD_ROOT:-$cross_root/build}")/cross
cross_jobs=${XFFI_JOBS:-2}

source "$cross_root/scripts/cross/_install.sh"

linux_cross() {
  local target=$1 compiler=${2:-}
  local label=$target${compiler:+-$compiler} toolchain=$cross_root/cmake/toolchains/$target.cmake
  local triple
  triple=$(sed -n 's/^set(XFFI_CROSS_TRIPLE \(.*\))$/\1/p' "$toolchain")
  local prefix=$cross_build/$target/prefix dir=$cross_build/$label/xffi
  local builds=no passed=0 failed=0 tour=no tour_ok=no reference summary
  # A target whose tour must differ from x86-64's (sizes that depend on the
  # pointer width, say) lists the expected diff here.
  local expected_diff=$cross_root/scripts/cross/$target.tour.diff
  mkdir -p "$dir"

  # gcc-TRIPLE, libc6-dev-DEB_ARCH-cross, qemu-user (scripts/install-deps.sh cross)
  if cross_install &&
    bash "$cross_root/scripts/cross/cmocka.sh" "$toolchain" "$prefix" &&
    cmake -S "$cross_root" -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
      -DXFFI_CROSS_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Debug -DXFFI_BUILD_BENCH=OFF ${compiler:+-DCMAKE_C_COMPILER=$compiler} \
      -DXFFI_TVM_FFI_INCLUDE_DIR="$(python3 -m tvm_ffi.config --includedir)" >"$dir.configure.log" 2>&1 &&
    cmake --build "$dir" -j "$cross_jobs" >"$dir.build.log" 2>&1; then
    builds=yes
  else
    [ -f "$dir.configure.log" ] && tail -n 30 "$dir.configure.log"
    [ -f "$dir.build.log" ] && tail -n 30 "$dir.build.log"
  fi

  if [ $builds = yes ]; then
    ctest --test-dir "$dir" -j "$cross_jobs" --output-on-failure >"$dir.ctest.log" 2>&1
    summary=$(grep -E 'tests passed, [0-9]+ tests? failed out of' "$dir.ctest.log")
    if [ -n "$summary" ]; then
      failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
      passed=$(($(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary") - failed))
    fi
    [ "$failed" -gt 0 ] && grep -E '^\s+[0-9]+ - ' "$dir.ctest.log"
    [ "$failed" -gt 0 ] && sed -n '/\*\*\*Failed/,/FAILED TEST/p' "$dir.ctest.log" | tail -n 60
    if reference=$(cross_reference_tour) &&
      qemu_run=$(sed -n 's/^set(CMAKE_CROSSCOMPILING_EMULATOR \(.*\))$/\1/p' "$toolchain" | sed "s|\${XFFI_CROSS_TRIPLE}|$triple|") &&
      $qemu_run "$dir/examples/tour" >"$dir.tour.txt" 2>&1; then
      if cmp -s "$reference" "$dir.tour.txt"; then
        tour=yes tour_ok=yes
      else
        diff "$reference" "$dir.tour.txt" >"$dir.tour.diff"
        if [ -f "$expected_diff" ] && cmp -s "$expected_diff" "$dir.tour.diff"; then
          tour_ok=yes
        else
          head -n 20 "$dir.tour.diff"
        fi
      fi
    fi
  fi
  echo "cross $label: builds $builds, tests $passed passed $failed failed, tour identical $tour"
  [ $tour_ok = yes ] && [ $tour = no ] &&
    echo "cross $label: the tour differs from x86-64's only where expected (${expected_diff#"$cross_root/"})"
  [ $builds = yes ] && [ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] && [ $tour_ok = yes ]
}
