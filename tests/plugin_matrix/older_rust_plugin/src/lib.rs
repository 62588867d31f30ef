//! The plugin matrix's plugin of another xffi version (`together` and the
//! `*_of_others` checks in tests/plugin_matrix/python_client.py): the same
//! kind of plugin as rust_plugin/, built by run.py on the xffi crate of an
//! older commit, so two copies of xffi of different versions run in one
//! process.
//!
//! At load it registers the derived type `matrix.OlderKernel` (fields
//! `scale: int` and `label: str`, read-only). It exports, as
//! `__tvm_ffi_<name>`:
//! - `make_kernel(scale, label) -> matrix.OlderKernel`;
//! - `register_product()`: registers the global functions
//!   `matrix.older.product` (`(a, b) -> a * b`) and `matrix.older.refuse`
//!   (`(a, b)`: always a ValueError "matrix.older.refuse refuses (a, b)");
//! - `call_global(name, a, b)`: looks `name` up among the process's global
//!   functions and calls it with `(a, b)` (KeyError for a missing name);
//! - `is_instance(key, obj) -> bool`: whether `obj` is of the type registered
//!   under `key` (or derived from it), another plugin's type too (KeyError
//!   for a key no type has);
//! - `get_field(obj, name)`: `obj`'s field called `name`, read by name.
//!
//! It uses only what the older commit's crate has too.
use xffi::reflect::TypeRef;
use xffi::{Any, Error, ErrorKind, Function, ObjectRef, export_func};

xffi::export_abi_marker!();

/// A kernel of the older xffi's.
#[derive(xffi::Object, Default)]
#[xffi(type_key = "matrix.OlderKernel", structural_eq = "tree", default)]
pub struct OlderKernel {
    /// The factor (read-only).
    #[xffi(get)]
    scale: i64,
    /// Its name (read-only).
    #[xffi(get)]
    label: String,
}

xffi::register_types_at_load!(OlderKernel);

export_func!(
    fn make_kernel(scale: i64, label: String) -> ObjectRef<OlderKernel> {
        ObjectRef::new(OlderKernel { scale, label })
    }
);

export_func!(
    fn register_product() -> () {
        Function::from_typed(|a: i64, b: i64| -> xffi::Result<i64> { Ok(a * b) })?
            .register_global("matrix.older.product", false)?;
        Function::from_typed(|a: i64, b: i64| -> xffi::Result<i64> {
            Err(Error::value_error(&format!("matrix.older.refuse refuses ({a}, {b})")))
        })?
        .register_global("matrix.older.refuse", false)
    }
);

export_func!(
    fn call_global(name: String, a: i64, b: i64) -> i64 {
        let Some(f) = Function::get_global(&name)? else {
            return Err(Error::new(ErrorKind::KeyError, &format!("no global function named {name}")));
        };
        f.call_typed::<i64, _>((a, b))
    }
);

/// The object `obj` holds. The older crate checks an `ObjectRef<Object>`
/// argument against its own type table only, which crashes on an object of a
/// type only the process's runtime knows (another plugin's); so the object
/// comes as an `Any` and goes to xffi's checked C functions.
fn object_of(obj: &Any, fn_name: &str) -> xffi::Result<*mut xffi::sys::xffi_object> {
    if obj.type_index() < 64 {
        return Err(Error::new(ErrorKind::TypeError, &format!("{fn_name}: expected an object")));
    }
    // SAFETY: an Any of an object type index holds an object pointer, which obj keeps alive.
    Ok(unsafe { obj.as_raw().value.v_obj })
}

export_func!(
    fn is_instance(key: String, obj: Any) -> bool {
        let target = TypeRef::by_key(&key)?;
        let mut yes = 0;
        // SAFETY: a valid out slot and an object obj keeps alive for the call.
        let status = unsafe { xffi::sys::xffi_object_is_a(&mut yes, object_of(&obj, "is_instance")?, target.index()) };
        if status != 0 {
            return Err(Error::take_raised());
        }
        Ok(yes != 0)
    }
);

export_func!(
    fn get_field(obj: Any, name: String) -> Any {
        let object = object_of(&obj, "get_field")?;
        let name = std::ffi::CString::new(name)?;
        let mut out = xffi::sys::xffi_any::none();
        // SAFETY: a valid out slot, an object obj keeps alive and a NUL-terminated name.
        if unsafe { xffi::sys::xffi_object_get_field(&mut out, object, name.as_ptr()) } != 0 {
            return Err(Error::take_raised());
        }
        // SAFETY: success gave an owned value, taken once.
        Ok(unsafe { Any::from_raw(out) })
    }
);
