//! `mykernels`: the plugin inside the example wheel (docs/guide-rust-plugin.md).
//!
//! Exports, as `__tvm_ffi_<name>` (what `tvm_ffi.load_module` looks up):
//! - `scale(x, k) -> x * k`;
//! - `parse_threads(text) -> int`: a RuntimeError for text that is not an
//!   integer (the standard error converted by `?`), a ValueError for one below 1;
//! - `unity_gain(channels) -> mykernels.Gain` with factor 1.0.
//!
//! At load it registers the type `mykernels.Gain` (fields `channels: int`
//! read-only, `factor: float` writable; `Gain(channels, factor)`; methods
//! `apply(x) -> x * factor` and `describe() -> str`).
use xffi::reflect::AtomicF64;
use xffi::{Error, ObjectRef, export_func};

xffi::export_abi_marker!();

export_func!(
    /// `x * k`.
    fn scale(x: f64, k: f64) -> f64 {
        Ok(x * k)
    }
);

export_func!(
    /// The thread count written in `text` (spaces around it allowed); a
    /// RuntimeError for text that is not an integer, a ValueError below 1.
    fn parse_threads(text: &str) -> i64 {
        let n: i64 = text.trim().parse()?;
        if n < 1 {
            return Err(Error::value_error(&format!("parse_threads: expected at least 1 thread, got {n}")));
        }
        Ok(n)
    }
);

export_func!(
    /// A gain stage of `channels` channels with factor 1.0.
    fn unity_gain(channels: i32) -> ObjectRef<Gain> {
        Gain::create(channels, 1.0)
    }
);

/// A gain stage: multiplies every sample by `factor`.
#[derive(xffi::Object)]
#[xffi(type_key = "mykernels.Gain")]
pub struct Gain {
    /// The number of channels (read-only).
    #[xffi(get)]
    channels: i32,
    /// The factor applied to each sample; any language may change it.
    #[xffi(get, set)]
    factor: AtomicF64,
}

#[xffi::methods]
impl Gain {
    /// Makes a gain stage (Python's `Gain(channels, factor)`); a ValueError
    /// for fewer than one channel.
    #[xffi(name = "__ffi_init__")]
    fn create(channels: i32, factor: f64) -> xffi::Result<ObjectRef<Gain>> {
        if channels < 1 {
            return Err(Error::value_error(&format!("Gain: expected at least 1 channel, got {channels}")));
        }
        ObjectRef::new(Gain { channels, factor: AtomicF64::new(factor) })
    }

    /// `x * factor`.
    fn apply(&self, x: f64) -> f64 {
        x * self.factor.load()
    }

    /// A one-line summary, such as `2 channels x 1.5`.
    fn describe(&self) -> String {
        format!("{} channels x {}", self.channels, self.factor.load())
    }
}

xffi::register_types_at_load!(Gain);
