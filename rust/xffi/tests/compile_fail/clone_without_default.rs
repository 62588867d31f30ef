// #[xffi(clone)] copies are filled through setters only a creatable type has.
#[derive(xffi::Object, Clone)]
#[xffi(type_key = "fail.CloneOnly", clone)]
struct CloneOnly {
    #[xffi(get)]
    x: i64,
}

fn main() {}
