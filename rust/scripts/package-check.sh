#!/usr/bin/env bash
# Proves that xffi-sys, xffi-derive and xffi package into self-contained crates: `cargo
# package` writes each .crate, then this script unpacks them into an empty
# directory, outside the repository, and builds and tests a consumer crate
# that depends on the unpacked crates only, as a crates.io user would get
# them. No C sources or headers from the repository are reachable.
#
# Why --no-verify: cargo's own verify build of xffi takes xffi-sys from a
# temporary registry in the target directory and unpacks it into
# $CARGO_HOME/registry/src/<hash of that path>/, reusing whatever is already
# there. CARGO_HOME outlives checkouts, so a checkout at a fixed path (CI's)
# built today's xffi against xffi-sys unpacked by an earlier run, and failed
# on functions added since. The consumer build below does the same check from
# the .crate files this run wrote, with nothing cached outside $work.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
cargo package -p xffi-sys -p xffi-derive -p xffi --allow-dirty --no-verify
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xzf "$target/package/xffi-sys-0.1.0.crate" -C "$work"
tar -xzf "$target/package/xffi-derive-0.1.0.crate" -C "$work"
tar -xzf "$target/package/xffi-0.1.0.crate" -C "$work"
mkdir -p "$work/consumer/src"
cat > "$work/consumer/Cargo.toml" <<TOML
[package]
name = "consumer"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
xffi = { path = "../xffi-0.1.0" }
[patch.crates-io]
xffi-sys = { path = "../xffi-sys-0.1.0" }
xffi-derive = { path = "../xffi-derive-0.1.0" }
[workspace]
TOML
cat > "$work/consumer/src/main.rs" <<'RS'
use xffi::{Function, ObjectRef};
#[derive(xffi::Object)]
#[xffi(type_key = "consumer.Point")]
struct Point { #[xffi(get)] x: i64 }
fn main() {
    let p = ObjectRef::new(Point { x: 41 }).unwrap();
    assert_eq!(p.get_field("x").unwrap().get::<i64>().unwrap(), 41);
    let f = Function::from_typed(|p: ObjectRef<Point>| Ok(p.x + 1)).unwrap();
    let r: i64 = f.call_typed((p,)).unwrap();
    assert_eq!(r, 42);
    println!("consumer of the packaged crates: ok ({r})");
}
RS
(cd "$work/consumer" && CARGO_TARGET_DIR="$work/target" cargo run --quiet)
(cd "$work/xffi-sys-0.1.0" && CARGO_TARGET_DIR="$work/target" cargo test --quiet --doc 2>&1 | tail -2)
echo "package check: ok"
