//! Misuse of `#[derive(xffi::Object)]` and `#[xffi::methods]` does not
//! compile, with a message that says what is wrong (tests/compile_fail/*.rs,
//! each with the compiler's expected output beside it in a .stderr file;
//! regenerate those with TRYBUILD=overwrite after a deliberate change).
#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/*.rs");
}
