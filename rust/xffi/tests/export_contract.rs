//! An exported function (`export_func!`) checks the safe-call contract and
//! its arguments before the body runs: a NULL result, a negative count or
//! NULL arguments with a count is a ValueError, a wrong count a TypeError, a
//! wrong argument the conversion's error naming the argument; no arguments
//! may come as NULL or as any pointer.

use xffi::sys::{self, xffi_any};
use xffi::{Error, ErrorKind};

xffi::export_func!(
    fn sum(a: i64, b: i64) -> i64 {
        Ok(a + b)
    }
);

xffi::export_func!(
    fn answer() -> i64 {
        Ok(42)
    }
);

type Export = unsafe extern "C" fn(*mut std::ffi::c_void, *const xffi_any, i32, *mut xffi_any) -> i32;

/// Calls `f`; Ok(the int result) or Err(the raised error's kind and message).
fn call(f: Export, args: *const xffi_any, num_args: i32, result: *mut xffi_any) -> Result<i64, (ErrorKind, String)> {
    // SAFETY: each test passes pointers that are valid or NULL as the test says.
    let status = unsafe { f(std::ptr::null_mut(), args, num_args, result) };
    if status != sys::XFFI_OK {
        let err = Error::take_raised();
        return Err((err.kind(), err.message().to_string()));
    }
    // SAFETY: on success *result holds a value; an int here.
    let value = unsafe { *result };
    assert_eq!(value.type_index, sys::XFFI_TYPE_INT);
    // SAFETY: the tag was checked.
    Ok(unsafe { value.value.v_int64 })
}

#[test]
fn a_well_formed_call_runs_the_body() {
    let mut result = xffi_any::none();
    assert_eq!(call(sum, [xffi_any::int(40), xffi_any::int(2)].as_ptr(), 2, &mut result), Ok(42));
    // No arguments: args may be NULL or point anywhere.
    assert_eq!(call(answer, std::ptr::null(), 0, &mut result), Ok(42));
    assert_eq!(call(answer, [xffi_any::int(1)].as_ptr(), 0, &mut result), Ok(42));
}

#[test]
fn a_broken_contract_is_a_value_error_naming_the_function() {
    let args = [xffi_any::int(1), xffi_any::int(2)];
    let mut result = xffi_any::none();
    let value_error = |message: &str| Err((ErrorKind::ValueError, message.to_string()));
    assert_eq!(
        call(sum, args.as_ptr(), 2, std::ptr::null_mut()),
        value_error("sum: result is NULL (expected a pointer to an xffi_any to receive the result)")
    );
    assert_eq!(call(sum, args.as_ptr(), -1, &mut result), value_error("sum: num_args is -1 (expected 0 or more)"));
    assert_eq!(call(sum, std::ptr::null(), 2, &mut result), value_error("sum: args is NULL but num_args is 2"));
    assert_eq!(
        call(answer, std::ptr::null(), 0, std::ptr::null_mut()),
        value_error("answer: result is NULL (expected a pointer to an xffi_any to receive the result)")
    );
}

#[test]
fn a_wrong_count_or_argument_is_a_type_error_naming_it() {
    let mut result = xffi_any::none();
    assert_eq!(
        call(sum, [xffi_any::int(1)].as_ptr(), 1, &mut result),
        Err((ErrorKind::TypeError, "sum: expected 2 arguments, got 1".to_string()))
    );
    assert_eq!(
        call(answer, [xffi_any::int(1)].as_ptr(), 1, &mut result),
        Err((ErrorKind::TypeError, "answer: expected 0 arguments, got 1".to_string()))
    );
    assert_eq!(
        call(sum, [xffi_any::int(1), xffi_any::float(2.5)].as_ptr(), 2, &mut result),
        Err((ErrorKind::TypeError, "sum: argument 1: xffi_any_to_int: expected int, got float".to_string()))
    );
}
