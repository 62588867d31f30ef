// A field type xffi cannot reflect.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.Unsupported")]
struct Unsupported {
    #[xffi(get)]
    bytes: Vec<u8>,
}

fn main() {}
