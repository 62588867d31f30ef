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
    /// The major version: a change breaks the ABI.
    pub major: u32,
    /// The minor version: additions that keep the ABI.
    pub minor: u32,
}

/// `DLDeviceType` (a C enum: int-sized).
pub type DLDeviceType = c_int;
/// CPU memory.
pub const kDLCPU: DLDeviceType = 1;
/// CUDA GPU memory.
pub const kDLCUDA: DLDeviceType = 2;
/// Pinned host memory allocated by CUDA.
pub const kDLCUDAHost: DLDeviceType = 3;
/// OpenCL device memory.
pub const kDLOpenCL: DLDeviceType = 4;
/// Vulkan buffer memory.
pub const kDLVulkan: DLDeviceType = 7;
/// Metal (Apple GPU) memory.
pub const kDLMetal: DLDeviceType = 8;
/// Verilog simulator buffer memory.
pub const kDLVPI: DLDeviceType = 9;
/// ROCm GPU memory.
pub const kDLROCM: DLDeviceType = 10;
/// Pinned host memory allocated by ROCm.
pub const kDLROCMHost: DLDeviceType = 11;
/// Reserved for extension devices.
pub const kDLExtDev: DLDeviceType = 12;
/// CUDA managed (unified) memory.
pub const kDLCUDAManaged: DLDeviceType = 13;
/// oneAPI (SYCL) device memory.
pub const kDLOneAPI: DLDeviceType = 14;
/// WebGPU buffer memory.
pub const kDLWebGPU: DLDeviceType = 15;
/// Qualcomm Hexagon DSP memory.
pub const kDLHexagon: DLDeviceType = 16;
/// Microsoft MAIA device memory.
pub const kDLMAIA: DLDeviceType = 17;
/// AWS Trainium device memory.
pub const kDLTrn: DLDeviceType = 18;

/// Where a tensor's memory lives.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDevice {
    /// The kind of device (`kDLCPU`, `kDLCUDA`, ...).
    pub device_type: DLDeviceType,
    /// The device's ordinal among those of its kind (0 for the CPU).
    pub device_id: i32,
}

/// `DLDataTypeCode` values (stored in [`DLDataType::code`]).
pub const kDLInt: u8 = 0;
/// Unsigned integers.
pub const kDLUInt: u8 = 1;
/// IEEE floating point numbers.
pub const kDLFloat: u8 = 2;
/// Opaque handles (pointers).
pub const kDLOpaqueHandle: u8 = 3;
/// bfloat16.
pub const kDLBfloat: u8 = 4;
/// Complex numbers (two floats of half the bits each).
pub const kDLComplex: u8 = 5;
/// Booleans.
pub const kDLBool: u8 = 6;
/// 8-bit float, 3 exponent and 4 mantissa bits.
pub const kDLFloat8_e3m4: u8 = 7;
/// 8-bit float, 4 exponent and 3 mantissa bits.
pub const kDLFloat8_e4m3: u8 = 8;
/// 8-bit float e4m3, bias 11, finite, no negative zero.
pub const kDLFloat8_e4m3b11fnuz: u8 = 9;
/// 8-bit float e4m3, finite (no infinities).
pub const kDLFloat8_e4m3fn: u8 = 10;
/// 8-bit float e4m3, finite, no negative zero.
pub const kDLFloat8_e4m3fnuz: u8 = 11;
/// 8-bit float, 5 exponent and 2 mantissa bits.
pub const kDLFloat8_e5m2: u8 = 12;
/// 8-bit float e5m2, finite, no negative zero.
pub const kDLFloat8_e5m2fnuz: u8 = 13;
/// 8-bit exponent-only scale, finite, unsigned.
pub const kDLFloat8_e8m0fnu: u8 = 14;
/// 6-bit float, 2 exponent and 3 mantissa bits, finite.
pub const kDLFloat6_e2m3fn: u8 = 15;
/// 6-bit float, 3 exponent and 2 mantissa bits, finite.
pub const kDLFloat6_e3m2fn: u8 = 16;
/// 4-bit float, 2 exponent bits and 1 mantissa bit, finite.
pub const kDLFloat4_e2m1fn: u8 = 17;

/// A scalar type: code, bits per lane, lanes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDataType {
    /// The kind of number (`kDLInt`, `kDLUInt`, `kDLFloat`, ...).
    pub code: u8,
    /// The bits of one lane (8, 16, 32, 64, ...).
    pub bits: u8,
    /// The lanes of a vector type (1 for scalars).
    pub lanes: u16,
}

/// A borrowed description of an n-dimensional array.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// The data pointer (for a device, possibly an opaque handle); aligned to 256 bytes by
    /// convention, with `byte_offset` for the rest.
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// The number of dimensions.
    pub ndim: i32,
    /// The type of an element.
    pub dtype: DLDataType,
    /// The `ndim` dimensions.
    pub shape: *mut i64,
    /// The `ndim` strides, in elements; NULL for compact row-major.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// The legacy (pre-1.0) managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context for `deleter`.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer, once, when it is done with the tensor (may be NULL).
    pub deleter: Option<unsafe extern "C" fn(self_: *mut DLManagedTensor)>,
}

/// The consumer must not write the tensor's data.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1;
/// The data is a copy the producer made for this exchange.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 2;
/// Sub-byte elements are padded to a byte each.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 4;

/// The DLPack 1.x managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The DLPack version the producer wrote.
    pub version: DLPackVersion,
    /// The producer's context for `deleter`.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer, once, when it is done with the tensor (may be NULL).
    pub deleter: Option<unsafe extern "C" fn(self_: *mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
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
    /// The DLPack version of the table.
    pub version: DLPackVersion,
    /// The table of an older version, or NULL.
    pub prev_api: *mut DLPackExchangeAPIHeader,
}

/// A framework's table of DLPack exchange functions (borrowed, static).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackExchangeAPI {
    /// The version and the link to older tables.
    pub header: DLPackExchangeAPIHeader,
    /// Allocates a managed tensor like a prototype.
    pub managed_tensor_allocator: DLPackManagedTensorAllocator,
    /// Exports a Python object as a managed tensor.
    pub managed_tensor_from_py_object_no_sync: DLPackManagedTensorFromPyObjectNoSync,
    /// Wraps a managed tensor in a Python object.
    pub managed_tensor_to_py_object_no_sync: DLPackManagedTensorToPyObjectNoSync,
    /// Views a Python object as a DLTensor.
    pub dltensor_from_py_object_no_sync: DLPackDLTensorFromPyObjectNoSync,
    /// The current stream of a device.
    pub current_work_stream: DLPackCurrentWorkStream,
}
