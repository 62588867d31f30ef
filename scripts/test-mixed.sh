#!/usr/bin/env bash
# Tests the mixed C/Rust arrangements (examples/mixed):
#   - bindings/xffi_capi.h is exactly what the pinned cbindgen
#     generates from examples/mixed/xffi-capi (the example C API written in
#     Rust), and compiles alone as C11 and C++;
#   - xffi-capi's own tests (bad input to every exported function, panics,
#     deleter counts), under valgrind;
#   - the three examples, each linked both ways (xffi shared / xffi static),
#     under valgrind; each checks that every deleter ran exactly once:
#       1. C host + Rust library (through the cbindgen header),
#       2. Rust host + C plugin (XFFI_EXPORT_FUNCTION),
#       3. C host + Rust plugin (__tvm_ffi_<name> exported from Rust);
#   - the one-runtime test: a Rust host and C and Rust plugins share one type
#     registry and one global function registry, with xffi linked statically
#     into the host and with the shared libxffi.so; plus its control (a
#     plugin with a private copy of xffi is caught) and a check that a static
#     host exports every libxffi symbol and plugins bind to nothing else.
# Runs from any directory. Builds into build/mixed (XFFI_BUILD_ROOT/mixed: C,
# libxffi via CMake, installed to build/mixed/prefix) and target/ (Rust;
# CARGO_TARGET_DIR is honoured, the `system` builds go to its mixed-system
# subdirectory). XFFI_MIXED_LIBXFFI_BUILD names a CMake build of xffi (Release)
# to install libxffi from instead of building one (scripts/test.sh passes its
# release build).
# Every step runs even when an earlier one failed; exits 1 if any failed.
#   scripts/test-mixed.sh --install-tools   only installs the pinned cbindgen
#                                           (into build/mixed/tools) if missing
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${XFFI_BUILD_ROOT:-$root/build}/mixed
prefix=$build/prefix
target=${CARGO_TARGET_DIR:-$root/target}
target_system=$target/mixed-system
target_libdir=$target/mixed-libdir # the `system` feature from XFFI_LIB_DIR alone
jobs=${XFFI_JOBS:-2}
cc=${CC:-cc}
cbindgen_version=0.29.4
capi=examples/mixed/xffi-capi # the C API written in Rust (example 1)
bindings=bindings # its cbindgen header
valgrind=("$root/scripts/valgrind-runner.sh") # fails on memory errors and definite/indirect leaks
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -g)
export RUST_BACKTRACE=0 # example 3 makes the Rust plugin panic on purpose: one line of message is enough

missing=()
tools=(cargo cmake ninja valgrind "$cc" c++ nm python3 pkg-config)
[ "${1:-}" = --install-tools ] && tools=(cargo)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing tools: ${missing[*]} (scripts/install-deps.sh installs them)"
  exit 1
fi

source "$root/scripts/steps.sh"
started=$SECONDS

# ---- Tools and the header ----

cbindgen_bin=""
ensure_cbindgen() {
  local candidate
  for candidate in "$(command -v cbindgen || true)" "$build/tools/bin/cbindgen"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && [ "$("$candidate" --version 2>/dev/null)" = "cbindgen $cbindgen_version" ]; then
      cbindgen_bin=$candidate
      echo "using $candidate ($cbindgen_version)"
      return 0
    fi
  done
  echo "installing cbindgen $cbindgen_version into $build/tools"
  cargo install cbindgen --version "$cbindgen_version" --locked --jobs "$jobs" --root "$build/tools" --quiet &&
    cbindgen_bin=$build/tools/bin/cbindgen &&
    [ "$("$cbindgen_bin" --version)" = "cbindgen $cbindgen_version" ]
}

header_is_generated() {
  [ -n "$cbindgen_bin" ] || { echo "no cbindgen $cbindgen_version"; return 1; }
  local fresh=$build/xffi_capi.h.generated
  if ! "$cbindgen_bin" --config "$capi/cbindgen.toml" --crate xffi-capi --output "$fresh" \
    "$capi" 2>"$build/cbindgen.log"; then
    cat "$build/cbindgen.log"
    return 1
  fi
  if ! diff -u "$bindings/xffi_capi.h" "$fresh"; then
    echo "bindings/xffi_capi.h differs from what cbindgen $cbindgen_version generates (diff above)."
    echo "Regenerate it: $cbindgen_bin --config $capi/cbindgen.toml --crate xffi-capi \\"
    echo "                 --output $bindings/xffi_capi.h $capi"
    return 1
  fi
  echo "bindings/xffi_capi.h matches cbindgen $cbindgen_version's output"
}

header_compiles_alone() {
  printf '#include "xffi_capi.h"\nint main(void) { return 0; }\n' >"$build/header_probe.c"
  cp "$build/header_probe.c" "$build/header_probe.cpp"
  "$cc" -std=c11 -Wall -Wextra -pedantic -Werror -Iinclude -I"$bindings" -fsyntax-only "$build/header_probe.c" &&
    c++ -std=c++17 -Wall -Wextra -pedantic -Werror -Iinclude -I"$bindings" -fsyntax-only "$build/header_probe.cpp"
}

# ---- Builds ----

libxffi_shared() {
  local from=${XFFI_MIXED_LIBXFFI_BUILD:-$build/xffi}
  if [ -z "${XFFI_MIXED_LIBXFFI_BUILD:-}" ]; then
    cmake -S "$root" -B "$from" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXFFI_BUILD_TESTS=OFF \
      -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_EXAMPLES=OFF >/dev/null &&
      cmake --build "$from" -j "$jobs" >/dev/null || return 1
  fi
  echo "libxffi from $from"
  rm -rf "$prefix" &&
    cmake --install "$from" --prefix "$prefix" >/dev/null &&
    ls "$prefix/lib/libxffi.so.0" "$prefix/lib/libxffi.a" "$prefix/lib/pkgconfig/xffi.pc"
}

capi_tests() {
  cargo test -p xffi-capi --jobs "$jobs" --quiet || return 1
  # Its unit and integration tests again (no rebuild), each started by cargo
  # through the valgrind runner; not the doctests (each a process of its own).
  scripts/cargo-valgrind.sh test -p xffi-capi --jobs "$jobs" --lib --test=bad_input --test=counters \
    -- --test-threads=2 -q
}

rust_static() { # default features: the C core linked statically
  cargo build -p xffi-capi -p xffi-mixed-rust-host -p xffi-mixed-rust-plugin --jobs "$jobs" --quiet
}

rust_system() { # the `system` feature: libxffi.so from build/mixed/prefix
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig CARGO_TARGET_DIR=$target_system \
    cargo build -p xffi-capi -p xffi-mixed-rust-host -p xffi-mixed-rust-plugin --jobs "$jobs" --quiet \
    --features xffi-capi/system,xffi-mixed-rust-host/system,xffi-mixed-rust-plugin/system
}

rust_system_libdir() { # XFFI_LIB_DIR and no pkg-config file at all
  local host=$target_libdir/debug/xffi-mixed-rust-host
  XFFI_LIB_DIR=$prefix/lib PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent CARGO_TARGET_DIR=$target_libdir \
    cargo build -p xffi-mixed-rust-host --jobs "$jobs" --quiet --features xffi-mixed-rust-host/system || return 1
  local dynamic
  dynamic=$(readelf -d "$host") || return 1
  echo "$dynamic" | grep -E 'NEEDED|RPATH|RUNPATH'
  echo "$dynamic" | grep -q 'NEEDED.*\[libxffi\.so\.0\]' &&
    echo "$dynamic" | grep -qE "(RPATH|RUNPATH).*$(cd "$prefix/lib" && pwd -P)"
}

c_programs() {
  mkdir -p "$build/bin" "$build/lib"
  local shared=(-L"$prefix/lib" -lxffi -Wl,-rpath,"$prefix/lib")
  # The whole static library, its symbols exported for plugins (-rdynamic).
  local static_export=(-Wl,--whole-archive "$prefix/lib/libxffi.a" -Wl,--no-whole-archive -rdynamic -lpthread -ldl)
  # Example 1, shared: the Rust library built with `system` and libxffi.so.
  "$cc" "${cflags[@]}" -I"$prefix/include" -I"$bindings" examples/mixed/c-host-rust-lib/main.c \
    -o "$build/bin/c-host-rust-lib-shared" -L"$target_system/debug" -lxffi_capi \
    -Wl,-rpath,"$target_system/debug" "${shared[@]}" -lm || return 1
  # Example 1, static: the Rust staticlib, which carries the C core.
  "$cc" "${cflags[@]}" -Iinclude -I"$bindings" examples/mixed/c-host-rust-lib/main.c \
    -o "$build/bin/c-host-rust-lib-static" "$target/debug/libxffi_capi.a" \
    -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc || return 1
  # Example 2's C plugin: linked to libxffi.so, never unloaded.
  "$cc" "${cflags[@]}" -fPIC -shared -I"$prefix/include" examples/mixed/c-plugin/plugin.c \
    -o "$build/lib/libxffi_mixed_c_plugin.so" -Wl,-z,nodelete "${shared[@]}" || return 1
  # Example 3's C host, both ways.
  "$cc" "${cflags[@]}" -I"$prefix/include" examples/mixed/c-host-rust-plugin/main.c \
    -o "$build/bin/c-host-rust-plugin-shared" "${shared[@]}" -ldl || return 1
  "$cc" "${cflags[@]}" -I"$prefix/include" examples/mixed/c-host-rust-plugin/main.c \
    -o "$build/bin/c-host-rust-plugin-static" "${static_export[@]}"
}

# ---- Runs ----

c_plugin=$build/lib/libxffi_mixed_c_plugin.so
rust_plugin=$target_system/debug/libxffi_mixed_rust_plugin.so
private_plugin=$target/debug/libxffi_mixed_rust_plugin.so # default features: its own copy of xffi

run() { # program and arguments, under valgrind
  echo "\$ valgrind ... ${*/#$root\//}"
  "${valgrind[@]}" "$@"
}

split_control() {
  # The control plugin must really carry its own xffi: no undefined xffi symbol.
  if nm -D --undefined-only "$private_plugin" | grep -q ' xffi_'; then
    echo "$private_plugin uses an outside xffi; expected its own copy"
    return 1
  fi
  run "$target/debug/one-runtime" --expect-split "$private_plugin"
}

static_host_exports_everything() {
  local host=$target/debug/one-runtime
  local want got
  want=$(nm -D --defined-only "$prefix/lib/libxffi.so.0" | awk '{print $3}' | sort)
  got=$(nm -D --defined-only "$host" | awk '{print $3}' | grep '^xffi_' | sort)
  if [ "$want" != "$got" ]; then
    echo "the static host's exported xffi symbols differ from libxffi.so's:"
    diff <(echo "$want") <(echo "$got")
    return 1
  fi
  echo "the static host exports all $(echo "$want" | wc -l) symbols libxffi.so exports"
  # The plugins pull in libxffi.so.0 (their dependency) but must bind to the host's copy only.
  local bindings
  bindings=$(LD_DEBUG=bindings "$host" "$c_plugin" "$rust_plugin" 2>&1 >/dev/null | grep "binding file")
  local to_host to_lib
  to_host=$(echo "$bindings" | grep -c "to $host .*\`xffi_" || true)
  to_lib=$(echo "$bindings" | grep -c "to [^ ]*libxffi\.so\.0 " || true)
  echo "plugin symbols bound to the host's xffi: $to_host; to libxffi.so.0: $to_lib"
  [ "$to_host" -gt 0 ] && [ "$to_lib" -eq 0 ]
}

mkdir -p "$build"
if [ "${1:-}" = --install-tools ]; then
  ensure_cbindgen
  exit
fi
step "cbindgen $cbindgen_version (pinned)" ensure_cbindgen
step "bindings/xffi_capi.h is what cbindgen generates" header_is_generated
step "bindings/xffi_capi.h compiles alone (C11, C++)" header_compiles_alone
step "libxffi.so and libxffi.a built by CMake, installed in build/mixed/prefix" libxffi_shared
step "xffi-capi tests: bad input to every export, panics, deleters (valgrind)" capi_tests
step "Rust builds, xffi static (default features)" rust_static
step "Rust builds, xffi shared (feature system)" rust_system
step "Rust host, xffi shared from XFFI_LIB_DIR (no pkg-config file)" rust_system_libdir
step "C programs and the C plugin (-Werror)" c_programs
step "example 1: C host + Rust library, shared (libxffi_capi.so + libxffi.so)" \
  run "$build/bin/c-host-rust-lib-shared"
step "example 1: C host + Rust library, static (libxffi_capi.a carries xffi)" \
  run "$build/bin/c-host-rust-lib-static"
step "example 2: Rust host (xffi static, exported) + C plugin" \
  run "$target/debug/xffi-mixed-rust-host" "$c_plugin"
step "example 2: Rust host (libxffi.so) + C plugin" \
  run "$target_system/debug/xffi-mixed-rust-host" "$c_plugin"
step "example 2: Rust host (libxffi.so from XFFI_LIB_DIR, found by rpath) + C plugin" \
  env -u LD_LIBRARY_PATH "${valgrind[@]}" "$target_libdir/debug/xffi-mixed-rust-host" "$c_plugin"
step "example 3: C host (libxffi.so) + Rust plugin" \
  run "$build/bin/c-host-rust-plugin-shared" "$rust_plugin"
step "example 3: C host (libxffi.a, exported) + Rust plugin" \
  run "$build/bin/c-host-rust-plugin-static" "$rust_plugin"
step "one runtime: Rust host with xffi static + C and Rust plugins" \
  run "$target/debug/one-runtime" "$c_plugin" "$rust_plugin"
step "one runtime: Rust host with libxffi.so + C and Rust plugins" \
  run "$target_system/debug/one-runtime" "$c_plugin" "$rust_plugin"
step "one runtime, control: a plugin with its own copy of xffi is caught" split_control
step "static host exports all of libxffi; plugins bind to nothing else" static_host_exports_everything

echo
echo "mixed steps took $((SECONDS - started)) s"
steps_summary mixed
