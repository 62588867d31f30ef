// A misspelt field attribute.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.Typo")]
struct Typo {
    #[xffi(gett)]
    x: i64,
}

fn main() {}
