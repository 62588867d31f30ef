//! Tensors over Rust-owned memory (from_vec, from_boxed_slice, from_owner):
//! no copy, the owner dropped exactly once when the last reference goes,
//! from Rust, from C (a DLPack export's deleter) or from another thread;
//! every DLPack integer, float and bool dtype in as_slice; the checks of the
//! slice views on bad input; UniqueTensor's safe mutable slice.
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use xffi::{DataType, ErrorKind, Scalar, Tensor, UniqueTensor};

/// An owner that counts its drops, holding the elements.
struct Counted<T> {
    data: Vec<T>,
    drops: Arc<AtomicUsize>,
}
impl<T> Drop for Counted<T> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

fn counted<T: Scalar>(data: Vec<T>, shape: &[i64], strides: Option<&[i64]>) -> (Tensor, Arc<AtomicUsize>) {
    let drops = Arc::new(AtomicUsize::new(0));
    let p = data.as_ptr().cast_mut().cast::<c_void>();
    let owner = Counted { data, drops: drops.clone() };
    // SAFETY: the owner's Vec holds the elements the shape and strides reach,
    // and its buffer does not move with it.
    let t = unsafe { Tensor::from_owner(owner, p, shape, strides, T::DTYPE) }.unwrap();
    (t, drops)
}

#[test]
fn from_vec_uses_the_vecs_own_buffer() {
    let v: Vec<f64> = (0..1000).map(f64::from).collect();
    let p = v.as_ptr();
    let t = Tensor::from_vec(v, &[10, 100]).unwrap();
    assert_eq!(t.dltensor().data.cast_const(), p.cast());
    assert_eq!(t.as_slice::<f64>().unwrap().as_ptr(), p);
    assert_eq!(t.as_slice::<f64>().unwrap()[999], 999.0);
    assert_eq!((t.shape(), t.strides()), (&[10, 100][..], &[100, 1][..]));
}

#[test]
fn from_boxed_slice_uses_the_boxs_own_buffer() {
    let b: Box<[u32]> = (0..6).collect();
    let p = b.as_ptr();
    let t = Tensor::from_boxed_slice(b, &[3, 2]).unwrap();
    assert_eq!(t.as_slice::<u32>().unwrap().as_ptr(), p);
    assert_eq!(t.as_slice::<u32>().unwrap(), &[0, 1, 2, 3, 4, 5]);
}

#[test]
fn the_owner_is_dropped_once_when_the_last_rust_reference_goes() {
    let (t, drops) = counted(vec![1i32, 2, 3], &[3], None);
    let u = t.clone();
    drop(t);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    assert_eq!(u.as_slice::<i32>().unwrap(), &[1, 2, 3]);
    drop(u);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn the_owner_is_dropped_by_the_c_side_when_a_dlpack_export_outlives_rust() {
    let (t, drops) = counted(vec![7u8; 16], &[4, 4], None);
    let managed = t.to_dlpack().unwrap();
    drop(t);
    assert_eq!(drops.load(Ordering::SeqCst), 0, "the export holds a reference");
    // SAFETY: the export is live and ours; C reads its data as a consumer would.
    let first = unsafe { *managed.as_ref().dl_tensor.data.cast::<u8>() };
    assert_eq!(first, 7);
    // SAFETY: the export's deleter, run once, by the consumer.
    unsafe { (managed.as_ref().deleter.unwrap())(managed.as_ptr()) };
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn the_owner_is_dropped_on_the_thread_that_drops_the_last_reference() {
    let (t, drops) = counted(vec![1.0f32; 4], &[4], None);
    let sum = std::thread::spawn(move || t.as_slice::<f32>().unwrap().iter().sum::<f32>()).join().unwrap();
    assert_eq!(sum, 4.0);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn a_refused_descriptor_drops_the_owner_at_once_and_says_why() {
    let drops = Arc::new(AtomicUsize::new(0));
    let owner = Counted { data: vec![0i64; 2], drops: drops.clone() };
    let p = owner.data.as_ptr().cast_mut().cast();
    // SAFETY: the owner holds 2 i64s; the shape is what is wrong.
    let err = unsafe { Tensor::from_owner(owner, p, &[-2], None, DataType::I64) }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().contains("-2"), "{}", err.message());
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    let err = Tensor::from_vec(vec![1u8, 2, 3], &[2, 2]).unwrap_err();
    assert_eq!(err.message(), "Tensor::from_vec: shape [2, 2] has 4 elements, data has 3");
    let err = Tensor::from_boxed_slice(Box::new([1u8]), &[1 << 62, 4]).unwrap_err();
    assert_eq!(
        err.message(),
        "Tensor::from_boxed_slice: the element count of shape [4611686018427387904, 4] overflows i64"
    );
    // SAFETY: nothing is read: the strides' count is refused first.
    let err = unsafe { Tensor::from_owner((), std::ptr::null_mut(), &[1, 1], Some(&[1]), DataType::U8) }.unwrap_err();
    assert_eq!(err.message(), "Tensor::from_owner: 1 strides for 2 dimensions");
}

/// from_vec, then as_slice of the same type gives the values back, and of
/// another type of the same size a TypeError.
fn round_trip<T: Scalar + PartialEq + std::fmt::Debug>(values: Vec<T>, name: &str) {
    let want = values.clone();
    let t = Tensor::from_vec(values, &[want.len() as i64]).unwrap();
    assert_eq!(t.dtype().to_string(), name);
    assert_eq!(name.parse::<DataType>().unwrap(), T::DTYPE);
    assert_eq!(t.as_slice::<T>().unwrap(), &want[..]);
}

#[test]
fn every_dlpack_integer_float_and_bool_dtype_has_a_slice() {
    round_trip(vec![i8::MIN, -1, i8::MAX], "int8");
    round_trip(vec![i16::MIN, i16::MAX], "int16");
    round_trip(vec![i32::MIN, i32::MAX], "int32");
    round_trip(vec![i64::MIN, i64::MAX], "int64");
    round_trip(vec![0u8, u8::MAX], "uint8");
    round_trip(vec![0u16, u16::MAX], "uint16");
    round_trip(vec![0u32, u32::MAX], "uint32");
    round_trip(vec![0u64, u64::MAX], "uint64");
    round_trip(vec![f32::MIN, 0.5], "float32");
    round_trip(vec![f64::MAX, -0.25], "float64");
    round_trip(vec![true, false, true], "bool");
    let err = Tensor::from_vec(vec![1u16], &[1]).unwrap().as_slice::<i16>().unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (ErrorKind::TypeError, "Tensor::as_slice: the tensor holds uint16, not int16")
    );
}

#[cfg(feature = "half")]
#[test]
fn f16_and_bf16_have_slices_with_the_half_feature() {
    use half::{bf16, f16};
    round_trip(vec![f16::from_f32(1.5), f16::MAX, f16::NEG_INFINITY], "float16");
    round_trip(vec![bf16::from_f32(-2.0), bf16::MIN_POSITIVE], "bfloat16");
    let t = Tensor::new(&[2], DataType::BF16).unwrap();
    // SAFETY: t is only ours.
    unsafe { t.as_mut_slice::<bf16>().unwrap()[1] = bf16::from_f32(3.0) };
    assert_eq!(t.as_slice::<bf16>().unwrap()[1].to_f32(), 3.0);
    assert_eq!(t.as_slice::<f16>().unwrap_err().message(), "Tensor::as_slice: the tensor holds bfloat16, not float16");
}

#[test]
fn a_bool_slice_refuses_bytes_other_than_0_and_1() {
    let bytes = vec![1u8, 0, 2, 1];
    let p = bytes.as_ptr().cast_mut().cast();
    // SAFETY: the Vec holds the 4 bytes; bool's dtype is one byte each.
    let t = unsafe { Tensor::from_owner(bytes, p, &[4], None, DataType::BOOL) }.unwrap();
    let err = t.as_slice::<bool>().unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (ErrorKind::ValueError, "Tensor::as_slice: element 2 (bytes [2]) is not a valid bool")
    );
    // SAFETY: t is only ours (the check comes before any slice is made).
    let err = unsafe { t.as_mut_slice::<bool>() }.unwrap_err();
    assert_eq!(err.message(), "Tensor::as_mut_slice: element 2 (bytes [2]) is not a valid bool");
}

#[test]
fn a_slice_refuses_misaligned_data() {
    let words = vec![0u32; 3];
    // One byte in: 2 f32s' worth of bytes, at an odd address.
    let p = words.as_ptr().cast::<u8>().wrapping_add(1).cast_mut().cast();
    // SAFETY: the Vec holds 12 bytes; the tensor's 8 start at byte 1.
    let t = unsafe { Tensor::from_owner(words, p, &[2], None, DataType::F32) }.unwrap();
    let err = t.as_slice::<f32>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().starts_with("Tensor::as_slice: the data (address "), "{}", err.message());
    assert!(err.message().ends_with(", byte offset 0) is not aligned for float32"), "{}", err.message());
}

#[test]
fn a_unique_tensor_writes_safely_and_shares_without_a_copy() {
    let mut u = UniqueTensor::from_vec(vec![0i16; 4], &[2, 2]).unwrap();
    let p = u.as_slice::<i16>().unwrap().as_ptr();
    u.as_mut_slice::<i16>().unwrap().copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(u.as_mut_slice::<i32>().unwrap_err().kind(), ErrorKind::TypeError);
    let t = Tensor::from(u);
    assert_eq!(t.as_slice::<i16>().unwrap(), &[1, 2, 3, 4]);
    assert_eq!(t.as_slice::<i16>().unwrap().as_ptr(), p);
    let mut z = UniqueTensor::new(&[0], DataType::U64).unwrap();
    assert_eq!(z.as_mut_slice::<u64>().unwrap(), &mut []);
    assert_eq!(format!("{z:?}"), "UniqueTensor(shape=[0], dtype=uint64)");
}
