//! # xffi-capi: a C API implemented in Rust
//!
//! Rust-defined xffi object types and Rust functions, offered to C through
//! plain C functions whose header, `bindings/xffi_capi.h`, cbindgen
//! generates from this crate.
//!
//! - Types: [`Point`] (`xcapi.Point`, two finite coordinates) and [`Label`]
//!   (`xcapi.Label`, a text and a Point it holds a reference to). C makes
//!   them with `xcapi_point_new` / `xcapi_label_new`, reads them with
//!   `xcapi_point_coords` / `xcapi_label_text` / `xcapi_label_point`, stores
//!   them in xffi containers and releases them with `xffi_object_dec_ref`
//!   like any other object: the deleter runs Rust's `Drop`.
//! - Functions: `xcapi_function_new` hands out the Rust functions
//!   (`distance`, `path_length`, `centroid`, `scale`, `describe`,
//!   `map_points`) as xffi Function objects; `xcapi_register_globals` puts
//!   them in the global registry as `xcapi.<name>`.
//! - `xcapi_stats_get`: how many objects and functions were made and how
//!   many deleters ran, so a C program can check that each ran exactly once.
//!
//! Every exported function catches panics (a RuntimeError
//! `"<function>: Rust panic: <message>"`), checks each pointer for NULL
//! (a ValueError naming the argument and what was expected) and each object
//! for its type (a TypeError), and states who owns what.
//!
//! The same calls from Rust (the C functions are ordinary `unsafe fn`s):
//!
//! ```
//! use xffi_capi::*;
//! use xffi::sys::XFFI_OK;
//! let mut p = std::ptr::null_mut();
//! assert_eq!(unsafe { xcapi_point_new(&mut p, 3.0, 4.0) }, XFFI_OK);
//! let (mut x, mut y) = (0.0, 0.0);
//! assert_eq!(unsafe { xcapi_point_coords(&mut x, &mut y, p) }, XFFI_OK);
//! assert_eq!((x, y), (3.0, 4.0));
//! unsafe { xffi::sys::xffi_object_dec_ref(p) }; // runs Point's Drop
//! ```
#![warn(missing_docs)]

mod boundary;
mod functions;
mod objects;
mod stats;

pub use functions::{xcapi_function_new, xcapi_register_globals, xcapi_unregister_globals};
pub use objects::{
    Label, Point, xcapi_label_new, xcapi_label_point, xcapi_label_text, xcapi_label_type_index, xcapi_point_coords,
    xcapi_point_new, xcapi_point_type_index,
};
pub use stats::{xcapi_stats, xcapi_stats_get};

/// The names `xcapi_function_new` knows, in the order
/// `xcapi_register_globals` registers them (as `xcapi.<name>`).
///
/// ```
/// assert_eq!(xffi_capi::function_names()[0], "distance");
/// ```
pub fn function_names() -> &'static [&'static str] {
    &functions::NAMES
}

#[cfg(test)]
mod panic_tests;
