// A parent type without the field that holds it.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.Base")]
struct Base {
    #[xffi(get)]
    x: i64,
}

#[derive(xffi::Object)]
#[xffi(type_key = "fail.Child", parent = Base)]
struct Child {
    #[xffi(get)]
    y: i64,
}

fn main() {}
