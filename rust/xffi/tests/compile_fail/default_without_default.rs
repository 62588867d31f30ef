// #[xffi(default)] makes objects from Default::default(): the type needs it.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.NoDefault", default)]
struct NoDefault {
    #[xffi(get)]
    x: i64,
}

fn main() {}
