//! `xffi/json.h`: the JSON reader and writer, tvm-ffi's JSON graph format.

use core::ffi::{c_char, c_int};

use crate::any::xffi_any;
use crate::object::xffi_object;

/// The longest JSON text the writers produce (2^30 bytes); past it they raise MemoryError.
pub const XFFI_JSON_MAX_TEXT_BYTES: usize = 1 << 30;

extern "C" {
    /// `*out` receives a new reference to the value of the JSON text `text[0, size)` (borrowed).
    pub fn xffi_json_parse(out: *mut xffi_any, text: *const c_char, size: usize) -> c_int;
    /// `*out` receives a new String: the JSON text of `*value` (borrowed); `indent` 0 is compact.
    pub fn xffi_json_stringify(out: *mut *mut xffi_object, value: *const xffi_any, indent: c_int) -> c_int;
    /// `*out` receives a new reference to the JSON graph of `*value` (borrowed), with `*metadata`
    /// (borrowed; NULL or None for none).
    pub fn xffi_to_json(out: *mut xffi_any, value: *const xffi_any, metadata: *const xffi_any) -> c_int;
    /// `*out` receives a new String: the compact JSON text of the graph of `*value` (borrowed), with
    /// `*metadata` (borrowed; NULL or None for none): the same bytes or error as `xffi_to_json` then
    /// `xffi_json_stringify`.
    pub fn xffi_to_json_text(out: *mut *mut xffi_object, value: *const xffi_any, metadata: *const xffi_any) -> c_int;
    /// `*out` receives a new reference to the value the JSON graph `*graph` (borrowed) stands for.
    pub fn xffi_from_json(out: *mut xffi_any, graph: *const xffi_any) -> c_int;
    /// `*out` receives a new reference to the value the JSON graph text `text[0, size)` (borrowed)
    /// stands for: the same value or error as `xffi_json_parse` then `xffi_from_json`.
    pub fn xffi_from_json_text(out: *mut xffi_any, text: *const c_char, size: usize) -> c_int;
}
