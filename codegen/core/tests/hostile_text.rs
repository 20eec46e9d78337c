//! Regressions found by the fuzz targets, as plain tests.

use wirelens_core::{analyze, fmt, Dialect, OrderChoice};

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
        wirelens_core::report::layout_json(&a.schema, &a.layout, None),
        wirelens_core::report::layout_json(&b.schema, &b.layout, None)
    );
}

/// Issue 20: a lone `\r` is a line end (as the LSP counts them), so a line comment stops
/// there and the declaration after it counts. Before, the comment token ran to the next
/// `\n` and swallowed `struct B` (and in ffire `type B`) whole.
#[test]
fn a_line_comment_ends_at_a_lone_carriage_return() {
    let cases = [
        (
            Dialect::Sdp,
            "// one\rstruct A {\r    x: u8, // trailing\r}\r// two\rstruct B {\r    y: bool,\r}\r",
        ),
        (
            Dialect::Ffi,
            "package p\r// one\rtype A struct {\r\tX int8 // trailing\r}\r// two\rtype B struct {\r\tY bool\r}\r",
        ),
    ];
    for (dialect, src) in cases {
        let a = analyze(dialect, src, None, OrderChoice::default());
        match dialect {
            Dialect::Sdp => assert!(!a.has_errors(), "{dialect:?}: {:?}", a.diagnostics),
            // Go reads a lone `\r` as a space, so ffire refuses the file (issue #36): one
            // error, at the first one; the declarations are still all there for the editor.
            Dialect::Ffi => {
                let codes: Vec<(&str, usize)> = a.diagnostics.iter().map(|d| (d.code, d.range.start)).collect();
                assert_eq!(codes, [("SYNTAX", 9)], "{:?}", a.diagnostics);
            }
        }
        let names: Vec<&str> = a.schema.types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["A", "B"], "{dialect:?}");
        // Formatting keeps both declarations and is idempotent.
        let once = fmt::format(dialect, src).unwrap();
        assert_eq!(
            fmt::format(dialect, &once).unwrap(),
            once,
            "{dialect:?}: not idempotent"
        );
        let b = analyze(dialect, &once, None, OrderChoice::default());
        assert_eq!(b.schema.types.len(), 2, "{dialect:?}: {once:?}");
    }
}

/// `write_layout_json` (the CLI's, streamed field by field) writes exactly what
/// pretty-printing `layout_json`'s value writes, for both dialects, both orders, every
/// type and one.
#[test]
fn streamed_layout_json_is_the_pretty_printed_value() {
    let cases = [
        (
            Dialect::Sdp,
            "struct P {\n    x: u8,\n    y: f64,\n}\n\nstruct R {\n    name: str,\n    p: P,\n    ps: []P,\n    o: Option<P>,\n    e: Empty,\n}\n\nstruct Empty {\n}\n",
        ),
        (
            Dialect::Ffi,
            "package p\n\ntype Ids []int32\n\ntype M struct {\n\tName string `json:\"name\"`\n\tIds  Ids\n\tA    int8\n\tB    int64\n\tC    *Inner\n}\n\ntype Inner struct {\n\tX float32\n}\n",
        ),
    ];
    for (dialect, text) in cases {
        let declaration = OrderChoice {
            order: Some(wirelens_core::FieldOrder::Declaration),
            overrides_directive: true,
        };
        for order in [OrderChoice::default(), declaration] {
            let a = analyze(dialect, text, None, order);
            for only in [None, Some(0), Some(1)] {
                let value = wirelens_core::report::layout_json(&a.schema, &a.layout, only);
                let mut streamed = Vec::new();
                wirelens_core::report::write_layout_json(&a.schema, &a.layout, only, &mut streamed).unwrap();
                assert_eq!(
                    String::from_utf8(streamed).unwrap(),
                    serde_json::to_string_pretty(&value).unwrap(),
                    "{dialect:?} {only:?}"
                );
            }
        }
    }
}
