#!/usr/bin/env bash
# Runs every test of xffi, installing what the tests need first.
#   scripts/test.sh              every step (CI: .ci/run; the README's command)
#   scripts/test.sh --list       the steps: a short id and what each checks
#   scripts/test.sh STEP...      only those steps, by id (and the builds they use)
# The steps (ids as --list prints them):
#   C: gcc and clang builds with -Werror, the cmocka suite under ctest, again
#      under AddressSanitizer+UBSan, the thread tests under ThreadSanitizer,
#      public headers compiled alone as C11 and C++, the house rules (no
#      include cycle in c/ and include/, no source file over 800 lines:
#      scripts/check-house.py), the installed package used through
#      find_package and pkg-config, a C plugin built from it both ways (and
#      once shipped with its own libxffi.so.0) and loaded on four runtimes
#      (the fourth, the plugin matrix's Rust host, built with cargo when the
#      plugins step has not built it). The README's C example is a test of the
#      suite (tests/cmake/readme.cmake).
#   Python: numpy exchanging tensors with xffi over DLPack; tvm-ffi's Python
#      package loading and calling a library written with xffi, and using a
#      Rust type reflected with #[derive(xffi::Object)] (on xffi's runtime).
#   Wheel: examples/rust-wheel, a Rust plugin packaged as a pip-installable
#      wheel with its type stub, installed in a fresh venv and tested on the
#      apache-tvm-ffi wheel's runtime and on xffi's (scripts/test-rust-wheel.sh).
#   Peer suite: tvm-ffi's own Python suite (the pinned sdist, fetched and
#      cached at test time) on the wheel's runtime and on xffi's drop-in
#      (scripts/tvm-ffi-on-xffi.sh), judged against tests/peer/known-failures.txt
#      (tests/peer/run.py; docs/tvm-ffi.md).
#   Clients: software built against tvm-ffi (the sdist's quickstart and
#      stable_c_abi examples, C++ and C hosts included; apache-tvm-ffi-orcjit)
#      on the wheel's runtime and on the drop-in, judged against
#      tests/clients/known-failures.txt (tests/clients/run.py).
#   Rust: cargo test (doctests included), cross-language tests under valgrind
#      (cargo's runner: scripts/cargo-valgrind.sh), cargo package of each crate;
#      clippy with warnings and undocumented unsafe blocks as errors; each
#      public crate packaged and built alone in dependency order (what cargo
#      publish --dry-run does, offline) and rustdoc with every public item
#      documented (rust/scripts/publish-check.sh).
#   Mixed C and Rust: the cbindgen header is up to date, the three examples of
#      examples/mixed and the one-runtime test run under valgrind.
#   Fuzzing: every libFuzzer target, built by CMake (XFFI_FUZZ=ON), for a
#      bounded time (XFFI_FUZZ_SECONDS, default 60 per target) from its
#      checked-in seeds, XFFI_JOBS targets at a time.
#   Formatting: the C code as .clang-format says, the Rust crates as cargo fmt
#      (scripts/format.sh --check).
#   Cross targets: the C suite and the tour built for and run on every
#      scripts/cross/<target>.sh (Linux aarch64 and s390x under qemu-user, i686,
#      ...), one line per target (scripts/test-cross.sh).
# Installs come first and once (scripts/install-deps.sh): the Debian and
# Python packages of the host steps before the first step; the cross
# toolchains, wine and qemu, and the pinned cbindgen (scripts/test-mixed.sh
# --install-tools) in the background while the C steps run; the steps that
# need them wait for them. Each configuration is built once: the release build
# serves the installed package, the Python, interop and peer steps (the
# drop-in libtvm_ffi.so), the mixed examples (libxffi) and the cross targets'
# reference tour.
# Build trees go to build/ (override with XFFI_BUILD_ROOT). Every step runs
# even when an earlier one failed; the exit status says whether all passed.
# The run ends with the time of every step and install, a table.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${XFFI_BUILD_ROOT:-$root/build}
jobs=${XFFI_JOBS:-2}

# The steps, in the order a full run takes them: id, function, description.
step_table=(
  "gcc|c_suite_gcc|C suite, gcc -Werror"
  "clang|c_suite_clang|C suite, clang -Werror (and the benchmarks built)"
  "asan|sanitizers|C suite under AddressSanitizer+UBSan"
  "tsan|thread_sanitizer|thread tests under ThreadSanitizer"
  "headers|headers_compile_alone|public headers compile alone (C11, C++)"
  "house|house_rules|house rules: file sizes, include graph, layers on includes and calls"
  "release|release_build|release build (library, drop-in, benchmarks, tour)"
  "perf|perf_guard|performance guard: callgrind instruction counts against bench/perf_baseline.tsv"
  "package|installed_package|installed package: find_package and pkg-config, a C plugin built from it"
  "numpy|numpy_dlpack|numpy exchanges tensors with xffi over DLPack"
  "interop|tvm_loads_xffi|tvm-ffi (Python) loads and calls a library written with xffi"
  "plugins|plugin_matrix|plugin matrix: a C and a Rust plugin on the wheel's runtime, the overlay, a C host on the drop-in and a Rust host; the library's tests on the wheel's runtime (known-failures lists)"
  "wheel|rust_wheel|a Rust plugin's wheel (examples/rust-wheel): built, installed in a fresh venv, its tests on the wheel's runtime and on the drop-in"
  "peer|peer_suite|tvm-ffi's own Python suite on xffi's runtime (peer suite, known-failures list)"
  "clients-rust|clients_rust|tvm-ffi's Rust crate's own cargo test on xffi's runtime (known-failures list); type attributes against the wheel's"
  "clients|tvm_ffi_clients|tvm-ffi's clients on xffi's runtime: the sdist's CPU examples (rust_stubgen included), orcjit, TVM (known-failures list)"
  "rust|rust_crates|Rust crates: tests, doctests, valgrind, cargo package"
  "clippy|rust_lints|Rust lints: cargo clippy -D warnings with the workspace's lints"
  "crates|rust_publish|Rust crates as published: each packaged and built alone in order, rustdoc -D missing_docs"
  "mixed|mixed_c_and_rust|mixed C and Rust: cbindgen header, three examples, one runtime (valgrind)"
  "fuzz|fuzzing|fuzzing (libFuzzer, ${XFFI_FUZZ_SECONDS:-60} s per target)"
  "format|formatting|formatting: clang-format, cargo fmt"
  "cross|cross_targets|cross targets: build, suite and tour on each (scripts/cross)"
)
step_ids=()
for entry in "${step_table[@]}"; do step_ids+=("${entry%%|*}"); done

usage() {
  echo "usage: scripts/test.sh [--list | STEP...]  (no STEP: every step)"
}
case ${1:-} in
  --list)
    for entry in "${step_table[@]}"; do
      IFS='|' read -r id _ what <<<"$entry"
      printf '%-8s %s\n' "$id" "$what"
    done
    exit 0
    ;;
  -h | --help)
    usage
    exit 0
    ;;
esac
declare -A selected=()
for arg in "$@"; do
  known=0
  for id in "${step_ids[@]}"; do [ "$arg" = "$id" ] && known=1; done
  if [ $known = 0 ]; then
    echo "scripts/test.sh: unknown step '$arg'; the steps are: ${step_ids[*]} (scripts/test.sh --list says what each checks)" >&2
    exit 2
  fi
  selected[$arg]=1
done
if [ $# -eq 0 ]; then
  for id in "${step_ids[@]}"; do selected[$id]=1; done
fi

source "$root/scripts/steps.sh"
mkdir -p "$build/logs"

# ---- Installs: once, up front; what only late steps need, in the background ----

# background NAME COMMAND...: starts COMMAND (niced, so the steps in the
# foreground keep their pace) with its output in $build/logs/NAME.log;
# await NAME waits for it, prints its log if it failed, and records its time.
declare -A background_pids=()
background() {
  local name=$1
  shift
  (
    start=$SECONDS
    nice -n 10 "$@" >"$build/logs/$name.log" 2>&1
    status=$?
    steps_cpu_file=$build/logs/$name.times # this subshell's own, not the main shell's file
    children_cpu
    echo "$status $((SECONDS - start)) $cpu_now" >"$build/logs/$name.status"
    exit $status
  ) &
  background_pids[$name]=$!
}
await() {
  local name=$1 status seconds cpu
  [ -n "${background_pids[$name]:-}" ] || return 0
  echo "waiting for the background install: $name"
  wait "${background_pids[$name]}"
  read -r status seconds cpu <"$build/logs/$name.status"
  unset "background_pids[$name]"
  if [ "$status" -eq 0 ]; then
    step_time "install (background): $name" "$seconds" ok "$cpu"
  else
    cat "$build/logs/$name.log"
    step_time "install (background): $name" "$seconds" FAILED "$cpu"
    failed=$((failed + 1))
    failed_steps+=("install (background): $name")
    failed_tails+=("$(tail -n "${XFFI_FAILURE_TAIL:-60}" "$build/logs/$name.log")")
  fi
  return "$status"
}

# The pinned cbindgen builds from source (Debian's is another version, and the
# header check compares its output byte for byte): it needs only cargo, so it
# starts at once.
[ -n "${selected[mixed]:-}" ] && background cbindgen bash scripts/test-mixed.sh --install-tools
install_start=$SECONDS
children_cpu
install_cpu=$cpu_now
if bash scripts/install-deps.sh test; then
  children_cpu
  step_time "install: Debian and Python packages of the host steps" $((SECONDS - install_start)) ok $((cpu_now - install_cpu))
else
  echo "installing dependencies failed"
  exit 1
fi
tvm_include=$(python3 -m tvm_ffi.config --includedir) || { echo "the apache-tvm-ffi wheel is missing"; exit 1; }
# apt holds one lock: the cross set starts once the host set is in.
[ -n "${selected[cross]:-}" ] && background cross-toolchains bash scripts/install-deps.sh cross

# ---- Builds and steps ----

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
    ctest --test-dir "$dir" -j "$jobs" --output-on-failure -LE wheel_runtime # that mode: the plugins step
}

# The benchmarks are built by clang here and by gcc in the release build; the
# other suites leave them out (they are programs, never run by ctest).
c_suite_gcc() {
  c_suite "$build/gcc" gcc -DXFFI_BUILD_BENCH=OFF
}

c_suite_clang() {
  c_suite "$build/clang" clang
}

# The release build (gcc, -O2): built once per run, by the first step that
# needs it.
release_ready=0
ensure_release_build() {
  [ $release_ready = 1 ] && return 0
  configure_build "$build/release" -DCMAKE_BUILD_TYPE=Release && release_ready=1
}

release_build() {
  ensure_release_build &&
    ctest --test-dir "$build/release" -R "tvm_ffi_dropin_(properties|cxx)" --output-on-failure
}

sanitizers() {
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  c_suite "$build/asan" clang -DXFFI_SANITIZE=address,undefined -DXFFI_BUILD_BENCH=OFF
}

thread_sanitizer() { # only the tests labelled threads, and what they need, are built
  export TSAN_OPTIONS=halt_on_error=1
  local dir=$build/tsan threaded
  cmake -S "$root" -B "$dir" -G Ninja -DXFFI_TVM_FFI_INCLUDE_DIR="$tvm_include" -DCMAKE_C_COMPILER=clang \
    -DCMAKE_BUILD_TYPE=Debug -DXFFI_SANITIZE=thread -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_EXAMPLES=OFF >/dev/null || return 1
  mapfile -t threaded < <(ctest --test-dir "$dir" -N -L threads | sed -n 's/^ *Test *#[0-9]*: *//p')
  [ ${#threaded[@]} -gt 0 ] || { echo "no test carries the label threads"; return 1; }
  echo "the ${#threaded[@]} thread tests: ${threaded[*]}"
  cmake --build "$dir" -j "$jobs" --target "${threaded[@]}" &&
    ctest --test-dir "$dir" -L threads -j "$jobs" --output-on-failure
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

house_rules() { # calls are read from the gcc suite's objects, built here when that step did not run
  { [ -f "$build/gcc/build.ninja" ] || cmake -S "$root" -B "$build/gcc" -G Ninja -DXFFI_TVM_FFI_INCLUDE_DIR="$tvm_include" \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Debug -DXFFI_BUILD_BENCH=OFF >/dev/null; } &&
    cmake --build "$build/gcc" -j "$jobs" --target xffi_objects >/dev/null &&
    python3 -m pytest -q -p no:cacheprovider tests/python/test_check_house.py &&
    python3 scripts/check-house.py --objects "$build/gcc" "$root"
}

perf_guard() { # the release build's benchmarks under callgrind; the guard's own test first
  ensure_release_build &&
    XFFI_PERF_GUARD_BUILD="$build/release" python3 -m pytest -q -p no:cacheprovider bench/test_perf_guard.py &&
    python3 bench/perf_guard.py --build "$build/release" --jobs "$jobs"
}

installed_package() {
  local prefix=$build/install consumer=$build/consumer
  ensure_release_build || return 1
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
    installed_dropin "$prefix" &&
    installed_plugin "$prefix"
}

# The plugin matrix's C plugin built out of tree from the installed package,
# with xffi_add_plugin and with pkg-config's xffi-plugin, then loaded on the
# wheel's runtime, the overlay on the installed drop-in, the C host and the
# matrix's Rust host (tests/install/check_plugin.py); and once more shipped
# with its own libxffi.so.0 beside it, found through $ORIGIN (installed from
# the same CMake project into $plugin/ship/shipped, libxffi.so.0 copied in).
installed_plugin() { # prefix (with the drop-in installed)
  local prefix=$1 plugin=$build/consumer-plugin rust_host
  local libdir
  libdir=$(dirname "$(find "$prefix" -name libxffi.so)")
  rust_host=$(matrix_rust_host) || return 1
  rm -rf "$plugin" && mkdir -p "$plugin" &&
    cp tests/plugin_matrix/c_plugin.c tests/install/plugin/CMakeLists.txt "$plugin/" &&
    cmake -S "$plugin" -B "$plugin/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    cmake --build "$plugin/build" >/dev/null &&
    cmake --install "$plugin/build" --prefix "$plugin/ship" >/dev/null &&
    cp "$(readlink -f "$libdir/libxffi.so.0")" "$plugin/ship/shipped/libxffi.so.0" &&
    PKG_CONFIG_PATH="$libdir/pkgconfig" sh -c \
      'cc -std=c11 -O2 -o "$1/libpkgconfig_plugin.so" "$1/c_plugin.c" $(pkg-config --cflags --libs xffi-plugin)' _ "$plugin" &&
    bash scripts/tvm-ffi-on-xffi.sh --runtime "$libdir/libtvm_ffi.so" "$plugin/overlay" >/dev/null &&
    python3 tests/install/check_plugin.py --libdir "$libdir" --overlay "$plugin/overlay" \
      --c-host "$build/release/tests/xffi_matrix_c_host" --rust-host "$rust_host" \
      "$plugin/build/libcmake_plugin.so" "$plugin/libpkgconfig_plugin.so" &&
    python3 tests/install/check_plugin.py --libdir "$libdir" --overlay "$plugin/overlay" --shipped \
      --c-host "$build/release/tests/xffi_matrix_c_host" --rust-host "$rust_host" "$plugin/ship/shipped/libshipped_plugin.so"
}

# The plugin matrix's Rust host (tests/plugin_matrix/rust_host), built with
# cargo into the workspace's target directory as the plugins step builds it;
# prints its path.
matrix_rust_host() {
  cargo build --quiet --jobs "$jobs" -p xffi-matrix-rust-host >&2 &&
    echo "${CARGO_TARGET_DIR:-$root/target}/debug/xffi-matrix-rust-host"
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
  ensure_release_build &&
    XFFI_LIB="$build/release/libxffi.so" python3 -m pytest -q -p no:cacheprovider tests/python/test_numpy_dlpack.py
}

# The drop-in libtvm_ffi.so of the release build: the runtime of the overlay
# (scripts/tvm-ffi-on-xffi.sh) that runs tvm_ffi's Python package on xffi.
dropin_runtime() {
  echo "$build/release/libtvm_ffi.so"
}

tvm_loads_xffi() { # and a Rust library's reflected type used from Python on xffi's runtime; JSON graphs across runtimes; the same globals and VisitErrorContext
  local overlay=$build/ovl-interop
  ensure_release_build &&
    bash scripts/tvm-ffi-on-xffi.sh --runtime "$(dropin_runtime)" "$overlay" &&
    XFFI_INTEROP_XFFI_LIB="$build/release/tests/libxffi_interop_xffi_exports.so" \
      python3 -m pytest -q -p no:cacheprovider tests/interop/test_tvm_loads_xffi.py &&
    XFFI_OVERLAY=$overlay XFFI_JOBS="$jobs" \
      python3 -m pytest -q -p no:cacheprovider tests/interop/test_rust_reflect_e2e.py &&
    XFFI_OVERLAY=$overlay python3 -m pytest -q -p no:cacheprovider tests/interop/test_graph_cross_runtime.py \
      tests/interop/test_same_surface.py tests/interop/test_walk_callback_changes.py
}

plugin_matrix() { # the C plugin and host from the release build; the Rust plugin and host built by run.py (default features)
  ensure_release_build &&
    XFFI_JOBS="$jobs" python3 tests/plugin_matrix/run.py --build "$build/release" --overlay "$build/ovl-plugins" &&
    # The library's tests with the wheel's runtime preloaded (tests/cmake/wheel_runtime.cmake).
    ctest --test-dir "$build/release" -L wheel_runtime -j "$jobs" --output-on-failure
}

rust_wheel() { # scikit-build-core from install-deps.sh; the venv's packages from PyPI (pinned in the script)
  ensure_release_build &&
    XFFI_JOBS="$jobs" bash scripts/test-rust-wheel.sh "$build/rust-wheel" "$(dropin_runtime)"
}

peer_suite() {
  python3 tests/peer/known_failures.py &&
    python3 -m pytest -q -p no:cacheprovider tests/peer/test_peer_driver.py tests/one_runtime/test_check_arrangements.py &&
    ensure_release_build &&
    XFFI_BUILD_ROOT="$build" XFFI_JOBS="$jobs" python3 tests/peer/run.py --work "$build/peer" --runtime "$(dropin_runtime)"
}

clients_rust() { # tests/clients/tvm_ffi_rust/run.py fetches tvm-ffi =0.1.15-post2 from crates.io (docs/tvm-ffi.md)
  ensure_release_build &&
    XFFI_DROPIN="$(dropin_runtime)" python3 -m pytest -q -p no:cacheprovider tests/dropin/test_type_attrs.py &&
    XFFI_JOBS="$jobs" python3 tests/clients/tvm_ffi_rust/run.py --work "$build/clients/tvm_ffi_rust" \
      --runtime "$(dropin_runtime)"
}

tvm_ffi_clients() { # rust_stubgen fetches tvm-ffi =0.1.15-post2 from crates.io with cargo (docs/tvm-ffi.md)
  ensure_release_build &&
    XFFI_DROPIN="$(dropin_runtime)" python3 -m pytest -q -p no:cacheprovider tests/dropin/test_global_metadata.py &&
    XFFI_BUILD_ROOT="$build" XFFI_JOBS="$jobs" python3 tests/clients/run.py --work "$build/clients" \
      --sdist-cache "$build/peer/sdist" --runtime "$(dropin_runtime)"
}

rust_crates() {
  bash rust/scripts/test.sh
}

rust_publish() {
  XFFI_JOBS="$jobs" bash rust/scripts/publish-check.sh
}

rust_lints() { # the lints are the workspace's (Cargo.toml [workspace.lints])
  cargo clippy --workspace --all-targets --features xffi/serde,xffi/half,xffi/ndarray,xffi/dlpark --jobs "$jobs" -- -D warnings
}

formatting() {
  bash scripts/format.sh --check
}

mixed_c_and_rust() { # libxffi from the release build when this run made one
  await cbindgen
  local libxffi=()
  [ $release_ready = 1 ] && libxffi=(XFFI_MIXED_LIBXFFI_BUILD="$build/release")
  env "${libxffi[@]}" XFFI_BUILD_ROOT="$build" bash scripts/test-mixed.sh
}

fuzzing() {
  bash tests/fuzz/run.sh "${XFFI_FUZZ_SECONDS:-60}" "$build/fuzz"
}

cross_targets() { # the reference tour from the release build when this run made one
  await cross-toolchains || return 1
  local tour=()
  [ $release_ready = 1 ] && tour=(XFFI_HOST_TOUR="$build/release/examples/tour")
  env "${tour[@]}" XFFI_BUILD_ROOT="$build" bash scripts/test-cross.sh
}

for entry in "${step_table[@]}"; do
  IFS='|' read -r id function what <<<"$entry"
  [ -n "${selected[$id]:-}" ] && step "$id: $what" "$function"
done
# A background install no selected step waited for (none today) is still
# awaited, so the run never ends with it half done.
for name in "${!background_pids[@]}"; do await "$name"; done

# What the machine was, next to the verdict (CI shows only the end of the output).
echo "machine: $(nproc) CPUs, $(free -m 2>/dev/null | awk '/^Mem:/{print $2 " MiB RAM"}'), $(df -Pm "$build" | awk 'NR==2{print $4 " MiB free in the build directory"}'), processes limit $(ulimit -u)"
steps_summary steps
