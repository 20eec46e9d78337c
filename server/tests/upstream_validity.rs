//! Issue #36: the validity rules where wirelens and upstream (`sdp-gen -validate-only`,
//! `ffire`) disagreed, each run through `wirelens check --format json` as a user runs
//! it, with the verdict docs/upstream-differences.md gives. A rule that drifts fails here.

use std::process::Command;

#[derive(Debug, Clone, Copy)]
enum Verdict {
    /// Exit 1 with an error of this code.
    Error(&'static str),
    /// Exit 1 with an error of this code whose message contains the text, and no error
    /// that says the other text.
    ErrorSaying(&'static str, &'static str, &'static str),
    /// Exit 0 with a warning of this code (the file is fine for wirelens; upstream
    /// cannot read it, or reads it differently).
    Warning(&'static str),
    /// Exit 0, no diagnostic at all.
    Clean,
}
use Verdict::*;

/// (what, file name, text, verdict)
const RULES: &[(&str, &str, &str, Verdict)] = &[
    // Upstream refuses.
    (
        "`_` as an SDP field",
        "a.sdp",
        "struct A { _: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "`_` as an SDP struct",
        "a.sdp",
        "struct _ { a: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "C23 `_BitInt`",
        "a.sdp",
        "struct A { _BitInt: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "C23 `_Decimal32` in capitals",
        "a.sdp",
        "struct A { _DECIMAL32: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "C23 `_decimal64`",
        "a.sdp",
        "struct _decimal64 { a: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "C23 `_Decimal128`",
        "a.sdp",
        "struct A { _Decimal128: u8 }\n",
        Error("RESERVED_KEYWORD"),
    ),
    (
        "comment between `struct` and the name",
        "a.sdp",
        "struct // c\nA { a: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "comment between the name and `{`",
        "a.sdp",
        "struct A // c\n{ a: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "comment between a field name and `:`",
        "a.sdp",
        "struct A { a // c\n: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "comment after `:`",
        "a.sdp",
        "struct A { a: // c\nu8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "comment inside a type",
        "a.sdp",
        "struct A { a: Option< // c\nB> }\nstruct B { x: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "comment before a comma",
        "a.sdp",
        "struct A { a: u8 // c\n, b: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "`///` before `}`",
        "a.sdp",
        "struct A { a: u8, /// d\n}\n",
        Warning("upstream-parse"),
    ),
    (
        "`///` at the end of the file",
        "a.sdp",
        "struct A { a: u8 }\n/// d\n",
        Warning("upstream-parse"),
    ),
    (
        "SDP form feed",
        "a.sdp",
        "struct A {\x0c a: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "SDP vertical tab",
        "a.sdp",
        "struct A {\x0b a: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "SDP byte-order mark",
        "a.sdp",
        "\u{feff}struct A { a: u8 }\n",
        Warning("upstream-parse"),
    ),
    (
        "ffire parenthesised type",
        "a.ffi",
        "package p\ntype R struct {\n\tA (int32)\n}\n",
        Error("unsupported-type"),
    ),
    (
        "ffire lone CR line ends",
        "a.ffi",
        "package p\rtype R struct {\r\tA int32\r}\r",
        Error("SYNTAX"),
    ),
    (
        "ffire form feed",
        "a.ffi",
        "package p\ntype R struct {\n\tA int32\x0c\n}\n",
        Error("SYNTAX"),
    ),
    (
        "ffire false cycle (an upstream bug: accepted with a warning)",
        "a.ffi",
        "package p\ntype R struct{ A *B }\ntype B struct{ C *C }\ntype C struct{ X int8 }\n",
        Warning("upstream-false-cycle"),
    ),
    (
        "ffire `*` on a named primitive (no presence byte)",
        "a.ffi",
        "package p\ntype Count int32\ntype R struct {\n\tA *Count\n}\n",
        Warning("ignored-pointer"),
    ),
    // Upstream accepts.
    (
        "`gen` and `comparable` as SDP names",
        "a.sdp",
        "struct gen { comparable: u8 }\n",
        Clean,
    ),
    (
        "comments where sdp-gen takes them",
        "a.sdp",
        "// top\n/// doc\nstruct A {\n    /// doc\n    a: u8, // after the comma\n    b: u8,\n}\n",
        Clean,
    ),
    (
        "ffire declared type named like a Go builtin",
        "a.ffi",
        "package p\ntype any struct {\n\tX int8\n}\ntype R struct {\n\tA any\n\tB []any\n}\n",
        Clean,
    ),
    (
        "ffire false-cycle shape in upstream's order",
        "a.ffi",
        "package p\ntype C struct{ X int8 }\ntype B struct{ C *C }\ntype R struct{ A *B }\n",
        Clean,
    ),
    (
        "ffire `*` on a named array keeps its meaning",
        "a.ffi",
        "package p\ntype L []int8\ntype R struct {\n\tA *L\n}\n",
        Clean,
    ),
    (
        "ffire type parameters",
        "a.ffi",
        "package p\ntype R[T any] struct {\n\tA int8\n}\n",
        ErrorSaying("unsupported-type", "type parameters", "fixed-size"),
    ),
    // Kept differences (docs/upstream-differences.md says why).
    (
        "ffire undeclared `int`",
        "a.ffi",
        "package p\ntype R struct {\n\tA int\n}\n",
        Error("unsupported-type"),
    ),
    (
        "ffire `_` field",
        "a.ffi",
        "package p\ntype R struct {\n\t_ int8\n\tX int8\n}\n",
        Error("invalid-identifier"),
    ),
    (
        "ffire non-ASCII type name",
        "a.ffi",
        "package p\ntype Größe struct {\n\tX int8\n}\n",
        Error("invalid-identifier"),
    ),
    (
        "ffire duplicate type",
        "a.ffi",
        "package p\ntype R struct {\n\tX int8\n}\ntype R struct {\n\tY int8\n}\n",
        Error("duplicate-type"),
    ),
    (
        "ffire anonymous struct",
        "a.ffi",
        "package p\ntype R struct {\n\tA struct{ X int8 }\n}\n",
        Error("unsupported-type"),
    ),
    ("ffire primitive root", "a.ffi", "package p\ntype Id int64\n", Clean),
    (
        "SDP Latin-1-byte names",
        "a.sdp",
        "struct crêpe { µs: u8 }\n",
        Error("INVALID_IDENTIFIER"),
    ),
    (
        "ffire interpreted-string tag",
        "a.ffi",
        "package p\ntype R struct {\n\tA int8 \"json:\\\"a\\\"\"\n}\n",
        Error("SYNTAX"),
    ),
];

#[test]
fn every_rule_has_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (what, name, text, verdict) in RULES {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let diags: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        let list = diags.as_array().cloned().unwrap_or_default();
        let has = |severity: &str, code: &str| list.iter().any(|d| d["severity"] == severity && d["code"] == code);
        let errors = list.iter().filter(|d| d["severity"] == "error").count();
        let ok = match verdict {
            Error(code) => out.status.code() == Some(1) && has("error", code),
            ErrorSaying(code, says, never) => {
                out.status.code() == Some(1)
                    && list.iter().any(|d| {
                        d["severity"] == "error"
                            && d["code"] == *code
                            && d["message"].as_str().is_some_and(|m| m.contains(says))
                    })
                    && !list
                        .iter()
                        .any(|d| d["message"].as_str().is_some_and(|m| m.contains(never)))
            }
            Warning(code) => out.status.code() == Some(0) && errors == 0 && has("warning", code),
            Clean => out.status.code() == Some(0) && list.is_empty(),
        };
        if !ok {
            failures.push(format!(
                "{what}: expected {verdict:?}, got exit {:?} and {}",
                out.status.code(),
                serde_json::to_string(&list).unwrap_or_default()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rule(s) drifted:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
