//! Syntax errors say what the parser expected there, in both dialects: a table of broken
//! inputs, each with the exact `SYNTAX` diagnostics (1-based line and column, message)
//! that `wirelens check --format json` prints and the language server publishes.

mod common;

use std::process::Command;

use common::Client;
use serde_json::Value;

struct Case {
    /// File name (its extension picks the dialect).
    name: &'static str,
    text: &'static str,
    /// (line, column, message), 1-based, in the order of the file.
    expected: &'static [(u32, u32, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        name: "missing_colon.sdp",
        text: "struct A {\n    a u8,\n}\n",
        expected: &[(2, 7, "syntax error: unexpected `u8`: expected `:`")],
    },
    Case {
        name: "semicolon.sdp",
        text: "struct A {\n    a: u8;\n}\n",
        expected: &[(2, 10, "syntax error: unexpected `;`: expected `,` or `}`")],
    },
    Case {
        name: "missing_type.sdp",
        text: "struct A {\n    a: ,\n}\n",
        expected: &[(2, 7, "syntax error: missing type")],
    },
    Case {
        name: "missing_struct_name.sdp",
        text: "struct {\n    a: u8,\n}\n",
        expected: &[(1, 8, "syntax error: unexpected `{`: expected a struct name")],
    },
    Case {
        name: "missing_open_brace.sdp",
        text: "struct A\n    a: u8,\n}\n",
        expected: &[(2, 5, "syntax error: unexpected `a`: expected `{`")],
    },
    Case {
        name: "number_as_field_name.sdp",
        text: "struct A {\n    1: u8,\n}\n",
        expected: &[(2, 5, "syntax error: unexpected `1`: expected a field name or `}`")],
    },
    Case {
        name: "generic_type.sdp",
        text: "struct A {\n    a: Vec<u8>,\n}\n",
        expected: &[(2, 11, "syntax error: unexpected `<`: expected `,` or `}`")],
    },
    Case {
        name: "rust_array.sdp",
        text: "struct A {\n    a: [u8],\n}\n",
        expected: &[
            (2, 9, "syntax error: unexpected `u8`: expected `]`"),
            (2, 12, "syntax error: missing type"),
        ],
    },
    Case {
        name: "unclosed_option.sdp",
        text: "struct A {\n    a: Option<u8,\n}\n",
        expected: &[(2, 17, "syntax error: missing `>`")],
    },
    Case {
        name: "extra_brace.sdp",
        text: "struct A {\n    a: u8,\n}\n}\n",
        expected: &[(4, 1, "syntax error: unexpected `}`: expected `struct`")],
    },
    Case {
        name: "other_language.sdp",
        text: "fn main() {}\n",
        expected: &[(1, 1, "syntax error: unexpected `fn`: expected `struct`")],
    },
    Case {
        name: "unclosed_struct.sdp",
        text: "struct A {\n    a: u8,\n",
        expected: &[(2, 11, "syntax error: missing `}`: struct `A` is not closed")],
    },
    Case {
        name: "colon.ffi",
        text: "package p\n\ntype A struct {\n\tX: int32\n}\n",
        expected: &[(
            4,
            3,
            "syntax error: unexpected `:`: expected a type, a newline, `;`, a tag or another token",
        )],
    },
    Case {
        name: "comma.ffi",
        text: "package p\n\ntype A struct {\n\tX int32,\n}\n",
        expected: &[(
            4,
            9,
            "syntax error: unexpected `,`: expected a newline, `;`, a tag or `}`",
        )],
    },
    Case {
        name: "comma_after_tag.ffi",
        text: "package p\n\ntype A struct {\n\tX []int32 `json:\"x\"`,\n}\n",
        expected: &[(4, 22, "syntax error: unexpected `,`: expected a newline, `;` or `}`")],
    },
    Case {
        name: "initialiser.ffi",
        text: "package p\n\ntype A struct {\n\tX int32 = 3\n}\n",
        expected: &[(
            4,
            10,
            "syntax error: unexpected `=`: expected a newline, `;`, a tag or `}`",
        )],
    },
    Case {
        name: "missing_type_name.ffi",
        text: "package p\n\ntype struct {\n}\n",
        expected: &[(3, 6, "syntax error: unexpected `struct`: expected a type name or `(`")],
    },
    Case {
        name: "keyword_field.ffi",
        text: "package p\n\ntype A struct {\n\ttype int32\n}\n",
        expected: &[(4, 2, "syntax error: unexpected `type`: expected a field name or `}`")],
    },
    Case {
        name: "extra_brace.ffi",
        text: "package p\n\ntype A struct {\n\tX int32\n}}\n",
        expected: &[(5, 2, "syntax error: unexpected `}`: expected a newline or `;`")],
    },
    Case {
        name: "misspelt_struct.ffi",
        text: "package p\n\ntype A stuct {\n}\n",
        expected: &[(3, 14, "syntax error: unexpected `{`: expected a newline or `;`")],
    },
    Case {
        name: "missing_package_name.ffi",
        text: "package\n\ntype A struct {\n\tX int32\n}\n",
        expected: &[(1, 1, "syntax error: expected a package name after `package`")],
    },
    Case {
        name: "unclosed_struct.ffi",
        text: "package p\n\ntype A struct {\n\tX int32\n",
        expected: &[(4, 9, "syntax error: missing `}`: struct `A` is not closed")],
    },
];

fn syntax_errors(diagnostics: &[Value], line_key: &str, column_key: &str, base: u64) -> Vec<(u64, u64, String)> {
    diagnostics
        .iter()
        .filter(|d| d["code"] == "SYNTAX")
        .map(|d| {
            let at = |v: &Value| v.as_u64().unwrap_or(u64::MAX - 1) + base;
            (
                at(&d[line_key]),
                at(&d[column_key]),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn expected(case: &Case) -> Vec<(u64, u64, String)> {
    case.expected
        .iter()
        .map(|&(l, c, m)| (u64::from(l), u64::from(c), m.to_string()))
        .collect()
}

/// The failure line of `case` when `got` is not what it expects.
fn mismatch(case: &Case, got: Vec<(u64, u64, String)>) -> Option<String> {
    (got != expected(case)).then(|| format!("{}:\n  expected {:?}\n  got      {got:?}", case.name, case.expected))
}

#[test]
fn wirelens_check_says_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let path = dir.path().join(case.name);
        std::fs::write(&path, case.text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}: exit status", case.name);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        failures.extend(mismatch(
            case,
            syntax_errors(v.as_array().unwrap(), "line", "column", 0),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_language_server_says_what_was_expected() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let mut failures = Vec::new();
    for case in CASES {
        let uri = format!("file:///tmp/wirelens-syntax-expected/{}", case.name);
        let lang = if case.name.ends_with(".sdp") { "sdp" } else { "ffi" };
        c.open(&uri, lang, case.text);
        let d = c.diagnostics(&uri);
        let d = d["diagnostics"].as_array().cloned().unwrap_or_default();
        let flat: Vec<Value> = d
            .iter()
            .map(|d| {
                let start = &d["range"]["start"];
                serde_json::json!({"code": d["code"], "message": d["message"],
                                   "line": start["line"], "character": start["character"]})
            })
            .collect();
        // LSP positions are 0-based (UTF-16 columns: every case is ASCII).
        failures.extend(mismatch(case, syntax_errors(&flat, "line", "character", 1)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The server keeps its more specific word where a declaration starts inside a struct
/// left open, instead of the parser's list of what may follow a field.
#[test]
fn a_declaration_inside_an_open_struct_says_close_it() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    for (uri, lang, text) in [
        (
            "file:///tmp/wirelens-syntax-expected/open.sdp",
            "sdp",
            "struct A {\n    x: Option<B>\n\nstruct B {\n    y: u32,\n}\n",
        ),
        (
            "file:///tmp/wirelens-syntax-expected/open.ffi",
            "ffi",
            "package p\n\ntype A struct {\n\tX *B\n\ntype B struct {\n\tY int32\n}\n",
        ),
    ] {
        c.open(uri, lang, text);
        let d = c.diagnostics(uri);
        let messages: Vec<&str> = d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "SYNTAX")
            .filter_map(|d| d["message"].as_str())
            .collect();
        // SDP: the next `struct` is unexpected where `}` is. ffire: recovery closes the
        // struct with an invented `}` (a declaration needs no separator in its grammar), so
        // the error names the open struct, after its last field.
        let expected = if lang == "sdp" {
            "syntax error: unexpected `struct`: expected `}` to close the declaration before it"
        } else {
            "syntax error: missing `}`: struct `A` is not closed"
        };
        assert_eq!(messages.first().copied(), Some(expected), "{d}");
    }
}
