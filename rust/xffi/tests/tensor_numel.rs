//! Element counts of tensors and shapes with a zero dimension beside
//! dimensions whose product alone overflows i64 (issue 12, item 5).

use xffi::{DataType, Shape, Tensor};

const HUGE_EMPTY: [i64; 3] = [1 << 62, 4, 0];

#[test]
fn an_empty_tensor_with_huge_dimensions_has_no_elements() {
    let t = Tensor::new(&HUGE_EMPTY, DataType::F32).unwrap();
    assert_eq!(t.shape(), &HUGE_EMPTY);
    assert_eq!(t.numel(), 0);
    assert_eq!(t.as_slice::<f32>().unwrap(), &[] as &[f32]);
    // SAFETY: no one else holds this tensor.
    assert!(unsafe { t.as_mut_slice::<f32>() }.unwrap().is_empty());
    let made = Tensor::from_slice::<f32>(&[], &HUGE_EMPTY).unwrap();
    assert_eq!(made.numel(), 0);
}

#[test]
fn shape_counts_do_not_overflow_when_a_dimension_is_zero() {
    let s = Shape::new(&HUGE_EMPTY).unwrap();
    assert_eq!(s.numel(), 0);
    assert_eq!(s.checked_numel(), Some(0));
    let s = Shape::new(&[1 << 62, 4]).unwrap();
    assert_eq!(s.checked_numel(), None);
}

#[test]
fn from_slice_reports_an_overflowing_shape() {
    let err = Tensor::from_slice(&[1.0f32], &[1 << 62, 4]).unwrap_err();
    assert_eq!(err.kind(), xffi::ErrorKind::ValueError);
    assert_eq!(err.message(), "Tensor::from_slice: the element count of shape [4611686018427387904, 4] overflows i64");
}
