//! The four DLPack imports (DLPack 1.x and legacy, checked and unchecked)
//! adopting tensors that a foreign producer, written here in Rust, owns:
//! no copy, the producer's deleter runs exactly once and only after the last
//! reference goes, and a refused descriptor stays the caller's.
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use xffi::{Result, Tensor};
use xffi_sys as sys;

/// What the producer keeps alive until DLPack's deleter hands it back.
struct Producer {
    data: Vec<f32>,
    shape: [i64; 1],
    released: Arc<AtomicUsize>,
}

fn dl_tensor(p: &mut Producer) -> sys::DLTensor {
    sys::DLTensor {
        data: p.data.as_mut_ptr().cast(),
        device: sys::DLDevice { device_type: sys::kDLCPU, device_id: 0 },
        ndim: 1,
        dtype: sys::DLDataType { code: sys::kDLFloat, bits: 32, lanes: 1 },
        shape: p.shape.as_mut_ptr(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    }
}

fn release(ctx: *mut c_void) {
    // SAFETY: ctx is the Box made by the produce_* functions, released once.
    let p = unsafe { Box::from_raw(ctx.cast::<Producer>()) };
    p.released.fetch_add(1, Ordering::SeqCst);
}

/// # Safety
/// `m` must be a tensor from `produce_versioned`, deleted once.
unsafe extern "C" fn delete_versioned(m: *mut sys::DLManagedTensorVersioned) {
    // SAFETY: m is the Box made by produce_versioned.
    let m = unsafe { Box::from_raw(m) };
    release(m.manager_ctx);
}

/// # Safety
/// `m` must be a tensor from `produce_legacy`, deleted once.
unsafe extern "C" fn delete_legacy(m: *mut sys::DLManagedTensor) {
    // SAFETY: m is the Box made by produce_legacy.
    let m = unsafe { Box::from_raw(m) };
    release(m.manager_ctx);
}

fn producer(released: &Arc<AtomicUsize>) -> Box<Producer> {
    Box::new(Producer { data: vec![1.5, 2.5, 3.5], shape: [3], released: released.clone() })
}

fn produce_versioned(released: &Arc<AtomicUsize>) -> NonNull<sys::DLManagedTensorVersioned> {
    let mut p = producer(released);
    let dl_tensor = dl_tensor(&mut p);
    let m = Box::new(sys::DLManagedTensorVersioned {
        version: sys::DLPackVersion { major: sys::XFFI_DLPACK_MAJOR, minor: 0 },
        manager_ctx: Box::into_raw(p).cast(),
        deleter: Some(delete_versioned),
        flags: 0,
        dl_tensor,
    });
    NonNull::from(Box::leak(m))
}

fn produce_legacy(released: &Arc<AtomicUsize>) -> NonNull<sys::DLManagedTensor> {
    let mut p = producer(released);
    let dl_tensor = dl_tensor(&mut p);
    let m = Box::new(sys::DLManagedTensor {
        dl_tensor,
        manager_ctx: Box::into_raw(p).cast(),
        deleter: Some(delete_legacy),
    });
    NonNull::from(Box::leak(m))
}

/// One import, with the producer of its format. `spoil` edits the
/// descriptor before the import (to make it one the import must refuse);
/// on a refusal the managed tensor is released here, as its owner must.
struct Import {
    name: &'static str,
    run: fn(&Arc<AtomicUsize>, Spoil) -> Imported,
}
type Spoil = fn(&mut sys::DLTensor);
/// The import's result, and the data pointer the producer handed over.
type Imported = (Result<Tensor>, *mut c_void);

macro_rules! import {
    ($name:literal, $produce:ident, $import:path) => {
        Import {
            name: $name,
            run: |released, spoil| {
                let mut m = $produce(released);
                // SAFETY: the managed tensor is ours until the import takes it.
                let data = unsafe {
                    spoil(&mut m.as_mut().dl_tensor);
                    m.as_ref().dl_tensor.data
                };
                // SAFETY: a managed tensor we own.
                let r = unsafe { $import(m) };
                if r.is_err() {
                    // SAFETY: refused, so still ours: release it once.
                    unsafe { (m.as_ref().deleter.unwrap())(m.as_ptr()) };
                }
                (r, data)
            },
        }
    };
}

const IMPORTS: [Import; 4] = [
    import!("xffi_tensor_from_dlpack", produce_versioned, Tensor::from_dlpack),
    import!("xffi_tensor_from_dlpack_unchecked", produce_versioned, Tensor::from_dlpack_unchecked),
    import!("xffi_tensor_from_dlpack_legacy", produce_legacy, Tensor::from_dlpack_legacy),
    import!("xffi_tensor_from_dlpack_legacy_unchecked", produce_legacy, Tensor::from_dlpack_legacy_unchecked),
];

#[test]
fn every_import_adopts_a_foreign_tensor_without_a_copy_and_releases_it_once_after_the_last_reference() {
    for import in &IMPORTS {
        let released = Arc::new(AtomicUsize::new(0));
        let (t, data) = (import.run)(&released, |_| {});
        let t = t.unwrap_or_else(|e| panic!("{}: {e:?}", import.name));
        assert_eq!(t.dltensor().data, data, "{}: the producer's memory, not a copy", import.name);
        assert_eq!(t.as_slice::<f32>().unwrap(), &[1.5, 2.5, 3.5], "{}", import.name);
        assert_eq!(t.strides(), &[1], "{}: strides computed for a NULL strides", import.name);
        let second = t.clone();
        drop(t);
        assert_eq!(released.load(Ordering::SeqCst), 0, "{}: released while referenced", import.name);
        drop(second);
        assert_eq!(released.load(Ordering::SeqCst), 1, "{}: released once, at the last reference", import.name);
    }
}

#[test]
fn every_import_refuses_a_negative_ndim_and_leaves_the_tensor_to_its_owner() {
    for import in &IMPORTS {
        let released = Arc::new(AtomicUsize::new(0));
        let (r, _) = (import.run)(&released, |dl| dl.ndim = -1);
        let err = r.err().unwrap_or_else(|| panic!("{}: accepted ndim -1", import.name));
        assert_eq!(err.kind(), xffi::ErrorKind::ValueError, "{}", import.name);
        assert_eq!(err.message(), format!("{}: ndim is -1, expected >= 0", import.name));
        // Released exactly once, by the owner (the test), not by the import.
        assert_eq!(released.load(Ordering::SeqCst), 1, "{}", import.name);
    }
}

#[test]
fn only_the_checked_imports_refuse_a_negative_size() {
    for import in &IMPORTS {
        let released = Arc::new(AtomicUsize::new(0));
        // shape[0] = -3 with no data read by anyone: the unchecked imports
        // take it as it is (the caller vouched for it), the checked refuse it.
        let (r, _) = (import.run)(&released, |dl| {
            // SAFETY: shape points at the producer's one-element array.
            unsafe { *dl.shape = -3 }
        });
        if import.name.ends_with("_unchecked") {
            let t = r.unwrap_or_else(|e| panic!("{}: {e:?}", import.name));
            assert_eq!(t.shape(), &[-3], "{}: taken as it is", import.name);
        } else {
            let err = r.err().unwrap_or_else(|| panic!("{}: accepted a size of -3", import.name));
            assert_eq!(err.kind(), xffi::ErrorKind::ValueError, "{}", import.name);
            assert!(err.message().starts_with(import.name), "{}: {}", import.name, err.message());
            assert!(err.message().contains("-3"), "{}: {}", import.name, err.message());
        }
        assert_eq!(released.load(Ordering::SeqCst), 1, "{}", import.name);
    }
}
