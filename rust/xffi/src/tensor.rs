//! [`Shape`], [`Tensor`] (with DLPack import/export and checked slice
//! views), and [`DataType`] helpers.

use std::ffi::c_int;
use std::fmt;
use std::ptr::{self, NonNull};

use xffi_sys as sys;

use crate::error::{Error, Result, check};
use crate::object::ObjectRef;
use crate::wrapper::wrapper;

wrapper! {
    /// An immutable tuple of dimensions (an xffi Shape, type index 69).
    /// Derefs to `[i64]`. `Send + Sync` (immutable).
    ///
    /// ```
    /// let s = xffi::Shape::new(&[2, 3]).unwrap();
    /// assert_eq!(&s[..], &[2, 3]);
    /// assert_eq!(s.numel(), 6);
    /// assert_eq!(format!("{s:?}"), "Shape([2, 3])");
    /// ```
    pub struct Shape(ShapeObj);
    /// Payload marker of Shape objects (type index 69).
    #[derive(Debug)]
    pub struct ShapeObj { cell: sys::xffi_shape_cell }
    type_key = "ffi.Shape", type_index = sys::XFFI_TYPE_SHAPE;
    shared_because = "immutable";
    example = "xffi::Shape::new(&[1]).unwrap()";
    from_any_view = object;
}

impl Shape {
    /// Makes a Shape (dimensions copied). Errors: MemoryError.
    ///
    /// ```
    /// assert_eq!(&xffi::Shape::new(&[4]).unwrap()[..], &[4]);
    /// ```
    pub fn new(dims: &[i64]) -> Result<Shape> {
        let mut out = ptr::null_mut();
        // More than i32::MAX dimensions: -1 makes C refuse it (ValueError)
        // instead of a truncated count copying too few.
        let ndim = i32::try_from(dims.len()).unwrap_or(-1);
        // SAFETY: a valid run of dims.
        check(unsafe { sys::xffi_shape_new(&mut out, dims.as_ptr(), ndim) })?;
        // SAFETY: a new Shape reference.
        Ok(Shape(unsafe { ObjectRef::from_raw(out) }.expect("xffi_shape_new succeeded")))
    }

    /// The dimensions.
    ///
    /// ```
    /// assert_eq!(xffi::Shape::new(&[1, 2]).unwrap().as_slice(), &[1, 2]);
    /// ```
    pub fn as_slice(&self) -> &[i64] {
        let c = self.0.cell;
        if c.size == 0 {
            &[]
        } else {
            // SAFETY: the cell describes the Shape's own c.size dimensions,
            // which never change and live as long as the object, so at least
            // as long as this borrow of self.
            unsafe { std::slice::from_raw_parts(c.data, c.size) }
        }
    }

    /// The product of the dimensions (1 for no dimensions, 0 if any is 0,
    /// however large the others).
    ///
    /// # Panics
    /// If the product of non-zero dimensions overflows i64 (use
    /// [`Shape::checked_numel`] for shapes that may be that large).
    ///
    /// ```
    /// assert_eq!(xffi::Shape::new(&[]).unwrap().numel(), 1);
    /// assert_eq!(xffi::Shape::new(&[1 << 62, 4, 0]).unwrap().numel(), 0);
    /// ```
    pub fn numel(&self) -> i64 {
        self.checked_numel()
            .unwrap_or_else(|| panic!("Shape::numel: the product of {:?} overflows i64", self.as_slice()))
    }

    /// The product of the dimensions as [`Shape::numel`], or None if it
    /// overflows i64.
    ///
    /// ```
    /// assert_eq!(xffi::Shape::new(&[1 << 62, 4]).unwrap().checked_numel(), None);
    /// ```
    pub fn checked_numel(&self) -> Option<i64> {
        checked_numel(self.as_slice())
    }
}

impl std::ops::Deref for Shape {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        self.as_slice()
    }
}
impl PartialEq for Shape {
    fn eq(&self, o: &Shape) -> bool {
        self.as_slice() == o.as_slice()
    }
}
impl Eq for Shape {}
impl std::hash::Hash for Shape {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}
impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({:?})", self.as_slice())
    }
}
/// A DLPack data type (code, bits, lanes), with text conversion.
///
/// ```
/// use xffi::DataType;
/// let t: DataType = "float32".parse().unwrap();
/// assert_eq!(t, DataType::F32);
/// assert_eq!(t.to_string(), "float32");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataType(pub sys::DLDataType);

impl DataType {
    /// float32.
    pub const F32: DataType = DataType(sys::DLDataType { code: sys::kDLFloat, bits: 32, lanes: 1 });
    /// float64.
    pub const F64: DataType = DataType(sys::DLDataType { code: sys::kDLFloat, bits: 64, lanes: 1 });
    /// int32.
    pub const I32: DataType = DataType(sys::DLDataType { code: sys::kDLInt, bits: 32, lanes: 1 });
    /// int64.
    pub const I64: DataType = DataType(sys::DLDataType { code: sys::kDLInt, bits: 64, lanes: 1 });
    /// uint8.
    pub const U8: DataType = DataType(sys::DLDataType { code: sys::kDLUInt, bits: 8, lanes: 1 });
}

impl std::str::FromStr for DataType {
    type Err = Error;
    fn from_str(s: &str) -> Result<DataType> {
        let c = std::ffi::CString::new(s)?;
        let mut out = sys::DLDataType { code: 0, bits: 0, lanes: 0 };
        // SAFETY: c is NUL-terminated and borrowed for the call; out is writable.
        check(unsafe { sys::xffi_dtype_parse(&mut out, c.as_ptr()) })?;
        Ok(DataType(out))
    }
}
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0 as std::ffi::c_char; sys::XFFI_DTYPE_STR_MAX];
        // SAFETY: buf is writable for buf.len() (XFFI_DTYPE_STR_MAX, the
        // documented size) characters, and that length is what C is told.
        if unsafe { sys::xffi_dtype_to_str(buf.as_mut_ptr(), buf.len(), self.0) } != sys::XFFI_OK {
            drop(Error::take_raised());
            return write!(f, "dtype(code={}, bits={}, lanes={})", self.0.code, self.0.bits, self.0.lanes);
        }
        // SAFETY: on success C wrote a NUL-terminated string into buf, which
        // outlives s.
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        f.write_str(&s.to_string_lossy())
    }
}
impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Rust element types with a DLPack data type, for [`Tensor::as_slice`]
/// (every DLPack integer, float and bool type has one: see the impls; f16 and
/// bf16 with the `half` feature). `Send + Sync`: a Tensor is shared across
/// threads, and its elements with it.
///
/// # Safety
/// `DTYPE` must describe `Self`'s in-memory representation exactly, and a
/// type with invalid bit patterns (as `bool`, whose byte must be 0 or 1) must
/// set `HAS_INVALID_BITS` and refuse them in `is_valid_bits`: views check
/// every element of such a type before handing out `&Self`.
///
/// ```
/// use xffi::{DataType, Scalar, Tensor};
/// assert_eq!(f32::DTYPE, DataType::F32);
/// // Generic code over element types reads a tensor as `&[T]`.
/// fn total<T: Scalar + Into<f64>>(t: &Tensor) -> xffi::Result<f64> {
///     Ok(t.as_slice::<T>()?.iter().map(|&x| x.into()).sum())
/// }
/// let t = Tensor::from_vec(vec![1.5f32, 2.5], &[2]).unwrap();
/// assert_eq!(total::<f32>(&t).unwrap(), 4.0);
/// assert!(total::<i32>(&t).is_err());
/// ```
pub unsafe trait Scalar: Copy + Send + Sync + 'static {
    /// The matching data type.
    const DTYPE: DataType;
    /// Whether some bit patterns of `Self`'s size are not a valid `Self`
    /// (false unless overridden: every pattern of an integer or float is a value).
    const HAS_INVALID_BITS: bool = false;
    /// Whether `bytes` (one element, `size_of::<Self>()` bytes as found in a
    /// tensor) is a valid `Self`; asked only when `HAS_INVALID_BITS` is true.
    ///
    /// ```
    /// use xffi::Scalar;
    /// assert!(bool::is_valid_bits(&[1]) && !bool::is_valid_bits(&[2]));
    /// ```
    fn is_valid_bits(bytes: &[u8]) -> bool {
        let _ = bytes;
        true
    }
}
/// The product of `dims`, or None if it overflows i64. A zero dimension
/// makes it 0 whatever the others are, so it is looked for first: an empty
/// tensor may have dimensions whose product alone would overflow.
pub(crate) fn checked_numel(dims: &[i64]) -> Option<i64> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().try_fold(1i64, |n, &d| n.checked_mul(d))
}

/// Checks that the `n` contiguous elements at `p` are valid `T`s: O(n) for a
/// type with invalid bit patterns (bool), nothing for the others.
/// Errors: ValueError naming the first invalid element.
fn check_valid_elements<T: Scalar>(p: *const T, n: usize, what: &str) -> Result<()> {
    if !T::HAS_INVALID_BITS {
        return Ok(());
    }
    let size = std::mem::size_of::<T>();
    // SAFETY: the caller's checks (check_view): p is n elements of T in
    // readable, initialized CPU memory; reading it as bytes asks nothing more.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n * size) };
    match bytes.chunks_exact(size).position(|e| !T::is_valid_bits(e)) {
        None => Ok(()),
        Some(i) => Err(Error::value_error(&format!(
            "Tensor::{what}: element {i} (bytes {:?}) is not a valid {}",
            &bytes[i * size..(i + 1) * size],
            T::DTYPE
        ))),
    }
}

wrapper! {
    /// An n-dimensional array (an xffi Tensor, type index 70) over a DLPack
    /// `DLTensor`. `Send + Sync`: Rust only reads its data, through checked
    /// slice views ([`Tensor::as_slice`]); writing (`as_mut_slice`) is `unsafe`
    /// because other holders may read the same memory ([`crate::UniqueTensor`],
    /// a tensor no one else can reach, writes safely). Made over Rust memory
    /// without a copy by `from_vec`, `from_boxed_slice` and `from_owner`.
    ///
    /// ```
    /// use xffi::{DataType, Tensor};
    /// let t = Tensor::new(&[2, 3], DataType::F32).unwrap();
    /// assert_eq!(t.shape(), &[2, 3]);
    /// assert_eq!(t.as_slice::<f32>().unwrap(), &[0.0; 6]);
    /// let err = t.as_slice::<i64>().unwrap_err();
    /// assert_eq!(err.message(), "Tensor::as_slice: the tensor holds float32, not int64");
    /// ```
    pub struct Tensor(TensorObj);
    /// Payload marker of Tensor objects (type index 70).
    #[derive(Debug)]
    pub struct TensorObj { dl: sys::DLTensor }
    type_key = "ffi.Tensor", type_index = sys::XFFI_TYPE_TENSOR;
    shared_because = "Rust only reads a tensor's header and, through checked views, its data; writing is `unsafe`";
    example = "xffi::Tensor::new(&[1], xffi::DataType::F32).unwrap()";
    from_any_view = object;
}

impl Tensor {
    /// A zero-filled CPU tensor (data 64-byte aligned). Errors: ValueError
    /// for a negative dimension; MemoryError.
    ///
    /// ```
    /// let t = xffi::Tensor::new(&[2, 2], xffi::DataType::I64).unwrap();
    /// assert_eq!(t.as_slice::<i64>().unwrap(), &[0; 4]);
    /// assert_eq!(xffi::Tensor::new(&[-1], xffi::DataType::I64).unwrap_err().kind(), xffi::ErrorKind::ValueError);
    /// ```
    pub fn new(shape: &[i64], dtype: DataType) -> Result<Tensor> {
        // More than i32::MAX dimensions: -1 makes C refuse it (ValueError)
        // instead of a wrapped count making a tensor of the wrong shape.
        let ndim = i32::try_from(shape.len()).unwrap_or(-1);
        let mut out = ptr::null_mut();
        // SAFETY: shape is shape.len() >= ndim readable i64s, borrowed for the
        // call (copied); out is writable.
        check(unsafe { sys::xffi_tensor_new(&mut out, shape.as_ptr(), ndim, dtype.0) })?;
        // SAFETY: on success out holds a new reference to a Tensor, now ours.
        Ok(Tensor(unsafe { ObjectRef::from_raw(out) }.expect("xffi_tensor_new succeeded")))
    }

    /// A CPU tensor holding a copy of `data` with the given shape.
    /// Errors: ValueError if the shape's element count differs from `data.len()`.
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    /// assert_eq!(t.as_slice::<f64>().unwrap()[3], 4.0);
    /// assert!(xffi::Tensor::from_slice(&[1.0f64], &[2]).is_err());
    /// ```
    pub fn from_slice<T: Scalar>(data: &[T], shape: &[i64]) -> Result<Tensor> {
        let Some(n) = checked_numel(shape) else {
            return Err(Error::value_error(&format!(
                "Tensor::from_slice: the element count of shape {shape:?} overflows i64"
            )));
        };
        if usize::try_from(n) != Ok(data.len()) {
            return Err(Error::value_error(&format!(
                "Tensor::from_slice: shape {shape:?} has {n} elements, data has {}",
                data.len()
            )));
        }
        let t = Tensor::new(shape, T::DTYPE)?;
        // SAFETY: as_mut_slice's contract: t is a fresh tensor no one else
        // can reach yet (checked size and dtype are as_mut_slice's own).
        unsafe { t.as_mut_slice::<T>()?.copy_from_slice(data) };
        Ok(t)
    }

    /// The DLTensor (borrowed from the Tensor).
    ///
    /// ```
    /// let t = xffi::Tensor::new(&[3], xffi::DataType::U8).unwrap();
    /// assert_eq!(t.dltensor().ndim, 1);
    /// ```
    pub fn dltensor(&self) -> &sys::DLTensor {
        &self.0.dl
    }

    /// The shape.
    ///
    /// ```
    /// assert_eq!(xffi::Tensor::new(&[2, 5], xffi::DataType::F32).unwrap().shape(), &[2, 5]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        let d = &self.0.dl;
        if d.ndim == 0 {
            &[]
        } else {
            // SAFETY: a Tensor's shape holds ndim dimensions (checked when it
            // was made or imported) that live and stay unchanged as long as
            // the object, so at least as long as this borrow of self.
            unsafe { std::slice::from_raw_parts(d.shape, d.ndim as usize) }
        }
    }

    /// The strides, in elements (always filled in by xffi).
    ///
    /// ```
    /// assert_eq!(xffi::Tensor::new(&[2, 5], xffi::DataType::F32).unwrap().strides(), &[5, 1]);
    /// ```
    pub fn strides(&self) -> &[i64] {
        let d = &self.0.dl;
        if d.ndim == 0 || d.strides.is_null() {
            &[]
        } else {
            // SAFETY: as in `shape`: non-NULL strides hold ndim entries owned
            // by the object, unchanged while it lives.
            unsafe { std::slice::from_raw_parts(d.strides, d.ndim as usize) }
        }
    }

    /// The data type.
    ///
    /// ```
    /// assert_eq!(xffi::Tensor::new(&[1], xffi::DataType::F64).unwrap().dtype().to_string(), "float64");
    /// ```
    pub fn dtype(&self) -> DataType {
        DataType(self.0.dl.dtype)
    }

    /// The number of elements (0 for an empty tensor, however large its
    /// other dimensions).
    ///
    /// ```
    /// assert_eq!(xffi::Tensor::new(&[2, 5], xffi::DataType::F32).unwrap().numel(), 10);
    /// assert_eq!(xffi::Tensor::new(&[1 << 62, 4, 0], xffi::DataType::F32).unwrap().numel(), 0);
    /// ```
    pub fn numel(&self) -> usize {
        // Every Tensor's shape was validated when it was made or imported:
        // a non-empty one has a byte size that fits in i64.
        checked_numel(self.shape())
            .and_then(|n| usize::try_from(n).ok())
            .expect("a validated tensor's element count fits in usize")
    }

    /// Whether the tensor is read-only.
    ///
    /// ```
    /// assert!(!xffi::Tensor::new(&[1], xffi::DataType::F32).unwrap().is_read_only());
    /// ```
    pub fn is_read_only(&self) -> bool {
        let mut out = 0;
        // SAFETY: a live Tensor (we hold a reference) and a writable out.
        unsafe { sys::xffi_tensor_is_read_only(&mut out, self.0.as_ptr()) };
        out != 0
    }

    /// The first element's address, for a view of `T`s: checks the dtype
    /// (TypeError), a CPU device, and for a non-empty tensor a non-NULL data
    /// pointer aligned for `T` after the byte offset (ValueError).
    pub(crate) fn check_cpu_elements<T: Scalar>(&self, what: &str) -> Result<*mut T> {
        let d = &self.0.dl;
        if self.dtype() != T::DTYPE {
            return Err(Error::type_error(&format!(
                "Tensor::{what}: the tensor holds {}, not {}",
                self.dtype(),
                T::DTYPE
            )));
        }
        if d.device.device_type != sys::kDLCPU && d.device.device_type != sys::kDLCUDAHost {
            return Err(Error::value_error(&format!(
                "Tensor::{what}: the tensor is not in CPU memory (device type {})",
                d.device.device_type
            )));
        }
        let p = (d.data as *mut u8).wrapping_add(d.byte_offset as usize) as *mut T;
        if self.numel() > 0 && (p.is_null() || (p as usize) % std::mem::align_of::<T>() != 0) {
            return Err(Error::value_error(&format!(
                "Tensor::{what}: the data (address {p:p}, byte offset {}) is not aligned for {}",
                d.byte_offset,
                T::DTYPE
            )));
        }
        Ok(p)
    }

    fn check_view<T: Scalar>(&self, what: &str) -> Result<*mut T> {
        let p = self.check_cpu_elements::<T>(what)?;
        let mut contiguous = 0;
        // SAFETY: a live Tensor (we hold a reference) and a writable out.
        check(unsafe { sys::xffi_tensor_is_contiguous(&mut contiguous, self.0.as_ptr()) })?;
        if contiguous == 0 {
            return Err(Error::value_error(&format!(
                "Tensor::{what}: the tensor is not contiguous (strides {:?})",
                self.strides()
            )));
        }
        Ok(p)
    }

    /// The elements as a slice, checked: the dtype must be `T`'s, the data
    /// in CPU memory, contiguous and aligned (and, for `bool`, every byte 0
    /// or 1: an O(n) check; the others are O(1)). Errors: TypeError for the
    /// wrong dtype, ValueError otherwise.
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[1u8, 2], &[2]).unwrap();
    /// assert_eq!(t.as_slice::<u8>().unwrap(), &[1, 2]);
    /// assert_eq!(t.as_slice::<f32>().unwrap_err().kind(), xffi::ErrorKind::TypeError);
    /// ```
    pub fn as_slice<T: Scalar>(&self) -> Result<&[T]> {
        let p = self.check_view::<T>("as_slice")?;
        if self.numel() == 0 {
            return Ok(&[]);
        }
        check_valid_elements(p, self.numel(), "as_slice")?;
        // SAFETY: check_view checked dtype (so numel elements of T), CPU
        // memory, contiguity, non-NULL and alignment; the Tensor keeps the
        // data alive while self is borrowed, and writers are excluded by
        // as_mut_slice's contract.
        Ok(unsafe { std::slice::from_raw_parts(p, self.numel()) })
    }

    /// The elements as a mutable slice, with the checks of [`Tensor::as_slice`]
    /// plus a ValueError for a read-only tensor.
    ///
    /// # Safety
    /// No one else (another handle, C code, a DLPack consumer) may read or
    /// write the data while the slice lives.
    ///
    /// ```
    /// let t = xffi::Tensor::new(&[2], xffi::DataType::I32).unwrap();
    /// // SAFETY: t is only ours: no one else reads or writes the data meanwhile.
    /// unsafe { t.as_mut_slice::<i32>().unwrap()[1] = 7 };
    /// assert_eq!(t.as_slice::<i32>().unwrap(), &[0, 7]);
    /// ```
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_slice<T: Scalar>(&self) -> Result<&mut [T]> {
        if self.is_read_only() {
            return Err(Error::value_error("Tensor::as_mut_slice: the tensor is read-only"));
        }
        let p = self.check_view::<T>("as_mut_slice")?;
        if self.numel() == 0 {
            return Ok(&mut []);
        }
        check_valid_elements(p, self.numel(), "as_mut_slice")?;
        // SAFETY: as in as_slice for the memory itself; exclusive access is
        // this function's contract (no other reader or writer while it lives).
        Ok(unsafe { std::slice::from_raw_parts_mut(p, self.numel()) })
    }

    /// Makes the tensor read-only from now on, for every holder (there is no
    /// way back: others may rely on it). A read-only tensor exports with
    /// DLPack's read-only flag and refuses the legacy export.
    ///
    /// ```
    /// let t = xffi::Tensor::new(&[1], xffi::DataType::F32).unwrap();
    /// t.set_read_only();
    /// assert!(t.is_read_only() && t.clone().is_read_only());
    /// ```
    pub fn set_read_only(&self) {
        // SAFETY: a live Tensor (we hold a reference); it cannot fail for one.
        unsafe { sys::xffi_tensor_set_read_only(self.0.as_ptr()) };
    }

    /// Exports the tensor as a DLPack 1.x managed tensor (no copy). The
    /// consumer owns it and must call its deleter exactly once; until then it
    /// holds a reference to the Tensor.
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
    /// let managed = t.to_dlpack().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let back = unsafe { xffi::Tensor::from_dlpack(managed) }.unwrap();
    /// assert_eq!(back.as_slice::<i32>().unwrap(), &[1, 2]);
    /// assert!(back.as_object().ptr_eq(t.as_object())); // the same Tensor again
    /// ```
    pub fn to_dlpack(&self) -> Result<NonNull<sys::DLManagedTensorVersioned>> {
        self.export(sys::xffi_tensor_to_dlpack)
    }

    /// Exports the tensor as a legacy (pre-1.0) DLPack managed tensor (no
    /// copy), for consumers that only know that format. The consumer owns it
    /// and must call its deleter exactly once; until then it holds a
    /// reference to the Tensor. Errors: ValueError for a read-only tensor (the
    /// legacy format cannot say so, and the consumer could write to it).
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[7u8, 8], &[2]).unwrap();
    /// let managed = t.to_dlpack_legacy().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let back = unsafe { xffi::Tensor::from_dlpack_legacy(managed) }.unwrap();
    /// assert!(back.as_object().ptr_eq(t.as_object()));
    ///
    /// t.set_read_only();
    /// let err = t.to_dlpack_legacy().unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    /// ```
    pub fn to_dlpack_legacy(&self) -> Result<NonNull<sys::DLManagedTensor>> {
        self.export(sys::xffi_tensor_to_dlpack_legacy)
    }

    fn export<M>(
        &self,
        export: unsafe extern "C" fn(*mut *mut M, *mut sys::xffi_object) -> c_int,
    ) -> Result<NonNull<M>> {
        let mut out = ptr::null_mut();
        // SAFETY: export is one of xffi's DLPack exporters (the only two
        // callers pass them), given a live Tensor and a writable out.
        check(unsafe { export(&mut out, self.0.as_ptr()) })?;
        Ok(NonNull::new(out).expect("a DLPack export that succeeded wrote its result"))
    }

    /// Adopts a DLPack 1.x managed tensor (no copy), after checking that it
    /// describes a valid tensor (see `xffi_tensor_from_dlpack` in
    /// `xffi/tensor.h`). Its deleter runs once, when the last reference to
    /// the Tensor goes. On failure the caller still owns `managed`.
    ///
    /// # Safety
    /// `managed` must be a valid managed tensor that the caller owns.
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[5.0f32], &[1]).unwrap();
    /// let managed = t.to_dlpack().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let u = unsafe { xffi::Tensor::from_dlpack(managed) }.unwrap();
    /// assert_eq!(u.as_slice::<f32>().unwrap(), &[5.0]);
    /// ```
    pub unsafe fn from_dlpack(managed: NonNull<sys::DLManagedTensorVersioned>) -> Result<Tensor> {
        // SAFETY: this function's contract is import's, and the importer is xffi's.
        unsafe { Self::import(managed, sys::xffi_tensor_from_dlpack) }
    }

    /// [`Tensor::from_dlpack`] for the legacy (pre-1.0) format: the same
    /// checks, without a version or flags to read. `managed` is taken over on
    /// success only (its deleter runs once, when the last reference to the
    /// Tensor goes); on failure the caller still owns it.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack`].
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[1i64, 2, 3], &[3]).unwrap();
    /// let managed = t.to_dlpack_legacy().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let u = unsafe { xffi::Tensor::from_dlpack_legacy(managed) }.unwrap();
    /// assert_eq!(u.as_slice::<i64>().unwrap(), &[1, 2, 3]);
    ///
    /// // Refused, and still the caller's to release:
    /// let mut bad = t.to_dlpack_legacy().unwrap();
    /// let mut dims = [-2i64];
    /// // SAFETY: bad is live and ours; dims outlives its use.
    /// unsafe { bad.as_mut().dl_tensor.shape = dims.as_mut_ptr() };
    /// // SAFETY: bad is live and ours (only its description is wrong).
    /// let err = unsafe { xffi::Tensor::from_dlpack_legacy(bad) }.unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    /// // SAFETY: refused, so still ours: its deleter runs once, here.
    /// unsafe { (bad.as_ref().deleter.unwrap())(bad.as_ptr()) };
    /// ```
    pub unsafe fn from_dlpack_legacy(managed: NonNull<sys::DLManagedTensor>) -> Result<Tensor> {
        // SAFETY: this function's contract is import's, and the importer is xffi's.
        unsafe { Self::import(managed, sys::xffi_tensor_from_dlpack_legacy) }
    }

    /// [`Tensor::from_dlpack`] for a producer trusted to describe a valid
    /// tensor (a framework's own tensors, converted on every call): sizes,
    /// strides, dtype and device are taken as they are, without the checks
    /// of `from_dlpack`. Errors: ValueError for a wrong major version, a
    /// negative `ndim` or a NULL shape; MemoryError.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack`], and the descriptor must be valid: no
    /// negative sizes, an element count and stride extent that fit `i64`, a
    /// known device, a non-zero dtype, and data for every element. The
    /// Tensor keeps reading the producer's `shape` and `strides` arrays (where
    /// `from_dlpack` copies them), so they must stay unchanged until the
    /// producer's deleter runs.
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
    /// let managed = t.to_dlpack().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let u = unsafe { xffi::Tensor::from_dlpack_unchecked(managed) }.unwrap();
    /// assert_eq!(u.as_slice::<f64>().unwrap(), &[1.0, 2.0]);
    ///
    /// // What it still refuses, leaving the managed tensor to the caller:
    /// let mut bad = t.to_dlpack().unwrap();
    /// // SAFETY: bad is live and ours; dims outlives its use.
    /// unsafe { bad.as_mut().dl_tensor.ndim = -1 };
    /// // SAFETY: bad is live and ours (only its description is wrong).
    /// let err = unsafe { xffi::Tensor::from_dlpack_unchecked(bad) }.unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    /// assert_eq!(err.message(), "xffi_tensor_from_dlpack_unchecked: ndim is -1, expected >= 0");
    /// // SAFETY: refused, so still ours: its deleter runs once, here.
    /// unsafe { (bad.as_ref().deleter.unwrap())(bad.as_ptr()) }; // still ours: release it
    /// ```
    pub unsafe fn from_dlpack_unchecked(managed: NonNull<sys::DLManagedTensorVersioned>) -> Result<Tensor> {
        // SAFETY: this function's contract is import's (plus the unchecked
        // importer's: the tensor is valid), and the importer is xffi's.
        unsafe { Self::import(managed, sys::xffi_tensor_from_dlpack_unchecked) }
    }

    /// [`Tensor::from_dlpack_unchecked`] for the legacy format: the same
    /// trust and checks, without a version to check. `managed` is taken over
    /// on success only; on failure the caller still owns it.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack_unchecked`].
    ///
    /// ```
    /// let t = xffi::Tensor::from_slice(&[3i32], &[1]).unwrap();
    /// let managed = t.to_dlpack_legacy().unwrap();
    /// // SAFETY: managed is the live export just made, ours, handed over once.
    /// let u = unsafe { xffi::Tensor::from_dlpack_legacy_unchecked(managed) }.unwrap();
    /// assert!(u.as_object().ptr_eq(t.as_object()));
    ///
    /// let mut bad = t.to_dlpack_legacy().unwrap();
    /// // SAFETY: bad is live and ours; dims outlives its use.
    /// unsafe { bad.as_mut().dl_tensor.shape = std::ptr::null_mut() };
    /// // SAFETY: bad is live and ours (only its description is wrong).
    /// let err = unsafe { xffi::Tensor::from_dlpack_legacy_unchecked(bad) }.unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    /// // SAFETY: refused, so still ours: its deleter runs once, here.
    /// unsafe { (bad.as_ref().deleter.unwrap())(bad.as_ptr()) };
    /// ```
    pub unsafe fn from_dlpack_legacy_unchecked(managed: NonNull<sys::DLManagedTensor>) -> Result<Tensor> {
        // SAFETY: this function's contract is import's (plus the unchecked
        // importer's: the tensor is valid), and the importer is xffi's.
        unsafe { Self::import(managed, sys::xffi_tensor_from_dlpack_legacy_unchecked) }
    }

    /// One import: `managed` is stolen on success only.
    /// Hands `managed` to `import` and wraps the Tensor it makes.
    ///
    /// # Safety
    /// `managed` is a live DLPack tensor of the kind `import` takes, whose
    /// ownership passes to the Tensor on success only (the public importers'
    /// contract); `import` is one of xffi's DLPack importers.
    unsafe fn import<M>(
        managed: NonNull<M>,
        import: unsafe extern "C" fn(*mut *mut sys::xffi_object, *mut M) -> c_int,
    ) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        // SAFETY: the caller's contract; out is writable.
        check(unsafe { import(&mut out, managed.as_ptr()) })?;
        // SAFETY: on success out holds a new reference to a Tensor, now ours.
        let tensor = unsafe { ObjectRef::from_raw(out) };
        Ok(Tensor(tensor.expect("a DLPack import that succeeded wrote its result")))
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor(shape={:?}, dtype={})", self.shape(), self.dtype())
    }
}
