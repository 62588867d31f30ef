//! The declarations of `dlpack.h` (DLPack 1.x, bundled with xffi): devices,
//! data types, tensors and the managed-tensor exchange structs. Re-exported
//! at the crate root.

use core::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------
// dlpack.h (DLPack 1.x)
// ---------------------------------------------------------------------------

/// The DLPack version of the bundled dlpack.h.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack version of the bundled dlpack.h.
pub const DLPACK_MINOR_VERSION: u32 = 3;

/// DLPack version of a versioned managed tensor.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLDeviceType` (a C enum: int-sized).
pub type DLDeviceType = c_int;
pub const kDLCPU: DLDeviceType = 1;
pub const kDLCUDA: DLDeviceType = 2;
pub const kDLCUDAHost: DLDeviceType = 3;
pub const kDLOpenCL: DLDeviceType = 4;
pub const kDLVulkan: DLDeviceType = 7;
pub const kDLMetal: DLDeviceType = 8;
pub const kDLVPI: DLDeviceType = 9;
pub const kDLROCM: DLDeviceType = 10;
pub const kDLROCMHost: DLDeviceType = 11;
pub const kDLExtDev: DLDeviceType = 12;
pub const kDLCUDAManaged: DLDeviceType = 13;
pub const kDLOneAPI: DLDeviceType = 14;
pub const kDLWebGPU: DLDeviceType = 15;
pub const kDLHexagon: DLDeviceType = 16;
pub const kDLMAIA: DLDeviceType = 17;
pub const kDLTrn: DLDeviceType = 18;

/// Where a tensor's memory lives.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDevice {
    pub device_type: DLDeviceType,
    pub device_id: i32,
}

/// `DLDataTypeCode` values (stored in [`DLDataType::code`]).
pub const kDLInt: u8 = 0;
pub const kDLUInt: u8 = 1;
pub const kDLFloat: u8 = 2;
pub const kDLOpaqueHandle: u8 = 3;
pub const kDLBfloat: u8 = 4;
pub const kDLComplex: u8 = 5;
pub const kDLBool: u8 = 6;
pub const kDLFloat8_e3m4: u8 = 7;
pub const kDLFloat8_e4m3: u8 = 8;
pub const kDLFloat8_e4m3b11fnuz: u8 = 9;
pub const kDLFloat8_e4m3fn: u8 = 10;
pub const kDLFloat8_e4m3fnuz: u8 = 11;
pub const kDLFloat8_e5m2: u8 = 12;
pub const kDLFloat8_e5m2fnuz: u8 = 13;
pub const kDLFloat8_e8m0fnu: u8 = 14;
pub const kDLFloat6_e2m3fn: u8 = 15;
pub const kDLFloat6_e3m2fn: u8 = 16;
pub const kDLFloat4_e2m1fn: u8 = 17;

/// A scalar type: code, bits per lane, lanes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// A borrowed description of an n-dimensional array.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// The legacy (pre-1.0) managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(self_: *mut DLManagedTensor)>,
}

pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1;
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 2;
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 4;

/// The DLPack 1.x managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(self_: *mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// Allocates a managed tensor like `prototype` (DLPack exchange API).
pub type DLPackManagedTensorAllocator = Option<
    unsafe extern "C" fn(
        prototype: *mut DLTensor,
        out: *mut *mut DLManagedTensorVersioned,
        error_ctx: *mut c_void,
        set_error: Option<unsafe extern "C" fn(error_ctx: *mut c_void, kind: *const c_char, message: *const c_char)>,
    ) -> c_int,
>;
/// Exports a Python object as a managed tensor without synchronizing (DLPack exchange API).
pub type DLPackManagedTensorFromPyObjectNoSync =
    Option<unsafe extern "C" fn(py_object: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> c_int>;
/// Views a Python object as a DLTensor without synchronizing (DLPack exchange API).
pub type DLPackDLTensorFromPyObjectNoSync =
    Option<unsafe extern "C" fn(py_object: *mut c_void, out: *mut DLTensor) -> c_int>;
/// The current stream of a device (DLPack exchange API).
pub type DLPackCurrentWorkStream = Option<
    unsafe extern "C" fn(device_type: DLDeviceType, device_id: i32, out_current_stream: *mut *mut c_void) -> c_int,
>;
/// Wraps a managed tensor (stolen) in a Python object without synchronizing (DLPack exchange API).
pub type DLPackManagedTensorToPyObjectNoSync =
    Option<unsafe extern "C" fn(tensor: *mut DLManagedTensorVersioned, out_py_object: *mut *mut c_void) -> c_int>;

/// The version and chain link at the start of every DLPack exchange API table.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackExchangeAPIHeader {
    pub version: DLPackVersion,
    pub prev_api: *mut DLPackExchangeAPIHeader,
}

/// A framework's table of DLPack exchange functions (borrowed, static).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackExchangeAPI {
    pub header: DLPackExchangeAPIHeader,
    pub managed_tensor_allocator: DLPackManagedTensorAllocator,
    pub managed_tensor_from_py_object_no_sync: DLPackManagedTensorFromPyObjectNoSync,
    pub managed_tensor_to_py_object_no_sync: DLPackManagedTensorToPyObjectNoSync,
    pub dltensor_from_py_object_no_sync: DLPackDLTensorFromPyObjectNoSync,
    pub current_work_stream: DLPackCurrentWorkStream,
}
