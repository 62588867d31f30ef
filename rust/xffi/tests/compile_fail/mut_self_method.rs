// Objects are shared: an exported method cannot take &mut self.
#[derive(xffi::Object)]
#[xffi(type_key = "fail.MutSelf")]
struct MutSelf {
    #[xffi(get)]
    x: i64,
}

#[xffi::methods]
impl MutSelf {
    fn bump(&mut self) {
        self.x += 1;
    }
}

fn main() {}
