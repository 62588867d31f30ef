//! Tensors over memory that Rust owns, without a copy: [`Tensor::from_vec`],
//! [`Tensor::from_boxed_slice`] and, for any owner, [`Tensor::from_owner`];
//! and [`UniqueTensor`], a tensor no one else can reach, which hands out
//! `&mut` access safely.
//!
//! How the memory stays alive: the owner (the `Vec`, the boxed slice, an
//! `ndarray::Array`, ...) moves into a heap block that also holds a DLPack
//! managed tensor describing the data; xffi adopts that managed tensor, and
//! its deleter, which frees the block and so drops the owner, runs once, when
//! the last reference to the Tensor goes, whichever language drops it (a
//! DLPack export holds a reference too).

use std::ffi::c_void;
use std::ptr::NonNull;

use xffi_sys as sys;

use crate::error::{Error, Result};
use crate::tensor::{DataType, Scalar, Tensor, checked_numel};

/// The heap block behind a tensor over Rust-owned memory. `managed` comes
/// first (repr(C)), so the pointer xffi hands back to the deleter is the
/// block's own.
#[repr(C)]
struct Owned<K> {
    managed: sys::DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    owner: K,
}

/// The deleter of an [`Owned`] block: drops it (the owner with it).
///
/// # Safety
/// `managed` is the first field of a `Box<Owned<K>>` leaked by
/// [`Tensor::from_owner`], and this is its one release (DLPack's contract).
unsafe extern "C" fn release_owned<K>(managed: *mut sys::DLManagedTensorVersioned) {
    // SAFETY: this function's contract: the block is ours to free, once.
    drop(unsafe { Box::from_raw(managed.cast::<Owned<K>>()) });
}

impl Tensor {
    /// A CPU tensor over memory that `owner` keeps alive, with no copy: the
    /// owner moves into the Tensor and is dropped, on whatever thread, when
    /// the last reference goes (from Rust or C). `strides` counts elements
    /// (None: compact row-major). The descriptor is checked as by
    /// [`Tensor::from_dlpack`] (ValueError for a negative dimension, a stride
    /// extent that overflows, a NULL `data` for a non-empty tensor); on an
    /// error the owner is dropped at once.
    ///
    /// The other constructors over Rust memory ([`Tensor::from_vec`],
    /// `Tensor::from_array`) are this one with an owner whose data is
    /// known; a bridge from another tensor library can use it with that
    /// library's tensor as the owner.
    ///
    /// # Safety
    /// While `owner` lives, `data` must point to initialized CPU memory
    /// holding every element the shape and strides reach, of type `dtype`;
    /// moving `owner` must not move that memory (a `Vec`'s or `Box`'s heap
    /// buffer stays where it is), and nothing but the Tensor's holders may
    /// write it.
    ///
    /// ```
    /// let data = vec![1.0f32, 2.0, 3.0, 4.0];
    /// let p = data.as_ptr();
    /// // SAFETY: data's heap buffer holds the 4 f32s and moves in with data.
    /// let t = unsafe {
    ///     xffi::Tensor::from_owner(data, p.cast_mut().cast(), &[2, 2], Some(&[1, 2]), xffi::DataType::F32)
    /// }.unwrap();
    /// assert_eq!(t.strides(), &[1, 2]); // column-major: not a slice, but a valid tensor
    /// assert!(t.as_slice::<f32>().is_err());
    /// ```
    pub unsafe fn from_owner<K: Send + 'static>(
        owner: K,
        data: *mut c_void,
        shape: &[i64],
        strides: Option<&[i64]>,
        dtype: DataType,
    ) -> Result<Tensor> {
        let Ok(ndim) = i32::try_from(shape.len()) else {
            return Err(Error::value_error(&format!(
                "Tensor::from_owner: {} dimensions, expected at most {}",
                shape.len(),
                i32::MAX
            )));
        };
        if strides.is_some_and(|s| s.len() != shape.len()) {
            let s = strides.unwrap_or_default();
            return Err(Error::value_error(&format!(
                "Tensor::from_owner: {} strides for {} dimensions",
                s.len(),
                shape.len()
            )));
        }
        let mut block = Box::new(Owned {
            managed: sys::DLManagedTensorVersioned {
                version: sys::DLPackVersion { major: sys::XFFI_DLPACK_MAJOR, minor: sys::XFFI_DLPACK_MINOR },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(release_owned::<K>),
                flags: 0,
                dl_tensor: sys::DLTensor {
                    data,
                    device: sys::DLDevice { device_type: sys::kDLCPU, device_id: 0 },
                    ndim,
                    dtype: dtype.0,
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
            shape: shape.to_vec(),
            strides: strides.map(<[i64]>::to_vec),
            owner,
        });
        // The Vecs' buffers do not move with the block: pointing at them is stable.
        block.managed.dl_tensor.shape = block.shape.as_mut_ptr();
        if let Some(s) = block.strides.as_mut() {
            block.managed.dl_tensor.strides = s.as_mut_ptr();
        }
        let managed = NonNull::from(&mut Box::leak(block).managed);
        // SAFETY: managed is a valid DLPack 1.x tensor we own (its data as
        // this function's contract says), handed over once; its deleter
        // frees the whole block, once.
        unsafe { Tensor::from_dlpack(managed) }.inspect_err(|_| {
            // SAFETY: refused, so still ours: released here, once.
            unsafe { release_owned::<K>(managed.as_ptr()) }
        })
    }

    /// A compact CPU tensor over `data` with no copy: the Vec moves into the
    /// Tensor and is freed when the last reference goes, from Rust or C.
    /// Errors: ValueError if the shape's element count is not `data.len()`
    /// (the Vec is dropped).
    ///
    /// ```
    /// let v = vec![1i16, 2, 3, 4, 5, 6];
    /// let p = v.as_ptr();
    /// let t = xffi::Tensor::from_vec(v, &[2, 3]).unwrap();
    /// assert_eq!(t.as_slice::<i16>().unwrap().as_ptr(), p); // the Vec's own buffer
    /// assert_eq!(t.dtype(), xffi::DataType::I16);
    /// assert!(xffi::Tensor::from_vec(vec![1u8], &[2]).is_err());
    /// ```
    pub fn from_vec<T: Scalar>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        check_count(shape, data.len(), "from_vec")?;
        let p = data.as_ptr().cast_mut().cast();
        // SAFETY: the Vec's heap buffer holds data.len() initialized Ts, the
        // shape's element count (checked), compact; it moves in with the Vec
        // and no one else can write it.
        unsafe { Tensor::from_owner(data, p, shape, None, T::DTYPE) }
    }

    /// [`Tensor::from_vec`] for a boxed slice.
    ///
    /// ```
    /// let b: Box<[bool]> = vec![true, false].into_boxed_slice();
    /// let t = xffi::Tensor::from_boxed_slice(b, &[2]).unwrap();
    /// assert_eq!(t.as_slice::<bool>().unwrap(), &[true, false]);
    /// ```
    pub fn from_boxed_slice<T: Scalar>(data: Box<[T]>, shape: &[i64]) -> Result<Tensor> {
        check_count(shape, data.len(), "from_boxed_slice")?;
        let p = data.as_ptr().cast_mut().cast();
        // SAFETY: as in from_vec, for the box's buffer.
        unsafe { Tensor::from_owner(data, p, shape, None, T::DTYPE) }
    }
}

/// ValueError unless `shape` has `len` elements.
fn check_count(shape: &[i64], len: usize, what: &str) -> Result<()> {
    match checked_numel(shape) {
        Some(n) if usize::try_from(n) == Ok(len) => Ok(()),
        Some(n) => {
            Err(Error::value_error(&format!("Tensor::{what}: shape {shape:?} has {n} elements, data has {len}")))
        }
        None => Err(Error::value_error(&format!("Tensor::{what}: the element count of shape {shape:?} overflows i64"))),
    }
}

/// A tensor that only this handle can reach, so `&mut self` is exclusive
/// access to its data and mutable views are safe; [`UniqueTensor::into_shared`]
/// (or `Tensor::from`) makes it an ordinary shared [`Tensor`].
///
/// Why this is sound where `&mut Tensor` would not be: a Tensor is a shared,
/// reference-counted object, and other handles, weak references, DLPack
/// exports and C code may reach the same data, so `&mut` to one handle proves
/// nothing (hence [`Tensor::as_mut_slice`] is `unsafe`). A UniqueTensor is
/// only ever made over memory no one else has, data xffi just allocated
/// ([`UniqueTensor::new`]) or a buffer moved in ([`UniqueTensor::from_vec`]),
/// holds the one reference, and gives none away: it has no `Clone`, no
/// `Deref` to `Tensor`, no `as_object`, no export and no weak reference. The
/// only way out is `into_shared`, which consumes it. So while `&mut self`
/// lives nothing else can read or write the data, and while `&self` lives
/// nothing can write it.
///
/// ```
/// let mut u = xffi::UniqueTensor::new(&[3], xffi::DataType::I32).unwrap();
/// u.as_mut_slice::<i32>().unwrap().copy_from_slice(&[1, 2, 3]);
/// let t: xffi::Tensor = u.into_shared(); // now shared: writing is unsafe again
/// assert_eq!(t.as_slice::<i32>().unwrap(), &[1, 2, 3]);
/// ```
///
/// A second handle is never to be had while it is unique: no `Clone`,
///
/// ```compile_fail
/// let u = xffi::UniqueTensor::new(&[1], xffi::DataType::U8).unwrap();
/// let _second = u.clone();
/// ```
///
/// and no `Deref` to a `Tensor` (whose `clone` would make one):
///
/// ```compile_fail
/// let u = xffi::UniqueTensor::new(&[1], xffi::DataType::U8).unwrap();
/// let _shared: &xffi::Tensor = &u;
/// ```
pub struct UniqueTensor(Tensor);

impl UniqueTensor {
    /// A zero-filled CPU tensor, as [`Tensor::new`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::new(&[2, 2], xffi::DataType::F64).unwrap();
    /// assert_eq!(u.as_slice::<f64>().unwrap(), &[0.0; 4]);
    /// ```
    pub fn new(shape: &[i64], dtype: DataType) -> Result<UniqueTensor> {
        Tensor::new(shape, dtype).map(UniqueTensor)
    }

    /// A tensor over `data` with no copy, as [`Tensor::from_vec`].
    ///
    /// ```
    /// let mut u = xffi::UniqueTensor::from_vec(vec![1u64, 2], &[2]).unwrap();
    /// u.as_mut_slice::<u64>().unwrap()[0] = 9;
    /// assert_eq!(u.as_slice::<u64>().unwrap(), &[9, 2]);
    /// ```
    pub fn from_vec<T: Scalar>(data: Vec<T>, shape: &[i64]) -> Result<UniqueTensor> {
        Tensor::from_vec(data, shape).map(UniqueTensor)
    }

    /// A tensor over `data` with no copy, as [`Tensor::from_boxed_slice`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::from_boxed_slice(vec![1i8, -1].into_boxed_slice(), &[2]).unwrap();
    /// assert_eq!(u.as_slice::<i8>().unwrap(), &[1, -1]);
    /// ```
    pub fn from_boxed_slice<T: Scalar>(data: Box<[T]>, shape: &[i64]) -> Result<UniqueTensor> {
        Tensor::from_boxed_slice(data, shape).map(UniqueTensor)
    }

    /// Wraps a tensor that only `tensor` can reach (crate-internal: the
    /// callers made it from memory no one else has).
    #[cfg(feature = "ndarray")]
    pub(crate) fn from_fresh(tensor: Tensor) -> UniqueTensor {
        UniqueTensor(tensor)
    }

    /// Gives up exclusivity: the ordinary shared Tensor (no copy).
    ///
    /// ```
    /// let t = xffi::UniqueTensor::new(&[1], xffi::DataType::U8).unwrap().into_shared();
    /// assert_eq!(t.shape(), &[1]);
    /// ```
    pub fn into_shared(self) -> Tensor {
        self.0
    }

    /// The shape, as [`Tensor::shape`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::new(&[2, 3], xffi::DataType::F32).unwrap();
    /// assert_eq!(u.shape(), &[2, 3]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        self.0.shape()
    }

    /// The strides in elements, as [`Tensor::strides`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::new(&[2, 3], xffi::DataType::F32).unwrap();
    /// assert_eq!(u.strides(), &[3, 1]);
    /// ```
    pub fn strides(&self) -> &[i64] {
        self.0.strides()
    }

    /// The data type, as [`Tensor::dtype`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    /// assert_eq!(u.dtype(), xffi::DataType::I32);
    /// ```
    pub fn dtype(&self) -> DataType {
        self.0.dtype()
    }

    /// The number of elements, as [`Tensor::numel`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::new(&[2, 3], xffi::DataType::U8).unwrap();
    /// assert_eq!(u.numel(), 6);
    /// ```
    pub fn numel(&self) -> usize {
        self.0.numel()
    }

    /// The DLTensor (borrowed), as [`Tensor::dltensor`].
    ///
    /// ```
    /// let u = xffi::UniqueTensor::new(&[4, 5], xffi::DataType::F64).unwrap();
    /// let dl = u.dltensor();
    /// assert_eq!(dl.ndim, 2);
    /// assert_eq!(dl.dtype.bits, 64);
    /// ```
    pub fn dltensor(&self) -> &sys::DLTensor {
        self.0.dltensor()
    }

    /// The elements, as [`Tensor::as_slice`] (the same checks and errors).
    ///
    /// ```
    /// let u = xffi::UniqueTensor::from_vec(vec![1.5f64, 2.5], &[2]).unwrap();
    /// assert_eq!(u.as_slice::<f64>().unwrap(), &[1.5, 2.5]);
    /// // The wrong element type is an error, not a reinterpretation.
    /// assert!(u.as_slice::<i64>().is_err());
    /// ```
    pub fn as_slice<T: Scalar>(&self) -> Result<&[T]> {
        self.0.as_slice()
    }

    /// The elements, mutable: [`Tensor::as_mut_slice`]'s checks and errors,
    /// and safe, because `&mut self` is exclusive access (see the type).
    ///
    /// ```
    /// let mut u = xffi::UniqueTensor::new(&[2], xffi::DataType::BOOL).unwrap();
    /// u.as_mut_slice::<bool>().unwrap()[1] = true;
    /// assert_eq!(u.as_slice::<bool>().unwrap(), &[false, true]);
    /// assert_eq!(u.as_mut_slice::<u8>().unwrap_err().kind(), xffi::ErrorKind::TypeError);
    /// ```
    pub fn as_mut_slice<T: Scalar>(&mut self) -> Result<&mut [T]> {
        // SAFETY: as_mut_slice's contract (no other reader or writer while the
        // slice lives) holds: the slice borrows self mutably, and no one else
        // can reach this tensor's data (the type's invariant).
        unsafe { self.0.as_mut_slice() }
    }

    /// The tensor, borrowed, for the crate's views.
    #[cfg(feature = "ndarray")]
    pub(crate) fn tensor(&self) -> &Tensor {
        &self.0
    }
}

impl From<UniqueTensor> for Tensor {
    fn from(u: UniqueTensor) -> Tensor {
        u.into_shared()
    }
}

impl std::fmt::Debug for UniqueTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Unique{:?}", self.0)
    }
}
