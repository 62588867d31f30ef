//! ndarray views of tensors (feature `ndarray`): zero-copy views of any
//! strided tensor (column-major, negative, zero strides, byte offsets, empty
//! and 0-d), mutable views through UniqueTensor, and the checks on bad
//! input: wrong dtype, non-CPU device, misaligned data, strides whose reach
//! overflows, aliasing strides for a mutable view, read-only tensors, invalid
//! bools. And tensors from owned arrays without a copy.
use std::ffi::c_void;
use std::ptr::NonNull;

use ndarray::{Array2, ArrayD, Axis, IxDyn, arr2, s};
use xffi::{DataType, ErrorKind, Tensor, UniqueTensor, sys};

/// A foreign DLPack producer: owns its bytes and describes them as told.
struct Foreign {
    bytes: Vec<u64>, // 8-byte aligned storage
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// # Safety
/// `m` is a tensor made by `foreign`, released once.
unsafe extern "C" fn release_foreign(m: *mut sys::DLManagedTensorVersioned) {
    // SAFETY: this function's contract: both boxes are ours to free, once.
    unsafe {
        drop(Box::from_raw((*m).manager_ctx.cast::<Foreign>()));
        drop(Box::from_raw(m));
    }
}

/// A managed tensor over `bytes` (little-endian words), as described.
fn foreign(
    bytes: Vec<u64>,
    shape: &[i64],
    strides: &[i64],
    dtype: DataType,
    device_type: sys::DLDeviceType,
    byte_offset: u64,
) -> NonNull<sys::DLManagedTensorVersioned> {
    let mut f = Box::new(Foreign { bytes, shape: shape.to_vec(), strides: strides.to_vec() });
    let dl_tensor = sys::DLTensor {
        data: f.bytes.as_mut_ptr().cast::<c_void>(),
        device: sys::DLDevice { device_type, device_id: 0 },
        ndim: shape.len() as i32,
        dtype: dtype.0,
        shape: f.shape.as_mut_ptr(),
        strides: f.strides.as_mut_ptr(),
        byte_offset,
    };
    let m = Box::new(sys::DLManagedTensorVersioned {
        version: sys::DLPackVersion { major: 1, minor: 1 },
        manager_ctx: Box::into_raw(f).cast(),
        deleter: Some(release_foreign),
        flags: 0,
        dl_tensor,
    });
    NonNull::from(Box::leak(m))
}

fn import(m: NonNull<sys::DLManagedTensorVersioned>) -> Tensor {
    // SAFETY: a live managed tensor we own, its data as described.
    unsafe { Tensor::from_dlpack(m) }.unwrap()
}

#[test]
fn a_view_of_a_compact_tensor_is_zero_copy() {
    let t = Tensor::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap();
    let v = t.as_array::<f32>().unwrap();
    assert_eq!(v.shape(), &[3, 4]);
    assert_eq!(v.as_ptr(), t.dltensor().data.cast_const().cast());
    assert_eq!(v[[2, 3]], 11.0);
    assert!(v.is_standard_layout());
}

#[test]
fn a_view_follows_column_major_negative_and_zero_strides() {
    // Column-major 2x3 over 0..6: element [i, j] at i + 2j.
    let t = import(foreign(
        vec![0x0003_0002_0001_0000, 0x0000_0000_0005_0004],
        &[2, 3],
        &[1, 2],
        DataType::U16,
        sys::kDLCPU,
        0,
    ));
    let v = t.as_array::<u16>().unwrap();
    assert_eq!(v, arr2(&[[0u16, 2, 4], [1, 3, 5]]).into_dyn());
    // The first element is the data pointer, whatever the order.
    assert_eq!(v.as_ptr(), t.dltensor().data.cast_const().cast());

    // Negative strides: an array flipped on both axes comes back flipped.
    let mut a = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as i64);
    a.invert_axis(Axis(0));
    a.invert_axis(Axis(1));
    let want = a.clone();
    let t = Tensor::from_array(a).unwrap();
    assert_eq!(t.strides(), &[-4, -1]);
    assert_eq!(t.as_array::<i64>().unwrap(), want.into_dyn());

    // Zero strides (a broadcast row): readable, every row the same memory.
    let t = import(foreign(vec![0x0000_0002_0000_0001], &[3, 2], &[0, 1], DataType::I32, sys::kDLCPU, 0));
    let v = t.as_array::<i32>().unwrap();
    assert_eq!(v, arr2(&[[1, 2], [1, 2], [1, 2]]).into_dyn());
    assert_eq!(v.index_axis(Axis(0), 2).as_ptr(), v.index_axis(Axis(0), 0).as_ptr());
}

#[test]
fn a_view_starts_at_the_byte_offset() {
    let t = import(foreign(vec![1, 2, 3], &[2], &[1], DataType::U64, sys::kDLCPU, 8));
    assert_eq!(t.as_array::<u64>().unwrap().as_slice().unwrap(), &[2, 3]);
}

#[test]
fn a_view_refuses_the_wrong_dtype_a_device_misaligned_data_and_invalid_bools() {
    let t = Tensor::new(&[2], DataType::F64).unwrap();
    let err = t.as_array::<i64>().unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (ErrorKind::TypeError, "Tensor::as_array: the tensor holds float64, not int64")
    );

    let t = import(foreign(vec![0; 2], &[2], &[1], DataType::F32, sys::kDLCUDA, 0));
    let err = t.as_array::<f32>().unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (ErrorKind::ValueError, "Tensor::as_array: the tensor is not in CPU memory (device type 2)")
    );
    assert_eq!(
        t.as_slice::<f32>().unwrap_err().message(),
        "Tensor::as_slice: the tensor is not in CPU memory (device type 2)"
    );

    let t = import(foreign(vec![0; 2], &[2], &[1], DataType::F32, sys::kDLCPU, 2));
    let err = t.as_array::<f32>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().ends_with(", byte offset 2) is not aligned for float32"), "{}", err.message());

    // Bools, column-major (strides [1, 2]) over the bytes 1, 3, 0, 1:
    // element [1, 0] is the 3.
    let t = import(foreign(vec![0x0100_0301], &[2, 2], &[1, 2], DataType::BOOL, sys::kDLCPU, 0));
    let err = t.as_array::<bool>().unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (ErrorKind::ValueError, "Tensor::as_array: element [1, 0] (bytes [3]) is not a valid bool")
    );
    let t = import(foreign(vec![0x0100_0001], &[2, 2], &[1, 2], DataType::BOOL, sys::kDLCPU, 0));
    assert_eq!(t.as_array::<bool>().unwrap(), arr2(&[[true, false], [false, true]]).into_dyn());
}

#[test]
fn a_view_refuses_strides_whose_reach_overflows() {
    // Within i64 in elements (so xffi took it), past isize::MAX in bytes.
    let stride = i64::MAX / 4;
    let m = foreign(vec![0; 1], &[3], &[stride], DataType::F64, sys::kDLCPU, 0);
    // SAFETY: a live managed tensor we own; its data is never read (the view
    // is refused before anything is).
    let t = unsafe { Tensor::from_dlpack_unchecked(m) }.unwrap();
    let err = t.as_array::<f64>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert_eq!(
        err.message(),
        format!("Tensor::as_array: strides [{stride}] with shape [3] reach past isize::MAX bytes")
    );
    // Past i64 in elements: refused by the checked import already, and by the view.
    let m = foreign(vec![0; 1], &[3, 2], &[i64::MAX, -i64::MAX], DataType::U8, sys::kDLCPU, 0);
    // SAFETY: as above.
    assert!(unsafe { Tensor::from_dlpack(m) }.is_err());
    // SAFETY: as above (refused, so still ours to release).
    unsafe { release_foreign(m.as_ptr()) };
    let m = foreign(vec![0; 1], &[3, 2], &[i64::MAX, -i64::MAX], DataType::U8, sys::kDLCPU, 0);
    // SAFETY: as above.
    let t = unsafe { Tensor::from_dlpack_unchecked(m) }.unwrap();
    assert!(t.as_array::<u8>().unwrap_err().message().contains("reach past isize::MAX bytes"));
}

#[test]
fn a_mutable_view_refuses_aliasing_strides_and_read_only_tensors() {
    let t = import(foreign(vec![0; 1], &[3, 2], &[0, 1], DataType::I32, sys::kDLCPU, 0));
    // SAFETY: t is only ours (the view is refused).
    let err = unsafe { t.as_mut_array::<i32>() }.unwrap_err();
    assert_eq!(
        (err.kind(), &*err.message()),
        (
            ErrorKind::ValueError,
            "Tensor::as_mut_array: strides [0, 1] with shape [3, 2] let two indices reach one element (a mutable view needs each element once)"
        )
    );
    // Overlapping rows: [2, 3] with strides [2, 1] reaches element 2 twice.
    let t = import(foreign(vec![0; 1], &[2, 3], &[2, 1], DataType::U8, sys::kDLCPU, 0));
    // SAFETY: as above.
    assert!(unsafe { t.as_mut_array::<u8>() }.is_err());
    assert_eq!(t.as_array::<u8>().unwrap().shape(), &[2, 3]); // reading is fine

    let t = Tensor::new(&[2], DataType::U8).unwrap();
    t.set_read_only();
    // SAFETY: as above.
    let err = unsafe { t.as_mut_array::<u8>() }.unwrap_err();
    assert_eq!(err.message(), "Tensor::as_mut_array: the tensor is read-only");
}

#[test]
fn a_mutable_view_writes_through_to_every_holder() {
    let mut a = Array2::<f32>::zeros((3, 4));
    a.invert_axis(Axis(1));
    let mut u = UniqueTensor::from_array(a).unwrap();
    let mut v = u.as_mut_array::<f32>().unwrap();
    v.slice_mut(s![.., 0]).fill(1.0);
    v[[2, 3]] = 5.0;
    let t = u.into_shared();
    let w = t.as_array::<f32>().unwrap();
    assert_eq!(w.index_axis(Axis(1), 0).iter().copied().collect::<Vec<f32>>(), vec![1.0; 3]);
    assert_eq!(w[[2, 3]], 5.0);
    assert_eq!(w.sum(), 8.0);
    // The memory order is the flipped one: the last column comes first.
    assert_eq!(t.as_slice::<f32>().unwrap_err().kind(), ErrorKind::ValueError);
}

#[test]
fn empty_and_zero_dimensional_tensors_have_views() {
    let t = Tensor::new(&[0, 3], DataType::I8).unwrap();
    assert_eq!(t.as_array::<i8>().unwrap().shape(), &[0, 3]);
    let mut u = UniqueTensor::new(&[4, 0], DataType::BOOL).unwrap();
    assert_eq!(u.as_mut_array::<bool>().unwrap().len(), 0);
    let t = Tensor::from_array(ndarray::arr0(2.5f64)).unwrap();
    assert_eq!(t.shape(), &[] as &[i64]);
    assert_eq!(t.as_array::<f64>().unwrap()[IxDyn(&[])], 2.5);
}

#[test]
fn from_array_keeps_the_array_and_its_buffer() {
    let a = ArrayD::<u32>::from_shape_fn(IxDyn(&[2, 3, 4]), |d| (d[0] * 100 + d[1] * 10 + d[2]) as u32);
    let p = a.as_ptr();
    let t = Tensor::from_array(a.clone()).unwrap();
    assert_eq!(t.as_slice::<u32>().unwrap().as_ptr(), t.as_array::<u32>().unwrap().as_ptr());
    assert_eq!(t.as_array::<u32>().unwrap(), a);
    let t = Tensor::from_array(a).unwrap();
    assert_eq!(t.as_array::<u32>().unwrap().as_ptr(), p);
    // Released by C: the export outlives every Rust handle.
    let managed = t.to_dlpack().unwrap();
    drop(t);
    // SAFETY: the export is live and ours; its deleter runs once, here.
    unsafe { (managed.as_ref().deleter.unwrap())(managed.as_ptr()) };
}

#[cfg(feature = "half")]
#[test]
fn f16_tensors_have_views_with_the_half_feature() {
    use half::f16;
    let t = Tensor::from_array(arr2(&[[f16::ONE, f16::ZERO], [f16::MAX, f16::MIN]])).unwrap();
    assert_eq!(t.dtype(), DataType::F16);
    assert_eq!(t.as_array::<f16>().unwrap().t()[[0, 1]], f16::MAX);
}
