// No type key: the type has no name to register under.
#[derive(xffi::Object)]
struct NoKey {
    #[xffi(get)]
    x: i64,
}

fn main() {}
