//! Nothing here: the crate is its test (tests/one_runtime.rs) and its build
//! script, which builds the kernel library and exports the runtime's symbols
//! from the test binaries.
