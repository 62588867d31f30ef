//! Test-only crate (never published): proves that xffi-sys's hand-written
//! declarations match the C headers, item by item, with checks that build.rs
//! generates from bindgen's reading of every header (the manner of git2's
//! systest). See build.rs for what is checked and exceptions.rs for the
//! few items xffi-sys mirrors differently.
use core::mem::{align_of, size_of};

/// bindgen's declarations of the headers, with bindgen's own assertions that
/// they have clang's layouts.
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, unused_imports)]
#[allow(clippy::all)]
pub mod c {
    include!(concat!(env!("OUT_DIR"), "/c_bindings.rs"));
}

/// How many header items the generated checks cover, by kind.
#[derive(Debug, Clone, Copy)]
pub struct Covered {
    pub constants: usize,
    pub records: usize,
    pub fields: usize,
    pub aliases: usize,
    /// Exported functions and extern statics.
    pub functions: usize,
    pub inline_functions: usize,
}

/// The mismatches found by the run-time checks, one line each.
#[derive(Debug, Default)]
pub struct Report {
    pub mismatches: Vec<String>,
    pub checked: usize,
}

/// An integer constant widened for comparison.
pub trait Int: Copy {
    fn wide(self) -> i128;
}
macro_rules! int {
    ($($t:ty)*) => { $(impl Int for $t { fn wide(self) -> i128 { self as i128 } })* };
}
int!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// A string constant as the C bytes (with the terminating NUL).
pub trait Text {
    fn c_bytes(&self) -> &[u8];
}
impl Text for &core::ffi::CStr {
    fn c_bytes(&self) -> &[u8] {
        self.to_bytes_with_nul()
    }
}
impl<const N: usize> Text for &[u8; N] {
    fn c_bytes(&self) -> &[u8] {
        &self[..]
    }
}

impl Report {
    fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.mismatches.push(what());
        }
    }
    pub fn int(&mut self, name: &str, rust: impl Int, c: impl Int) {
        let (r, c) = (rust.wide(), c.wide());
        self.expect(r == c, || format!("{name}: C {c}, xffi-sys {r}"));
    }
    pub fn text(&mut self, name: &str, rust: impl Text, c: impl Text) {
        let (r, c) = (rust.c_bytes().to_vec(), c.c_bytes().to_vec());
        self.expect(r == c, || format!("{name}: C {c:?}, xffi-sys {r:?}"));
    }
    pub fn layout<R, C>(&mut self, name: &str) {
        let (rs, cs, ra, ca) = (size_of::<R>(), size_of::<C>(), align_of::<R>(), align_of::<C>());
        self.expect(rs == cs, || format!("size of {name}: C {cs}, xffi-sys {rs}"));
        self.expect(ra == ca, || format!("alignment of {name}: C {ca}, xffi-sys {ra}"));
    }
    /// A struct C declares but never defines: only its existence (the
    /// type parameter naming it) is checked.
    pub fn opaque<R>(&mut self, _name: &str) {
        self.checked += 1;
    }
    /// One field: offsets, then (size, alignment) of the field's type.
    pub fn field(&mut self, name: &str, rust_offset: usize, c_offset: usize, rust: (usize, usize), c: (usize, usize)) {
        self.expect(rust_offset == c_offset, || format!("offset of {name}: C {c_offset}, xffi-sys {rust_offset}"));
        self.expect(rust.0 == c.0, || format!("size of {name}: C {}, xffi-sys {}", c.0, rust.0));
        self.expect(rust.1 == c.1, || format!("alignment of {name}: C {}, xffi-sys {}", c.1, rust.1));
    }
}

/// The (size, alignment) of a field's type, named by a function that is
/// never called (it only projects a reference to the field's address).
pub fn field_layout<T, F>(_: fn(&T) -> *const F) -> (usize, usize) {
    (size_of::<F>(), align_of::<F>())
}

/// "xffi-sys's typedef is the C one": the same type, or for a C function
/// pointer (always nullable, so `Option<fn>` in bindgen) the bare `fn` that
/// xffi-sys wraps in `Option` where it is used.
pub trait SameType<C> {
    fn same(self) -> C;
}
impl<T> SameType<T> for T {
    fn same(self) -> T {
        self
    }
}
impl<T> SameType<Option<T>> for T {
    fn same(self) -> Option<T> {
        Some(self)
    }
}

mod generated {
    // Parameter names inside C function-pointer types keep the C spelling.
    #![allow(non_snake_case)]
    // The C signatures as the headers spell them, however long.
    #![allow(clippy::type_complexity)]
    use super::{c, field_layout, Covered, Report, SameType};
    use core::mem::offset_of;
    use core::ptr::addr_of;
    include!(concat!(env!("OUT_DIR"), "/systest.rs"));
}
pub use generated::{check_aliases, check_constants, check_functions, check_records, covered};
