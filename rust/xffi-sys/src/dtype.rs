//! `xffi/dtype.h`: data types and devices, their text forms.

use core::ffi::{c_char, c_int};

use crate::dlpack::{DLDataType, DLDevice, DLDeviceType};

pub const XFFI_DTYPE_STR_MAX: usize = 32;
pub const XFFI_DEVICE_STR_MAX: usize = 32;

extern "C" {
    pub fn xffi_dtype_parse(out: *mut DLDataType, text: *const c_char) -> c_int;
    pub fn xffi_dtype_to_str(buf: *mut c_char, buf_size: usize, dtype: DLDataType) -> c_int;
    pub fn xffi_device_type_name(device_type: i32) -> *const c_char;
    pub fn xffi_device_parse(out: *mut DLDevice, text: *const c_char) -> c_int;
    pub fn xffi_device_to_str(buf: *mut c_char, buf_size: usize, device: DLDevice) -> c_int;
}

/// A dtype from its parts (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_make(code: u8, bits: u8, lanes: u16) -> DLDataType {
    DLDataType { code, bits, lanes }
}

/// Whether two dtypes are equal: 1 or 0 (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_equal(a: DLDataType, b: DLDataType) -> c_int {
    (a.code == b.code && a.bits == b.bits && a.lanes == b.lanes) as c_int
}

/// Bytes one element of `dtype` takes: bits times lanes, rounded up to whole
/// bytes (mirror of the C inline).
#[inline(always)]
pub const fn xffi_dtype_nbytes(dtype: DLDataType) -> usize {
    (dtype.bits as usize * dtype.lanes as usize).div_ceil(8)
}

/// A device from its parts (mirror of the C inline).
#[inline(always)]
pub const fn xffi_device_make(device_type: i32, device_id: i32) -> DLDevice {
    DLDevice { device_type: device_type as DLDeviceType, device_id }
}
