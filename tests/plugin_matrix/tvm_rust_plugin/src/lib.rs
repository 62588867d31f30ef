//! The tvm-ffi Rust-crate plugin of the plugin matrix (`together` and the
//! `*_of_others` checks in tests/plugin_matrix/python_client.py), written as a
//! tvm-ffi user writes one:
//! - at load, it registers the global function `matrix.tvmrust.product(a, b)
//!   -> a * b` and the type `matrix.TvmRustKernel` (`#[rs_class]`: fields
//!   `scale: int` and `label: str`, reflected, read-only) in the process's
//!   registry (`static_init_block!`);
//! - it exports `call_global(name, a, b)` (as `__tvm_ffi_call_global`), which
//!   finds the global function `name` in the process's registry and calls it
//!   with `(a, b)`; a missing name is a KeyError, as in the other plugins;
//! - `make_kernel(scale, label) -> matrix.TvmRustKernel`;
//! - `is_instance(key, obj) -> bool`: whether `obj` is of the type registered
//!   under `key` or of a type derived from it, read from the process's type
//!   table (the crate checks only its own types by Rust type, so the key is
//!   resolved and the ancestors walked through tvm-ffi's C API); an unknown
//!   key is a KeyError;
//! - `get_field(obj, name)`: the reflected field `name` of `obj`, read by name
//!   with the crate's `FieldGetter`; a missing field is a TypeError (the
//!   crate's kind for it);
//! - `describe_c_kernel(obj) -> "scale gain label"`: `obj` cast to the C
//!   plugin's `matrix.CKernel`, bound by key as the crate binds a type another
//!   library registers (`#[derive(Object)]` without `#[type_register]`, the
//!   struct in that type's layout), its fields read from the struct; another
//!   type is the crate's TypeError ("Cannot convert from type ...").
use tvm_ffi::object::{ObjectRef, ObjectRefCore};
use tvm_ffi::reflection::FieldGetter;
use tvm_ffi::tvm_ffi_sys::{TVMFFIByteArray, TVMFFIGetTypeInfo, TVMFFIObject, TVMFFITypeKeyToIndex};
use tvm_ffi::{
    def_object_ref, rs_class, tvm_ffi_dll_export_typed_func, Any, Function, Object, ObjectCore, ObjectRefCast, Result,
};

/// A kernel of this crate's own: two reflected fields.
#[rs_class("matrix.TvmRustKernel", final)]
pub struct TvmRustKernelObj {
    base: Object,
    /// The factor.
    pub scale: i64,
    /// Its name.
    pub label: tvm_ffi::String,
}

def_object_ref!(pub TvmRustKernel, ObjectRef, TvmRustKernelObj);

/// The C plugin's `matrix.CKernel` (tests/plugin_matrix/c_plugin.c), in its
/// layout: the crate looks its index up by key on first use.
#[repr(C)]
#[derive(tvm_ffi::derive::Object)]
#[type_key = "matrix.CKernel"]
pub struct CKernelObj {
    base: Object,
    scale: i64,
    gain: f64,
    /// A String object (a pointer, where the crate's String is a whole Any).
    label: ObjectRef,
}

def_object_ref!(pub CKernel, ObjectRef, CKernelObj);

fn product(a: i64, b: i64) -> Result<i64> {
    Ok(a * b)
}

fn call_global(name: tvm_ffi::String, a: i64, b: i64) -> Result<i64> {
    // get_global raises a RuntimeError for a missing name; the matrix's
    // plugins agree on KeyError, so the name is looked up first.
    let found = Function::get_global(name.as_str()).map_err(|_| {
        tvm_ffi::Error::new(tvm_ffi::error::KEY_ERROR, &format!("no global function named {}", name.as_str()), "")
    })?;
    i64::try_from(found.call_tuple((a, b))?)
}

fn make_kernel(scale: i64, label: tvm_ffi::String) -> Result<TvmRustKernel> {
    Ok(TvmRustKernelObj::new(Object::new(), scale, label).into())
}

/// The dynamic type index of `obj`, from its header.
fn type_index_of(obj: &ObjectRef) -> i32 {
    let header = std::ptr::from_ref::<Object>(ObjectRef::data(obj)).cast::<TVMFFIObject>();
    // SAFETY: every object starts with its TVMFFIObject header, and obj keeps it alive.
    unsafe { (*header).type_index }
}

fn is_instance(key: tvm_ffi::String, obj: ObjectRef) -> Result<bool> {
    let mut target = -1;
    // SAFETY: the byte array borrows key, which outlives the call; the call
    // writes the index to a valid out slot or fails.
    if unsafe { TVMFFITypeKeyToIndex(&TVMFFIByteArray::from_str(key.as_str()), &mut target) } != 0 {
        // The runtime raised its own error; this plugin's answer is a KeyError.
        drop(tvm_ffi::Error::from_raised());
        let message = format!("no type registered with key {}", key.as_str());
        return Err(tvm_ffi::Error::new(tvm_ffi::error::KEY_ERROR, &message, ""));
    }
    let index = type_index_of(&obj);
    if index == target {
        return Ok(true);
    }
    // SAFETY: the runtime keeps a record for every type index an object has.
    let info = unsafe { TVMFFIGetTypeInfo(index) };
    // SAFETY: target was just resolved, so it has a record.
    let target_info = unsafe { TVMFFIGetTypeInfo(target) };
    if info.is_null() || target_info.is_null() {
        return Ok(false);
    }
    // SAFETY: both records are the runtime's and live as long as it does; a
    // type's ancestors array holds type_depth entries.
    unsafe {
        let depth = (*target_info).type_depth;
        if (*info).type_depth <= depth {
            return Ok(false);
        }
        let ancestor = *(*info).type_acenstors.add(depth as usize);
        Ok(!ancestor.is_null() && (*ancestor).type_index == target)
    }
}

fn get_field(obj: ObjectRef, name: tvm_ffi::String) -> Result<Any> {
    FieldGetter::new(type_index_of(&obj), name.as_str())?.get_any::<Object>(ObjectRef::data(&obj))
}

fn describe_c_kernel(obj: ObjectRef) -> Result<tvm_ffi::String> {
    let kernel: CKernel = obj.try_cast()?;
    let label = tvm_ffi::String::try_from(Any::from(kernel.label.clone()))?;
    Ok(format!("{} {} {}", kernel.scale, kernel.gain, label.as_str()).as_str().into())
}

tvm_ffi::static_init_block! {
    Function::register_global_typed("matrix.tvmrust.product", product, "a * b")?;
    // rs_class types register on their first type_index(): at load, so the
    // process finds the key before any kernel is made.
    TvmRustKernelObj::type_index();
}

tvm_ffi_dll_export_typed_func!(call_global, call_global);
tvm_ffi_dll_export_typed_func!(make_kernel, make_kernel);
tvm_ffi_dll_export_typed_func!(is_instance, is_instance);
tvm_ffi_dll_export_typed_func!(get_field, get_field);
tvm_ffi_dll_export_typed_func!(describe_c_kernel, describe_c_kernel);
