//! The dlpark bridge (feature `dlpark`), both ways without a copy: an xffi
//! Tensor as a dlpark handle (and through it an ndarray view made by
//! dlpark), a dlpark tensor made from an ndarray array as an xffi Tensor;
//! lifetimes across the two (the handle keeps the Tensor, the Tensor keeps
//! the producer's array) and a refused descriptor released once.
use dlpark::TryFromDlpack;
use dlpark::allocation::dynamic;
use dlpark::ffi::DLManagedTensorVersioned;
use ndarray::{ArrayViewD, arr2};
use xffi::{ErrorKind, Tensor};

/// A dlpark DLPack 1.x tensor over an owned ndarray array (no copy).
fn dlpark_tensor(a: ndarray::Array2<f32>) -> dlpark::versioned::Dlpack {
    let initialized: dynamic::Initialized<DLManagedTensorVersioned> = Box::new(a).try_into().unwrap();
    // SAFETY: the array's own buffer, described by dlpark itself.
    unsafe { initialized.finish() }
}

#[test]
fn an_xffi_tensor_becomes_a_dlpark_tensor_without_a_copy() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let data = t.as_slice::<f32>().unwrap().as_ptr();
    let d = t.to_dlpark().unwrap();
    drop(t); // the handle holds the Tensor
    {
        let r = d.validate().unwrap();
        assert_eq!((r.shape(), r.data_ptr()), (&[2i64, 3][..], data.cast()));
    }
    // SAFETY: the data is the Vec's, alive while d holds the Tensor; no one writes it.
    let view = unsafe { ArrayViewD::<f32>::try_from_dlpack(&d, ()) }.unwrap();
    assert_eq!(view.as_ptr(), data);
    assert_eq!(view, arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).into_dyn());
    drop(view);
    drop(d); // the last reference: the Vec is freed (valgrind checks it)

    let t = Tensor::from_vec(vec![1u8], &[1]).unwrap();
    t.set_read_only();
    assert!(t.to_dlpark().unwrap().flags().contains(dlpark::DlpackFlags::READ_ONLY));
    let Err(err) = t.to_dlpark_legacy() else { panic!("a read-only tensor exported to legacy DLPack") };
    assert_eq!(err.kind(), ErrorKind::ValueError);
}

#[test]
fn a_dlpark_tensor_becomes_an_xffi_tensor_without_a_copy() {
    let a = arr2(&[[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]]);
    let data = a.as_ptr();
    let d = dlpark_tensor(a);
    // SAFETY: dlpark's own tensor over the array: valid CPU data no one else writes.
    let t = unsafe { Tensor::try_from_dlpack(d, ()) }.unwrap();
    assert_eq!(t.as_slice::<f32>().unwrap().as_ptr(), data);
    assert_eq!(t.shape(), &[3, 2]);
    // And back: the same memory again, through both crates.
    let back = t.to_dlpark_legacy().unwrap();
    drop(t);
    // SAFETY: as above; back holds the Tensor, which holds the array.
    let again = unsafe { Tensor::try_from_dlpack(back, ()) }.unwrap();
    assert_eq!(again.as_array::<f32>().unwrap().as_ptr(), data);
    assert_eq!(again.as_array::<f32>().unwrap()[[2, 1]], 6.0);
}

#[test]
fn a_refused_dlpark_tensor_is_released_once_and_the_error_says_why() {
    let mut initialized: dynamic::Initialized<DLManagedTensorVersioned> =
        Box::new(arr2(&[[1.0f32]])).try_into().unwrap();
    initialized.tensor_mut().device.device_id = -3;
    // SAFETY: the array's own buffer; only its device id is wrong.
    let d = unsafe { initialized.finish() };
    // SAFETY: as the impl asks; the descriptor is refused before any read.
    let err = unsafe { Tensor::try_from_dlpack(d, ()) }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ValueError);
    assert!(err.message().contains("-3"), "{}", err.message());
    // The array was released by the refusal (valgrind checks it: once, no leak).
}
