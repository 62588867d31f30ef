#!/usr/bin/env bash
# Runs every test of xffi, installing what the tests need first.
#   C: gcc and clang builds with -Werror, the cmocka suite under ctest, again
#      under AddressSanitizer+UBSan, the thread tests under ThreadSanitizer,
#      public headers compiled alone as C11 and C++, the house rules (no
#      include cycle in c/ and include/, no source file over 800 lines:
#      scripts/check-house.py), the installed package used through
#      find_package and pkg-config.
#   Python: numpy exchanging tensors with xffi over DLPack; tvm-ffi's Python
#      package loading and calling a library written with xffi, and using a
#      Rust type reflected with #[derive(xffi::Object)] (on xffi's runtime).
#   Peer suite: tvm-ffi's own Python suite (the pinned sdist, fetched and
#      cached at test time) on the wheel's runtime and on xffi's drop-in
#      (scripts/tvm-ffi-on-xffi.sh), judged against tests/peer/known-failures.txt
#      (tests/peer/run.py; docs/tvm-ffi.md).
#   Rust: cargo test (doctests included), cross-language tests under valgrind
#      (cargo's runner: scripts/cargo-valgrind.sh), cargo package of each crate;
#      clippy with warnings and undocumented unsafe blocks as errors.
#   Mixed C and Rust: the cbindgen header is up to date, the three examples of
#      examples/mixed and the one-runtime test run under valgrind.
#   Fuzzing: every libFuzzer target, built by CMake (XFFI_FUZZ=ON), for a
#      bounded time (XFFI_FUZZ_SECONDS, default 60 per target) from its
#      checked-in seeds.
#   Formatting: the C code as .clang-format says, the Rust crates as cargo fmt
#      (scripts/format.sh --check).
#   Cross targets: the C suite and the tour built for and run on every
#      scripts/cross/<target>.sh (Linux aarch64 and s390x under qemu-user, i686,
#      ...), one line per target (scripts/test-cross.sh).
# Build trees go to build/ (override with XFFI_BUILD_ROOT). Every step runs
# even when an earlier one failed; the exit status says whether all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${XFFI_BUILD_ROOT:-$root/build}
jobs=${XFFI_JOBS:-2}

bash scripts/install-deps.sh test || { echo "installing dependencies failed"; exit 1; }
tvm_include=$(python3 -m tvm_ffi.config --includedir) || { echo "the apache-tvm-ffi wheel is missing"; exit 1; }

source "$root/scripts/steps.sh"

configure_build() { # dir, extra cmake args...
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DXFFI_TVM_FFI_INCLUDE_DIR="$tvm_include" "$@" >/dev/null &&
    cmake --build "$dir" -j "$jobs"
}

c_suite() { # dir, compiler, extra cmake args...
  local dir=$1 compiler=$2
  shift 2
  configure_build "$dir" -DCMAKE_C_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Debug "$@" &&
    ctest --test-dir "$dir" -j "$jobs" --output-on-failure
}

release_build() {
  configure_build "$build/release" -DCMAKE_BUILD_TYPE=Release &&
    ctest --test-dir "$build/release" -R tvm_ffi_dropin_properties --output-on-failure
}

sanitizers() {
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  c_suite "$build/asan" clang -DXFFI_SANITIZE=address,undefined
}

thread_sanitizer() {
  export TSAN_OPTIONS=halt_on_error=1
  configure_build "$build/tsan" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DXFFI_SANITIZE=thread &&
    ctest --test-dir "$build/tsan" -L threads -j "$jobs" --output-on-failure
}

headers_compile_alone() {
  local ok=0 h rel
  for h in $(cd include && find xffi -name '*.h' | sort); do
    printf '#include <%s>\nint main(void){return 0;}\n' "$h" >"$build/header_probe.c"
    cp "$build/header_probe.c" "$build/header_probe.cpp"
    if ! cc -std=c11 -Wall -Wextra -pedantic -Werror -Iinclude -fsyntax-only "$build/header_probe.c"; then
      echo "not self-contained as C11: $h"
      ok=1
    fi
    if ! c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -fsyntax-only "$build/header_probe.cpp"; then
      echo "not self-contained as C++: $h"
      ok=1
    fi
  done
  return $ok
}

house_rules() {
  python3 -m pytest -q -p no:cacheprovider tests/python/test_check_house.py && python3 scripts/check-house.py "$root"
}

installed_package() {
  local prefix=$build/install consumer=$build/consumer
  rm -rf "$prefix" "$consumer" && mkdir -p "$consumer" &&
    cmake --install "$build/release" --prefix "$prefix" >/dev/null &&
    cp tests/install/consumer.c tests/install/CMakeLists.txt "$consumer/" &&
    cmake -S "$consumer" -B "$consumer/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$consumer/build" &&
    "$consumer/build/consumer_cmake_shared" && "$consumer/build/consumer_cmake_static" &&
    PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name xffi.pc)")" sh -c \
      'cc -std=c11 -o "$1/consumer_pkgconfig" tests/install/consumer.c $(pkg-config --cflags --libs xffi) -Wl,-rpath,"$(pkg-config --variable=libdir xffi)"' _ "$consumer" &&
    "$consumer/consumer_pkgconfig" &&
    ! (ldd "$prefix"/lib*/libxffi.so | grep -q 'libstdc++') &&
    installed_dropin "$prefix"
}

installed_dropin() { # prefix: a plain install leaves the libtvm_ffi.so drop-in out; its component installs it
  local prefix=$1
  if ls "$prefix"/lib*/libtvm_ffi.so >/dev/null 2>&1; then
    echo "a plain install put the libtvm_ffi.so drop-in into $prefix"
    return 1
  fi
  cmake --install "$build/release" --prefix "$prefix" --component tvm_ffi_dropin >/dev/null &&
    readelf -d "$prefix"/lib*/libtvm_ffi.so | grep -q 'SONAME.*\[libtvm_ffi.so\]'
}

numpy_dlpack() {
  XFFI_LIB="$build/release/libxffi.so" python3 -m pytest -q -p no:cacheprovider tests/python/test_numpy_dlpack.py
}

tvm_loads_xffi() { # and a Rust library's reflected type used from Python on xffi's runtime; JSON graphs across runtimes; the same globals and VisitErrorContext
  XFFI_INTEROP_XFFI_LIB="$build/release/tests/libxffi_interop_xffi_exports.so" \
    python3 -m pytest -q -p no:cacheprovider tests/interop/test_tvm_loads_xffi.py &&
    XFFI_BUILD_ROOT="$build" XFFI_JOBS="$jobs" \
      python3 -m pytest -q -p no:cacheprovider tests/interop/test_rust_reflect_e2e.py &&
    XFFI_BUILD_ROOT="$build" python3 -m pytest -q -p no:cacheprovider tests/interop/test_graph_cross_runtime.py \
      tests/interop/test_same_surface.py tests/interop/test_walk_callback_changes.py
}

peer_suite() {
  python3 tests/peer/known_failures.py &&
    python3 -m pytest -q -p no:cacheprovider tests/peer/test_peer_driver.py tests/arrangements/test_check_arrangements.py &&
    XFFI_BUILD_ROOT="$build" XFFI_JOBS="$jobs" python3 tests/peer/run.py --work "$build/peer"
}

rust_crates() {
  bash rust/scripts/test.sh
}

rust_lints() { # the lints are the workspace's (Cargo.toml [workspace.lints])
  cargo clippy --workspace --all-targets --features xffi/serde --jobs "$jobs" -- -D warnings
}

formatting() {
  bash scripts/format.sh --check
}

mixed_c_and_rust() {
  bash scripts/test-mixed.sh
}

fuzzing() {
  bash tests/fuzz/run.sh "${XFFI_FUZZ_SECONDS:-60}" "$build/fuzz"
}

cross_targets() {
  XFFI_BUILD_ROOT="$build" bash scripts/test-cross.sh
}

mkdir -p "$build"
step "C suite, gcc -Werror" c_suite "$build/gcc" gcc
step "C suite, clang -Werror" c_suite "$build/clang" clang
step "C suite under AddressSanitizer+UBSan" sanitizers
step "thread tests under ThreadSanitizer" thread_sanitizer
step "public headers compile alone (C11, C++)" headers_compile_alone
step "house rules: file sizes, include graph" house_rules
step "release build (library, benchmarks, tour)" release_build
step "installed package: find_package and pkg-config" installed_package
step "numpy exchanges tensors with xffi over DLPack" numpy_dlpack
step "tvm-ffi (Python) loads and calls a library written with xffi" tvm_loads_xffi
step "tvm-ffi's own Python suite on xffi's runtime (peer suite, known-failures list)" peer_suite
step "Rust crates: tests, doctests, valgrind, cargo package" rust_crates
step "Rust lints: clippy -D warnings -D clippy::undocumented_unsafe_blocks" rust_lints
step "mixed C and Rust: cbindgen header, three examples, one runtime (valgrind)" mixed_c_and_rust
step "fuzzing (libFuzzer, ${XFFI_FUZZ_SECONDS:-60} s per target)" fuzzing
step "formatting: clang-format, cargo fmt" formatting
step "cross targets: build, suite and tour on each (scripts/cross)" cross_targets

# What the machine was, next to the verdict (CI shows only the end of the output).
echo "machine: $(nproc) CPUs, $(free -m 2>/dev/null | awk '/^Mem:/{print $2 " MiB RAM"}'), $(df -Pm "$build" | awk 'NR==2{print $4 " MiB free in the build directory"}'), processes limit $(ulimit -u)"
steps_summary steps
