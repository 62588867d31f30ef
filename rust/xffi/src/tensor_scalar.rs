//! The element types of tensors: a [`DataType`] constant and a [`Scalar`]
//! impl for every DLPack integer, float and bool type that Rust has (f16 and
//! bf16 through the `half` crate, with the `half` feature). The impls live in
//! xffi because the trait is xffi's: a user crate could not write
//! `impl Scalar for half::f16` (the orphan rule).

use xffi_sys as sys;

use crate::tensor::{DataType, Scalar};

const fn dtype(code: u8, bits: u8) -> DataType {
    DataType(sys::DLDataType { code, bits, lanes: 1 })
}

impl DataType {
    /// int8.
    pub const I8: DataType = dtype(sys::kDLInt, 8);
    /// int16.
    pub const I16: DataType = dtype(sys::kDLInt, 16);
    /// uint16.
    pub const U16: DataType = dtype(sys::kDLUInt, 16);
    /// uint32.
    pub const U32: DataType = dtype(sys::kDLUInt, 32);
    /// uint64.
    pub const U64: DataType = dtype(sys::kDLUInt, 64);
    /// float16 (IEEE half precision).
    pub const F16: DataType = dtype(sys::kDLFloat, 16);
    /// bfloat16.
    pub const BF16: DataType = dtype(sys::kDLBfloat, 16);
    /// bool: one byte per element, 0 or 1 (DLPack's and numpy's layout).
    ///
    /// ```
    /// assert_eq!(xffi::DataType::BOOL.to_string(), "bool");
    /// ```
    pub const BOOL: DataType = dtype(sys::kDLBool, 8);
}

/// `unsafe impl Scalar` for types every bit pattern of which is a value.
macro_rules! plain_scalars {
    ($($t:ty => $dtype:ident),* $(,)?) => {$(
        // SAFETY: DataType::$dtype is the integer or IEEE float of the same
        // signedness and width as the type, one lane: its representation;
        // every bit pattern is a value (the trait's defaults).
        unsafe impl Scalar for $t {
            const DTYPE: DataType = DataType::$dtype;
        }
    )*};
}

plain_scalars!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64,
);

// SAFETY: DataType::BOOL is one byte per element, 0 for false and 1 for true:
// Rust's bool. Other bytes are not a bool, so they are declared invalid and
// refused by is_valid_bits before any view is made.
unsafe impl Scalar for bool {
    const DTYPE: DataType = DataType::BOOL;
    const HAS_INVALID_BITS: bool = true;
    fn is_valid_bits(bytes: &[u8]) -> bool {
        matches!(bytes, [0] | [1])
    }
}

#[cfg(feature = "half")]
// SAFETY: half::f16 is repr(transparent) over u16 holding the IEEE binary16
// bits, which is DLPack's float16; every bit pattern is a value.
unsafe impl Scalar for half::f16 {
    const DTYPE: DataType = DataType::F16;
}

#[cfg(feature = "half")]
// SAFETY: half::bf16 is repr(transparent) over u16 holding the upper 16 bits
// of an IEEE binary32, which is DLPack's bfloat16; every bit pattern is a value.
unsafe impl Scalar for half::bf16 {
    const DTYPE: DataType = DataType::BF16;
}
