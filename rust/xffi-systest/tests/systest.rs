//! Runs the checks build.rs generated from the C headers (see there). The
//! signature checks ran when this crate compiled; these are the value and
//! layout checks, which report every mismatch by name.
use xffi_systest::{covered, Report};

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
    assert!(covered().constants > 90, "only {} constants found", covered().constants);
    assert_eq!(report.checked, covered().constants);
}

#[test]
fn every_struct_and_union_has_the_c_size_alignment_and_fields() {
    let report = assert_clean("layouts", xffi_systest::check_records);
    assert!(covered().records > 15 && covered().fields > 60, "found {:?}", covered());
    assert!(report.checked >= 3 * covered().fields);
}

#[test]
fn every_typedef_is_the_c_type() {
    assert_clean("typedefs", xffi_systest::check_aliases);
    assert!(covered().aliases > 5, "found {:?}", covered());
}

#[test]
fn every_function_has_the_c_signature() {
    // The check is the compilation of check_functions; calling it is a no-op.
    xffi_systest::check_functions();
    assert!(covered().functions > 100 && covered().inline_functions > 10, "found {:?}", covered());
}
