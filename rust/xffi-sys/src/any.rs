//! `xffi/any.h`: the 16-byte tagged value, its inline constructors and the
//! checked accessors.

use core::ffi::{c_char, c_int, c_void};

use crate::dlpack::{DLDataType, DLDevice, DLTensor};
use crate::object::{xffi_object, xffi_object_dec_ref_inline, xffi_object_inc_ref_inline};
use crate::r#type::{
    xffi_byte_array, XFFI_TYPE_BOOL, XFFI_TYPE_BYTE_ARRAY_PTR, XFFI_TYPE_DEVICE, XFFI_TYPE_DLTENSOR_PTR,
    XFFI_TYPE_DTYPE, XFFI_TYPE_FLOAT, XFFI_TYPE_INT, XFFI_TYPE_NONE, XFFI_TYPE_OPAQUE_PTR, XFFI_TYPE_RAW_STR,
    XFFI_TYPE_STATIC_OBJECT_BEGIN,
};

/// The longest string or byte run stored inline in an Any.
pub const XFFI_SMALL_STR_MAX: usize = 7;

/// The 8-byte payload of an [`xffi_any`].
#[repr(C)]
#[derive(Clone, Copy)]
pub union xffi_any_value {
    /// An int (`XFFI_TYPE_INT`) or bool (`XFFI_TYPE_BOOL`, 0 or 1).
    pub v_int64: i64,
    /// A float (`XFFI_TYPE_FLOAT`).
    pub v_float64: f64,
    /// An opaque pointer (`XFFI_TYPE_OPAQUE_PTR`).
    pub v_ptr: *mut c_void,
    /// A borrowed NUL-terminated string (`XFFI_TYPE_RAW_STR`, views only).
    pub v_c_str: *const c_char,
    /// A borrowed byte run (`XFFI_TYPE_BYTE_ARRAY_PTR`, views only).
    pub v_bytes_ptr: *const xffi_byte_array,
    /// A borrowed DLTensor (`XFFI_TYPE_DLTENSOR_PTR`).
    pub v_dltensor: *mut DLTensor,
    /// An object (every index from `XFFI_TYPE_STATIC_OBJECT_BEGIN` up): a strong reference in an
    /// owned value, borrowed in a view.
    pub v_obj: *mut xffi_object,
    /// A data type (`XFFI_TYPE_DTYPE`).
    pub v_dtype: DLDataType,
    /// A device (`XFFI_TYPE_DEVICE`).
    pub v_device: DLDevice,
    /// Up to 7 bytes of a small string or byte run (`XFFI_TYPE_SMALL_STR`,
    /// `XFFI_TYPE_SMALL_BYTES`), NUL-terminated.
    pub v_small: [c_char; 8],
}

/// The 16-byte tagged value. As an owned value ("Any") it holds a strong
/// reference when `type_index` is an object index; as a view it borrows.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct xffi_any {
    /// What the value holds: an `XFFI_TYPE_*` index or an object type's index.
    pub type_index: i32,
    /// The length of a small string or byte run; 0 otherwise.
    pub small_len: u32,
    /// The payload, read according to `type_index`.
    pub value: xffi_any_value,
}

impl xffi_any {
    /// None (owns nothing).
    #[inline(always)]
    pub const fn none() -> Self {
        xffi_any { type_index: XFFI_TYPE_NONE, small_len: 0, value: xffi_any_value { v_int64: 0 } }
    }
    /// An int (owns nothing).
    #[inline(always)]
    pub const fn int(x: i64) -> Self {
        xffi_any { type_index: XFFI_TYPE_INT, small_len: 0, value: xffi_any_value { v_int64: x } }
    }
    /// A bool (owns nothing).
    #[inline(always)]
    pub const fn bool(x: bool) -> Self {
        xffi_any { type_index: XFFI_TYPE_BOOL, small_len: 0, value: xffi_any_value { v_int64: x as i64 } }
    }
    /// A float (owns nothing).
    #[inline(always)]
    pub const fn float(x: f64) -> Self {
        xffi_any { type_index: XFFI_TYPE_FLOAT, small_len: 0, value: xffi_any_value { v_float64: x } }
    }
    /// A view of an object: no reference taken; NULL gives None.
    ///
    /// # Safety
    /// `obj` must be NULL or a live object.
    #[inline(always)]
    pub unsafe fn object(obj: *mut xffi_object) -> Self {
        if obj.is_null() {
            Self::none()
        } else {
            xffi_any { type_index: (*obj).type_index, small_len: 0, value: xffi_any_value { v_obj: obj } }
        }
    }
    /// Whether the value's type index is an object index.
    #[inline(always)]
    pub const fn is_object(&self) -> bool {
        self.type_index >= XFFI_TYPE_STATIC_OBJECT_BEGIN
    }
}

/// Releases an owned value (drops its object reference) and resets it to
/// None (mirror of the C inline `xffi_any_release`). NULL is ignored.
///
/// # Safety
/// `v` must be NULL or an owned value.
#[inline(always)]
pub unsafe fn xffi_any_release(v: *mut xffi_any) {
    if v.is_null() {
        return;
    }
    if (*v).is_object() {
        xffi_object_dec_ref_inline((*v).value.v_obj);
    }
    *v = xffi_any::none();
}

/// A view of an opaque pointer (NULL gives None); owns nothing (mirror of
/// the C inline).
#[inline(always)]
pub fn xffi_any_ptr(p: *mut c_void) -> xffi_any {
    let type_index = if p.is_null() { XFFI_TYPE_NONE } else { XFFI_TYPE_OPAQUE_PTR };
    xffi_any { type_index, small_len: 0, value: xffi_any_value { v_ptr: p } }
}

/// A dtype value; owns nothing (mirror of the C inline).
#[inline(always)]
pub const fn xffi_any_dtype(dtype: DLDataType) -> xffi_any {
    let mut v = xffi_any::none();
    v.type_index = XFFI_TYPE_DTYPE;
    v.value.v_dtype = dtype;
    v
}

/// A device value; owns nothing (mirror of the C inline).
#[inline(always)]
pub const fn xffi_any_device(device: DLDevice) -> xffi_any {
    let mut v = xffi_any::none();
    v.type_index = XFFI_TYPE_DEVICE;
    v.value.v_device = device;
    v
}

/// A view of a DLTensor (borrowed; NULL gives None) (mirror of the C inline).
#[inline(always)]
pub fn xffi_any_dltensor(t: *mut DLTensor) -> xffi_any {
    let type_index = if t.is_null() { XFFI_TYPE_NONE } else { XFFI_TYPE_DLTENSOR_PTR };
    xffi_any { type_index, small_len: 0, value: xffi_any_value { v_dltensor: t } }
}

/// A view of a NUL-terminated string (borrowed; NULL gives None) (mirror of
/// the C inline).
#[inline(always)]
pub fn xffi_any_c_str(s: *const c_char) -> xffi_any {
    let type_index = if s.is_null() { XFFI_TYPE_NONE } else { XFFI_TYPE_RAW_STR };
    xffi_any { type_index, small_len: 0, value: xffi_any_value { v_c_str: s } }
}

/// A view of a byte run (the descriptor is borrowed; NULL gives None)
/// (mirror of the C inline).
#[inline(always)]
pub fn xffi_any_byte_array(b: *const xffi_byte_array) -> xffi_any {
    let type_index = if b.is_null() { XFFI_TYPE_NONE } else { XFFI_TYPE_BYTE_ARRAY_PTR };
    xffi_any { type_index, small_len: 0, value: xffi_any_value { v_bytes_ptr: b } }
}

/// An owned value holding a new strong reference to `obj` (NULL gives None)
/// (mirror of the C inline).
///
/// # Safety
/// `obj` must be NULL or a live object.
#[inline(always)]
pub unsafe fn xffi_any_object_new_ref(obj: *mut xffi_object) -> xffi_any {
    xffi_object_inc_ref_inline(obj);
    xffi_any::object(obj)
}

/// Moves `*src` (owned) into `*dst`, leaving None in `*src`; whatever `*dst`
/// held is overwritten, not released (mirror of the C inline).
///
/// # Safety
/// Both must be valid for reads and writes.
#[inline(always)]
pub unsafe fn xffi_any_move(dst: *mut xffi_any, src: *mut xffi_any) {
    *dst = *src;
    *src = xffi_any::none();
}

extern "C" {
    /// A short name for what the value holds (borrowed, immortal).
    pub fn xffi_any_kind_name(v: *const xffi_any) -> *const c_char;
    /// Owned copy of a view (`*out` must hold nothing; left None on failure).
    /// Errors: ValueError (NULL), MemoryError.
    pub fn xffi_any_copy(out: *mut xffi_any, view: *const xffi_any) -> c_int;
    /// Owned string value from bytes (borrowed, copied): small or a new String.
    /// Errors: ValueError, MemoryError.
    pub fn xffi_any_from_str(out: *mut xffi_any, data: *const c_char, size: usize) -> c_int;
    /// Owned bytes value from bytes (borrowed, copied): small or a new Bytes.
    pub fn xffi_any_from_bytes(out: *mut xffi_any, data: *const c_char, size: usize) -> c_int;
    /// Checked accessors: TypeError "expected X, got Y", ValueError for NULL.
    pub fn xffi_any_to_int(out: *mut i64, v: *const xffi_any) -> c_int;
    /// Writes the value (borrowed) as a bool to \*out: a bool, or an int (non-zero is true).
    /// Errors: TypeError "expected bool, got &lt;kind&gt;"; ValueError for NULL arguments or a
    /// malformed value. Allocates nothing.
    pub fn xffi_any_to_bool(out: *mut c_int, v: *const xffi_any) -> c_int;
    /// Writes the value (borrowed) as a double to \*out: a float, an int or a bool. Errors:
    /// TypeError "expected float, got &lt;kind&gt;"; ValueError for NULL arguments or a malformed
    /// value. Allocates nothing.
    pub fn xffi_any_to_float(out: *mut f64, v: *const xffi_any) -> c_int;
    /// Writes the value (borrowed) as an opaque pointer to \*out: a pointer, or None (NULL).
    /// Errors: TypeError; ValueError for NULL arguments or a malformed value. Allocates nothing.
    pub fn xffi_any_to_ptr(out: *mut *mut c_void, v: *const xffi_any) -> c_int;
    /// Writes the value (borrowed) as a DLDataType to \*out. Errors: TypeError "expected dtype, got
    /// &lt;kind&gt;"; ValueError for NULL arguments or a malformed value. Allocates nothing.
    pub fn xffi_any_to_dtype(out: *mut DLDataType, v: *const xffi_any) -> c_int;
    /// Writes the value (borrowed) as a DLDevice to \*out. Errors: TypeError "expected device, got
    /// &lt;kind&gt;"; ValueError for NULL arguments or a malformed value. Allocates nothing.
    pub fn xffi_any_to_device(out: *mut DLDevice, v: *const xffi_any) -> c_int;
    /// `*out` borrows the characters from `v` (small strings: from `*v` itself).
    pub fn xffi_any_to_str(out: *mut xffi_byte_array, v: *const xffi_any) -> c_int;
    /// \*out borrows the bytes of the value (a string of any kind, small bytes, a Bytes object or a
    /// borrowed byte array): valid while the value (and what it borrows) lives. Errors: TypeError;
    /// ValueError for NULL arguments or a malformed value.
    pub fn xffi_any_to_bytes(out: *mut xffi_byte_array, v: *const xffi_any) -> c_int;
    /// `*out` borrows the object (no reference); None gives NULL.
    pub fn xffi_any_to_object(out: *mut *mut xffi_object, v: *const xffi_any, type_index: i32) -> c_int;
}
