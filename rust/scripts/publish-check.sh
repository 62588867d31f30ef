#!/usr/bin/env bash
# The public crates as crates.io would take them: what `cargo publish
# --dry-run` does, for xffi-sys, xffi-derive and xffi, each on its own and in
# dependency order (cargo packages the crate, checks its manifest, then builds
# the package alone from its .crate), and their documentation built with every
# warning and every undocumented public item an error.
# Offline: `cargo publish --dry-run` itself asks crates.io's index first (and
# fails offline, "attempting to make an HTTP request"), so this runs `cargo
# package`, the same packaging and verify build without that question. And
# crates.io has none of the three crates, so the packages of the first two
# stand in for it when xffi's is built: a [patch] given with --config, pointing
# at their .crate files unpacked.
# Run from anywhere; honours CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target"
# The network once, for whatever this machine has not fetched yet; offline after.
CARGO_NET_RETRY=${CARGO_NET_RETRY:-10} cargo fetch --locked
export CARGO_NET_OFFLINE=true
jobs=${XFFI_JOBS:-2}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

# --allow-dirty: the check runs on a working tree, committed or not.
cargo package --allow-dirty --jobs "$jobs" -p xffi-sys
cargo package --allow-dirty --jobs "$jobs" -p xffi-derive
# xffi is packaged here but verified below, outside the workspace: alone it
# cannot be packaged offline (its lock file would need xffi-sys and
# xffi-derive from crates.io), so it is packaged with the two, which cargo
# then takes from the packages it just wrote; and a [patch] given to a verify
# build inside the workspace would be written into the workspace's Cargo.lock.
cargo package --allow-dirty --no-verify --jobs "$jobs" -p xffi-sys -p xffi-derive -p xffi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for crate in xffi-sys xffi-derive xffi; do
  tar -xzf "$target/package/$crate-$version.crate" -C "$work"
done
(cd "$work/xffi-$version" &&
  CARGO_TARGET_DIR="$work/target" cargo build --jobs "$jobs" \
    --config "patch.crates-io.xffi-sys.path=\"$work/xffi-sys-$version\"" \
    --config "patch.crates-io.xffi-derive.path=\"$work/xffi-derive-$version\"")

# The documentation: every public item documented, no broken link or
# unclosed tag (rustdoc's warnings), for the features docs.rs builds.
RUSTDOCFLAGS="-D warnings -D missing_docs" cargo doc --no-deps --jobs "$jobs" -p xffi-sys -p xffi-derive -p xffi \
  --features xffi/serde
echo "publish check: ok (xffi-sys, xffi-derive, xffi $version)"
