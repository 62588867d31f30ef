// A plain i64 marked `set`: other languages would write it while Rust holds
// `&PlainSet` (a data race); writable fields must synchronise (AtomicI64...).
#[derive(xffi::Object)]
#[xffi(type_key = "fail.PlainSet")]
struct PlainSet {
    #[xffi(get, set)]
    x: i64,
}

fn main() {}
