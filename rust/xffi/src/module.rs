//! [`Module`]: shared libraries that export xffi functions.

use std::ffi::{CStr, CString};
use std::fmt;
use std::ptr;

use xffi_sys as sys;

use crate::error::{Result, check};
use crate::function::Function;
use crate::object::ObjectRef;
use crate::wrapper::wrapper;

wrapper! {
    /// A loaded shared library whose functions are exported as
    /// `__tvm_ffi_<name>` (the tvm-ffi 0.1 convention). The library stays
    /// loaded while the Module or any function taken from it lives; other
    /// objects the library made (a Tensor with its own deleter, say) do not keep
    /// it loaded, so drop them first or link the library with `-z nodelete`.
    /// `Send + Sync`: immutable.
    ///
    /// Loading a library and taking functions from it run and call foreign code
    /// that Rust cannot check, so [`Module::load`] and [`Module::get_function`]
    /// are `unsafe` (as in `libloading`); a loaded Module and the functions
    /// taken from it are then used safely.
    ///
    /// ```
    /// // SAFETY: the path names no library, so no foreign code runs.
    /// let err = unsafe { xffi::Module::load("/no/such/library.so") }.unwrap_err();
    /// assert_eq!(err.kind(), xffi::ErrorKind::RuntimeError);
    /// assert!(err.message().starts_with("xffi_module_load: cannot load '/no/such/library.so'"));
    /// ```
    ///
    /// Calling either without `unsafe` does not compile:
    ///
    /// ```compile_fail,E0133
    /// let _ = xffi::Module::load("/no/such/library.so");
    /// ```
    ///
    /// ```compile_fail,E0133
    /// fn lookup(m: &xffi::Module) {
    ///     let _ = m.get_function("add_one");
    /// }
    /// ```
    pub struct Module(ModuleObj);
    /// Payload marker of Module objects (type index 73).
    #[derive(Debug)]
    pub struct ModuleObj { _private: [u8; 0] }
    type_key = "ffi.Module", type_index = sys::XFFI_TYPE_MODULE;
    shared_because = "immutable";
    example = "unsafe { xffi::Module::load(\"./libmyplugin.so\") }.unwrap()";
    doctest = "no_run";
    from_any_view = object;
}

impl Module {
    /// Loads a library (a path with '/' as is, a bare name as the system
    /// loader searches). Errors: RuntimeError (cannot load, ABI mismatch).
    ///
    /// # Safety
    /// Loading runs the library's initialisers (and those of everything it
    /// pulls in) with no check at all: the library must be one whose
    /// loading is sound in this process, and it must stay a valid xffi
    /// module (see [`Module::get_function`]) for as long as it is loaded.
    ///
    /// ```no_run
    /// // SAFETY: libmyplugin.so is our own plugin, built against xffi.
    /// let m = unsafe { xffi::Module::load("./libmyplugin.so") }.unwrap();
    /// // SAFETY: its __tvm_ffi_add_one is an exported xffi function.
    /// let f = unsafe { m.get_function("add_one") }.unwrap().expect("exported");
    /// assert_eq!(f.call_typed::<i64, _>((1i64,)).unwrap(), 2);
    /// ```
    ///
    /// A program with the runtime bundled (the default features) that does
    /// not export it (docs/plugin-runtime.md, "A Rust host": the build.rs
    /// line with `DEP_XFFI_HOST_LINK_ARG`) gets a RuntimeError naming that
    /// line for a plugin that brought an xffi runtime of its own (a C plugin
    /// linking `libxffi.so`, a Rust plugin whose [`export_abi_marker!`]
    /// says it bundles one), instead of a plugin that runs on a second
    /// runtime; the library stays loaded.
    ///
    /// [`export_abi_marker!`]: crate::export_abi_marker
    pub unsafe fn load(path: &str) -> Result<Module> {
        let c = CString::new(path)?;
        let mut out = ptr::null_mut();
        // SAFETY: out is writable and c NUL-terminated; the library's
        // initialisers are sound to run by this function's own contract.
        check(unsafe { sys::xffi_module_load(&mut out, c.as_ptr()) })?;
        // SAFETY: on success out holds a new reference to a Module, now ours.
        let module = Module(unsafe { ObjectRef::from_raw(out) }.expect("xffi_module_load succeeded"));
        #[cfg(all(target_os = "linux", not(feature = "system")))]
        host_export::check_one_runtime(path, &c)?;
        Ok(module)
    }

    /// The exported function `name` (the symbol `__tvm_ffi_<name>`), or
    /// None if the library has no such symbol. The Function keeps the
    /// library loaded.
    ///
    /// # Safety
    /// If the library has a symbol `__tvm_ffi_<name>`, it must be a function
    /// with the xffi packed-call signature that behaves as one (checks its
    /// arguments, returns new references, raises errors through the
    /// thread-local slot): calling the returned Function calls it with no
    /// further check, and a data symbol or another signature is undefined
    /// behaviour.
    ///
    /// ```no_run
    /// // SAFETY: our own plugin, built against xffi.
    /// let m = unsafe { xffi::Module::load("./libmyplugin.so") }.unwrap();
    /// // SAFETY: the plugin has no symbol of that name, or an xffi function.
    /// assert!(unsafe { m.get_function("not_exported") }.unwrap().is_none());
    /// ```
    pub unsafe fn get_function(&self, name: &str) -> Result<Option<Function>> {
        let c = CString::new(name)?;
        let mut out = ptr::null_mut();
        // SAFETY: a live Module (we hold a reference), a NUL-terminated name and
        // a writable out; that the symbol is a packed function is this
        // function's own contract.
        check(unsafe { sys::xffi_module_lookup_function(&mut out, self.0.as_ptr(), c.as_ptr()) })?;
        // SAFETY: on success out holds a new reference to a Function, or NULL.
        Ok(unsafe { ObjectRef::from_raw(out) }.map(Function::from_object))
    }

    /// The path the library was loaded from.
    ///
    /// ```no_run
    /// // SAFETY: our own plugin, built against xffi.
    /// let m = unsafe { xffi::Module::load("./libmyplugin.so") }.unwrap();
    /// assert!(m.path().unwrap().ends_with("libmyplugin.so"));
    /// ```
    pub fn path(&self) -> Result<std::string::String> {
        let mut out = ptr::null();
        // SAFETY: a live Module (we hold a reference) and a writable out.
        check(unsafe { sys::xffi_module_path(&mut out, self.0.as_ptr()) })?;
        // SAFETY: on success out is a NUL-terminated string owned by the
        // Module, which outlives this copy of it.
        Ok(unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned())
    }

    /// The xffi ABI version the library was built with (0: no marker).
    ///
    /// ```no_run
    /// // SAFETY: our own plugin, built against xffi.
    /// let m = unsafe { xffi::Module::load("./libmyplugin.so") }.unwrap();
    /// assert_eq!(m.abi_version().unwrap(), xffi::sys::XFFI_ABI_VERSION);
    /// ```
    pub fn abi_version(&self) -> Result<i32> {
        let mut out = 0;
        // SAFETY: a live Module (we hold a reference) and a writable out.
        check(unsafe { sys::xffi_module_abi_version(&mut out, self.0.as_ptr()) })?;
        Ok(out)
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Module({:?})", self.path().unwrap_or_default())
    }
}

/// Whether a plugin the program loaded runs on the program's runtime, for a
/// program with the runtime linked in (the default features) on Linux.
#[cfg(all(target_os = "linux", not(feature = "system")))]
mod host_export {
    use std::ffi::{CStr, c_char, c_int, c_void};
    use std::ptr;

    use xffi_sys as sys;

    use crate::error::{Error, ErrorKind, Result};

    // glibc's and musl's values.
    const RTLD_LAZY: c_int = 1;
    const RTLD_NOLOAD: c_int = 4;
    const RTLD_DEFAULT: *mut c_void = ptr::null_mut();

    unsafe extern "C" {
        fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
        fn dlclose(handle: *mut c_void) -> c_int;
    }

    /// Err when the library at path (loaded) reaches an xffi runtime that is
    /// not this one while this one is invisible to it: the program does not
    /// export its runtime (an executable exports nothing by default), the
    /// library's own scope holds another xffi (a C plugin's libxffi.so) or
    /// the library says it bundles one (`xffi_library_bundled_runtime`, from
    /// `export_abi_marker!`), and no tvm-ffi runtime is in the process for
    /// both to bind to. Undecidable cases pass.
    pub(super) fn check_one_runtime(path: &str, c_path: &CStr) -> Result<()> {
        let ours = sys::xffi_module_load as *const c_void;
        let entry = c"xffi_module_load";
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads the loader's tables.
        if ptr::eq(unsafe { dlsym(RTLD_DEFAULT, entry.as_ptr()) }, ours) {
            return Ok(()); // exported: the plugin's xffi imports bind here
        }
        // SAFETY: RTLD_NOLOAD loads nothing; it takes one more reference to the library
        // xffi_module_load just loaded (or none), given back below.
        let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_LAZY | RTLD_NOLOAD) };
        if handle.is_null() {
            return Ok(());
        }
        // SAFETY: a live handle and a NUL-terminated name.
        let theirs = unsafe { dlsym(handle, entry.as_ptr()) };
        // SAFETY: as above; the symbol, when defined, is export_abi_marker!'s i32, read
        // while the handle keeps the library loaded.
        let bundled = unsafe {
            let flag = dlsym(handle, c"xffi_library_bundled_runtime".as_ptr()) as *const i32;
            !flag.is_null() && *flag == 1
        };
        // SAFETY: the reference taken above.
        unsafe { dlclose(handle) };
        // SAFETY: as above; RTLD_NOLOAD loads nothing, and a handle found is given back.
        let tvm_runtime = unsafe {
            let found = dlopen(c"libtvm_ffi.so".as_ptr(), RTLD_LAZY | RTLD_NOLOAD);
            if !found.is_null() {
                dlclose(found);
            }
            !found.is_null() || !dlsym(RTLD_DEFAULT, c"TVMFFIGetVersion".as_ptr()).is_null()
        };
        let brought = bundled || !(theirs.is_null() || ptr::eq(theirs, ours));
        if !brought || tvm_runtime {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::RuntimeError,
            &format!(
                "Module::load: '{path}' runs on an xffi runtime of its own ({}), not this program's: the \
                 program does not export its runtime, so the plugin cannot bind to it. Add to the program's \
                 build.rs, with xffi-sys as a direct dependency: if let Ok(arg) = \
                 std::env::var(\"DEP_XFFI_HOST_LINK_ARG\") {{ println!(\"cargo:rustc-link-arg-bins={{arg}}\"); }} \
                 (docs/plugin-runtime.md, \"A Rust host\")",
                if bundled { "bundled inside it" } else { "the libxffi it links" }
            ),
        ))
    }
}
