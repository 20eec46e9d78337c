//! Regressions found by the fuzz targets, as plain tests.

use codegen::{analyze, fmt, Dialect, OrderChoice};

/// `analyze` target: a struct tag (a Go raw string) holding carriage returns, alone and
/// before CRLF. Formatting was not idempotent (only `\r\n` became `\n`, so `\r\r\n` took
/// two runs), and the JSON name kept the `\r` that Go discards.
#[test]
fn carriage_returns_inside_raw_string_tags() {
    let src = "package p\n\ntype T struct {\n\tA string `json:\"a\r\r\nb\"`\n\tB int32 `json:\"c\rd\"`\n}\n";
    let once = fmt::format(Dialect::Ffi, src).unwrap();
    assert_eq!(fmt::format(Dialect::Ffi, &once).unwrap(), once, "not idempotent");
    assert!(!once.contains('\r'), "{once:?}");
    let a = analyze(Dialect::Ffi, src, None, OrderChoice::default());
    let names: Vec<&str> = a.schema.types[0]
        .fields()
        .iter()
        .map(|f| f.json_name.as_str())
        .collect();
    assert_eq!(names, ["a\nb", "cd"]);
    // Formatting does not change what the schema means.
    let b = analyze(Dialect::Ffi, &once, None, OrderChoice::default());
    assert_eq!(
        codegen::report::layout_json(&a.schema, &a.layout, None),
        codegen::report::layout_json(&b.schema, &b.layout, None)
    );
}
