//! Runs the checks build.rs generated from the C headers (see there). The
//! signature checks ran when this crate compiled; these are the value and
//! layout checks, which report every mismatch by name.
use xffi_systest::{Report, COVERED};

fn assert_clean(what: &str, check: fn(&mut Report)) -> Report {
    let mut report = Report::default();
    check(&mut report);
    assert!(
        report.mismatches.is_empty(),
        "{what}: xffi-sys differs from the C headers:\n{}",
        report.mismatches.join("\n")
    );
    report
}

#[test]
fn every_constant_and_enum_value_equals_the_c_one() {
    let report = assert_clean("constants", xffi_systest::check_constants);
    // The generator found the headers' constants (an empty run proves nothing).
    assert!(COVERED.constants > 90, "only {} constants found", COVERED.constants);
    assert_eq!(report.checked, COVERED.constants);
}

#[test]
fn every_struct_and_union_has_the_c_size_alignment_and_fields() {
    let report = assert_clean("layouts", xffi_systest::check_records);
    assert!(COVERED.records > 15 && COVERED.fields > 60, "found {COVERED:?}");
    assert!(report.checked >= 3 * COVERED.fields);
}

#[test]
fn every_typedef_is_the_c_type() {
    assert_clean("typedefs", xffi_systest::check_aliases);
    assert!(COVERED.aliases > 5, "found {COVERED:?}");
}

#[test]
fn every_function_has_the_c_signature() {
    // The check is the compilation of check_functions; calling it is a no-op.
    xffi_systest::check_functions();
    assert!(COVERED.functions > 100 && COVERED.inline_functions > 10, "found {COVERED:?}");
}
