//! The broken-schema corpus: every file under `tests/schemas/broken` states, in
//! `// expect: CODE LINE` comment lines at its top, exactly the diagnostics it yields
//! (code and 1-based line, order-insensitive; nothing more, nothing less). Together
//! the files cover every check code README.md lists, in each dialect that has it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use wirelens_core::source::ColumnUnit;
use wirelens_core::{analyze, Dialect, OrderChoice, Severity, SourceFile};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/schemas/broken");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");

/// Every SDP code of README.md's "Check codes" (errors, warnings and the info lint).
const SDP_CODES: &[&str] = &[
    "SYNTAX",
    "EMPTY_SCHEMA",
    "EMPTY_STRUCT",
    "UNKNOWN_TYPE",
    "CIRCULAR_REFERENCE",
    "DUPLICATE_STRUCT",
    "DUPLICATE_FIELD",
    "INVALID_IDENTIFIER",
    "RESERVED_KEYWORD",
    "OPTION_PRIMITIVE",
    "OPTION_ARRAY",
    "BOX_NON_STRUCT",
    "nested-wrapper",
    "upstream-parse",
    "upstream-generator-gap",
    "split-fixed-block",
    "type-too-deep",
];

/// Every ffire code of README.md's "Check codes".
const FFI_CODES: &[&str] = &[
    "SYNTAX",
    "E002",
    "E005",
    "E006",
    "E010",
    "E011",
    "duplicate-type",
    "duplicate-field",
    "duplicate-json-name",
    "unsupported-type",
    "embedded-field",
    "missing-package",
    "duplicate-package",
    "invalid-identifier",
    "ignored-declaration",
    "unused-type",
    "malformed-tag",
    "invalid-directive",
    "ignored-pointer",
    "upstream-false-cycle",
    "type-too-deep",
];

/// Backquoted words of README's "Check codes" section that look like codes but are not.
const README_NON_CODES: &[&str] = &["sdp-gen"];

const MIN_FILES: usize = 40;
const MIN_FILES_PER_DIALECT: usize = 20;

struct Case {
    path: PathBuf,
    dialect: Dialect,
    text: String,
    /// (code, 1-based line), sorted.
    expected: Vec<(String, u32)>,
}

/// One diagnostic as the test compares and prints it.
struct Actual {
    code: &'static str,
    line: u32,
    column: u32,
    severity: Severity,
    message: String,
}

fn load_cases() -> Vec<Case> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap_or_else(|e| panic!("cannot read {DIR}: {e}"))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let dialect =
                Dialect::from_path(&path).unwrap_or_else(|| panic!("{}: not a .sdp or .ffi file", path.display()));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let expected = parse_expectations(&path, &text);
            Case {
                path,
                dialect,
                text,
                expected,
            }
        })
        .collect()
}

/// The `// expect: CODE LINE` lines of the comment block that opens the file.
fn parse_expectations(path: &Path, text: &str) -> Vec<(String, u32)> {
    let mut expected = Vec::new();
    let mut in_header = true;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if !trimmed.starts_with("//") {
            in_header = false;
        }
        let Some(rest) = trimmed
            .strip_prefix("//")
            .map(str::trim)
            .and_then(|c| c.strip_prefix("expect:"))
        else {
            continue;
        };
        assert!(
            in_header,
            "{}:{}: `// expect:` lines belong in the comment block at the top of the file",
            path.display(),
            i + 1
        );
        let mut words = rest.split_whitespace();
        let (Some(code), Some(line_no), None) = (words.next(), words.next(), words.next()) else {
            panic!("{}:{}: write `// expect: CODE LINE`", path.display(), i + 1);
        };
        let line_no: u32 = line_no
            .parse()
            .unwrap_or_else(|_| panic!("{}:{}: `{line_no}` is not a line number", path.display(), i + 1));
        assert!(
            line_no >= 1 && line_no as usize <= text.matches('\n').count() + 1,
            "{}:{}: line {line_no} is outside the file",
            path.display(),
            i + 1
        );
        expected.push((code.to_string(), line_no));
    }
    assert!(
        !expected.is_empty(),
        "{}: a broken schema needs at least one `// expect: CODE LINE`",
        path.display()
    );
    expected.sort();
    expected
}

fn actual_diagnostics(case: &Case) -> Vec<Actual> {
    let analysis = analyze(case.dialect, &case.text, None, OrderChoice::default());
    let source = SourceFile::new(&case.path, case.text.as_str());
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            let pos = source.position(d.range.start, ColumnUnit::Utf32);
            Actual {
                code: d.code,
                line: pos.line + 1,
                column: pos.column + 1,
                severity: d.severity,
                message: d.message.clone(),
            }
        })
        .collect()
}

#[test]
fn every_broken_schema_yields_exactly_its_expected_diagnostics() {
    let cases = load_cases();
    let mut failures = String::new();
    for case in &cases {
        let actual = actual_diagnostics(case);
        let mut got: Vec<(String, u32)> = actual.iter().map(|a| (a.code.to_string(), a.line)).collect();
        got.sort();
        if got == case.expected {
            continue;
        }
        let file = case.path.file_name().unwrap_or_default().to_string_lossy();
        let _ = writeln!(failures, "\n{file}:");
        let _ = writeln!(failures, "  expected:");
        for (code, line) in &case.expected {
            let _ = writeln!(failures, "    {code} {line}");
        }
        let _ = writeln!(failures, "  actual:");
        for a in &actual {
            let _ = writeln!(
                failures,
                "    {} {}   ({}:{} {}: {})",
                a.code,
                a.line,
                a.line,
                a.column,
                a.severity.as_str(),
                a.message
            );
        }
        let missing = multiset_minus(&case.expected, &got);
        let unexpected = multiset_minus(&got, &case.expected);
        if !missing.is_empty() {
            let _ = writeln!(failures, "  missing:    {}", show(&missing));
        }
        if !unexpected.is_empty() {
            let _ = writeln!(failures, "  unexpected: {}", show(&unexpected));
        }
    }
    assert!(
        failures.is_empty(),
        "diagnostics differ from the `// expect:` lines:{failures}"
    );
}

fn multiset_minus(a: &[(String, u32)], b: &[(String, u32)]) -> Vec<(String, u32)> {
    let mut left: BTreeMap<&(String, u32), usize> = BTreeMap::new();
    for x in b {
        *left.entry(x).or_default() += 1;
    }
    a.iter()
        .filter(|x| match left.get_mut(x) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

fn show(items: &[(String, u32)]) -> String {
    items
        .iter()
        .map(|(code, line)| format!("{code} {line}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn the_corpus_covers_every_check_code() {
    let cases = load_cases();
    for (dialect, codes) in [(Dialect::Sdp, SDP_CODES), (Dialect::Ffi, FFI_CODES)] {
        let covered: BTreeSet<&str> = cases
            .iter()
            .filter(|c| c.dialect == dialect)
            .flat_map(|c| c.expected.iter().map(|(code, _)| code.as_str()))
            .collect();
        let missing: Vec<&str> = codes.iter().copied().filter(|c| !covered.contains(c)).collect();
        assert!(
            missing.is_empty(),
            "no .{} file in {DIR} expects {missing:?}",
            dialect.name()
        );
        let unknown: Vec<&str> = covered.iter().copied().filter(|c| !codes.contains(c)).collect();
        assert!(
            unknown.is_empty(),
            ".{} files expect codes that are not in the test's list: {unknown:?}",
            dialect.name()
        );
    }
}

#[test]
fn the_corpus_is_large_and_has_multi_error_files() {
    let cases = load_cases();
    assert!(
        cases.len() >= MIN_FILES,
        "{} broken schemas; at least {MIN_FILES} expected",
        cases.len()
    );
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        let n = cases.iter().filter(|c| c.dialect == dialect).count();
        assert!(
            n >= MIN_FILES_PER_DIALECT,
            "{n} .{} files; at least {MIN_FILES_PER_DIALECT} expected",
            dialect.name()
        );
        // All errors in one pass: some file has many different error codes.
        let most = cases
            .iter()
            .filter(|c| c.dialect == dialect)
            .map(|c| {
                actual_diagnostics(c)
                    .iter()
                    .filter(|a| a.severity == Severity::Error)
                    .map(|a| a.code)
                    .collect::<BTreeSet<_>>()
                    .len()
            })
            .max()
            .unwrap_or(0);
        assert!(
            most >= 5,
            "no .{} file reports 5 different error codes at once (best: {most})",
            dialect.name()
        );
    }
}

/// The lists above are README.md's "Check codes": a code added there must be added
/// here (and to the corpus), and a code listed here must be documented there.
#[test]
fn the_code_lists_match_the_readme() {
    let readme = std::fs::read_to_string(README).expect("README.md");
    let start = readme
        .find("## Check codes")
        .expect("README.md has a `## Check codes` section");
    let section = &readme[start..];
    let section = &section[..section[2..].find("\n## ").map_or(section.len(), |i| i + 2)];
    let is_code = |w: &str| {
        !w.is_empty()
            && (w
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                || (w.contains('-') && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')))
            && !README_NON_CODES.contains(&w)
    };
    let documented: BTreeSet<&str> = section.split('`').skip(1).step_by(2).filter(|w| is_code(w)).collect();
    let listed: BTreeSet<&str> = SDP_CODES.iter().chain(FFI_CODES).copied().collect();
    assert_eq!(
        documented, listed,
        "README.md's check codes and the lists in codegen/core/tests/broken.rs differ"
    );
}

/// A missing `}` names the struct left open, points just after its last field and
/// relates the struct's name (the editor shows both).
#[test]
fn a_missing_brace_names_the_open_struct() {
    for (dialect, text, name) in [
        (
            Dialect::Sdp,
            "struct Open {\n    a: u32,\n\n/// Next.\nstruct Next {\n    b: u8,\n}\n",
            "Open",
        ),
        (Dialect::Ffi, "package p\n\ntype Open struct {\n\tA int32\n", "Open"),
    ] {
        let a = analyze(dialect, text, None, OrderChoice::default());
        let d = a
            .diagnostics
            .iter()
            .find(|d| d.message.contains("missing `}`"))
            .unwrap_or_else(|| panic!("{dialect:?}: {:?}", a.diagnostics));
        assert!(
            d.message.contains(&format!("struct `{name}` is not closed")),
            "{}",
            d.message
        );
        assert_eq!(&text[d.related[0].range.clone()], name);
        if dialect == Dialect::Sdp {
            assert_eq!(d.range.start, text.find("a: u32,").unwrap() + "a: u32,".len());
        }
    }
}

/// Issue 33: a struct left open while its new last field is still being typed
/// (`extra: `). Its two errors are reported there, the next `struct` starts a new
/// struct (no cycle invented through it), and the later structs keep their message ids.
#[test]
fn a_half_typed_field_in_an_open_struct_keeps_the_next_struct() {
    let text = "struct Point {\n    x: u32,\n}\n\nstruct LoopRange {\n    start: u32,\n    end: u32,\n    extra: \n\n/// The next one.\nstruct Other {\n    a: u8,\n    r: LoopRange,\n}\n\nstruct Last {\n    b: u16,\n}\n";
    let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
    let got: Vec<(&str, usize)> = a
        .diagnostics
        .iter()
        .map(|d| (d.message.as_str(), d.range.start))
        .collect();
    let after_colon = text.find("extra:").unwrap() + "extra:".len();
    assert_eq!(
        got,
        [
            (
                "syntax error: missing `}`: struct `LoopRange` is not closed",
                after_colon
            ),
            ("syntax error: missing type", after_colon),
        ]
    );
    let names: Vec<&str> = a.schema.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Point", "LoopRange", "Other", "Last"]);
    // Ids are positions (`Other` has no layout while `LoopRange` has none).
    let last = a.schema.type_id("Last").unwrap();
    assert_eq!(a.layout.get(last).and_then(|l| l.message_id), Some(4));
}

/// A field without a type is still a syntax error, wherever it is.
#[test]
fn a_field_without_a_type_is_a_syntax_error() {
    for text in [
        "struct A {\n    a: ,\n    b: u8,\n}\n",
        "struct A {\n    a:\n}\n",
        "struct A { a: }",
    ] {
        let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
        let d: Vec<&str> = a.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(d, ["syntax error: missing type"], "{text:?}");
        assert_eq!(a.diagnostics[0].range.start, text.find(':').unwrap() + 1);
        assert!(a.has_syntax_errors());
    }
}

/// ffire, the same walk: delete `LoopRange`'s `}` and start a new field. The structs after
/// it stay structs of their own (before, every later declaration was swallowed into errors
/// and the missing `}` was reported at the end of the file).
#[test]
fn ffi_an_unclosed_struct_keeps_the_declarations_after_it() {
    let text = "package p\n\ntype Point struct {\n\tX int32\n}\n\ntype LoopRange struct {\n\tStart int32\n\tExtra \n\n// The next one.\ntype Other struct {\n\tA int8\n\tR LoopRange\n}\n\ntype Last struct {\n\tB int16\n}\n";
    let a = analyze(Dialect::Ffi, text, None, OrderChoice::default());
    let got: Vec<(&str, usize)> = a
        .diagnostics
        .iter()
        .filter(|d| d.code == "SYNTAX")
        .map(|d| (d.message.as_str(), d.range.start))
        .collect();
    let after_extra = text.find("Extra").unwrap() + "Extra".len();
    assert_eq!(
        got,
        [(
            "syntax error: missing `}`: struct `LoopRange` is not closed",
            after_extra
        )]
    );
    let names: Vec<&str> = a.schema.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Point", "LoopRange", "Other", "Last"]);
    // Without the half-typed field: only the `}` is missing.
    let text = text.replace("\tExtra \n", "");
    let a = analyze(Dialect::Ffi, &text, None, OrderChoice::default());
    let d: Vec<&str> = a.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(d, ["syntax error: missing `}`: struct `LoopRange` is not closed"]);
    assert_eq!(a.schema.types.len(), 4);
}

/// ffire: declarations need a line end or `;` between them, as in Go (the grammar leaves
/// the separator out so recovery can close a struct; the check reports it).
#[test]
fn ffi_declarations_on_one_line_need_a_separator() {
    for (text, ok) in [
        ("package p\n\ntype A struct{ X int32 } type B int32\n", false),
        ("package p type A int32\n", false),
        ("package p\n\ntype A struct{ X int32 }; type B int32\n", true),
        ("package p\n\ntype A struct{ X int32 } /* a\n */ type B int32\n", true),
        ("package p\n\ntype A struct{ X int32 } // a\ntype B int32\n", true),
    ] {
        let a = analyze(Dialect::Ffi, text, None, OrderChoice::default());
        let syntax: Vec<&str> = a
            .diagnostics
            .iter()
            .filter(|d| d.code == "SYNTAX")
            .map(|d| d.message.as_str())
            .collect();
        if ok {
            assert!(syntax.is_empty(), "{text:?}: {syntax:?}");
        } else {
            assert_eq!(
                syntax,
                ["syntax error: missing a line end or `;` between declarations"],
                "{text:?}"
            );
            assert!(a.has_syntax_errors());
        }
    }
}
