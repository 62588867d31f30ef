//! `xffi/dtype.h`: data types and devices, their text forms.

use core::ffi::{c_char, c_int};

use crate::dlpack::{DLDataType, DLDevice, DLDeviceType};

/// A buffer of this many bytes always holds the text of any data type or device, NUL included
/// ("float8_e4m3b11fnuzx65535" and "cuda_managed:-2147483648" are the longest).
pub const XFFI_DTYPE_STR_MAX: usize = 32;
/// A buffer of this many bytes always holds the text of any device, NUL included.
pub const XFFI_DEVICE_STR_MAX: usize = 32;

extern "C" {
    /// Parses a data type from a NUL-terminated string (borrowed) into \*out. Errors: ValueError
    /// for a NULL argument, or for text that is not a data type, naming the text and what is wrong
    /// ("xffi_dtype_parse: \"float31\": float takes 16, 32 or 64 bits, got 31"); \*out is then
    /// unchanged.
    pub fn xffi_dtype_parse(out: *mut DLDataType, text: *const c_char) -> c_int;
    /// Writes the text of dtype, NUL-terminated, to buf (buf_size bytes; at most XFFI_DTYPE_STR_MAX
    /// are ever needed). Lanes of 1 are not written. Errors: ValueError for a NULL buf, an unknown
    /// type code, zero bits or lanes, bits the code cannot have, or a buffer too small (then buf
    /// holds "" when buf_size &gt; 0).
    pub fn xffi_dtype_to_str(buf: *mut c_char, buf_size: usize, dtype: DLDataType) -> c_int;
    /// The name of a device type ("cpu", "cuda", "cuda_host", "opencl", "vulkan", "metal", "vpi",
    /// "rocm", "rocm_host", "ext_dev", "cuda_managed", "oneapi", "webgpu", "hexagon", "maia",
    /// "trn"), or NULL for a type DLPack does not define. Static storage: never free it.
    pub fn xffi_device_type_name(device_type: i32) -> *const c_char;
    /// Parses a device ("cpu", "cpu:0", "cuda:1") from a NUL-terminated string (borrowed) into
    /// \*out. Errors: ValueError for a NULL argument, an unknown device name, or an id that is not
    /// a non-negative 32-bit decimal number; \*out is then unchanged.
    pub fn xffi_device_parse(out: *mut DLDevice, text: *const c_char) -> c_int;
    /// Writes "&lt;name&gt;:&lt;id&gt;" for device, NUL-terminated, to buf (buf_size bytes; at most
    /// XFFI_DEVICE_STR_MAX are ever needed). Errors: ValueError for a NULL buf, an unknown device
    /// type, or a buffer too small (then buf holds "" when buf_size &gt; 0).
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
