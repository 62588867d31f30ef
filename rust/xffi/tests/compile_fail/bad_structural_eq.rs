// A structural kind tvm-ffi does not have.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.Kind", structural_eq = "forest")]
struct Kind {
    #[xffi(get)]
    x: i64,
}

fn main() {}
