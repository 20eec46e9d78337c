//! Runs the tree-sitter corpus files (`{sdp,ffi}/test/corpus/*.txt`) with only the
//! `tree-sitter` runtime crate, so `cargo test` checks them without the CLI.
//!
//! The file format is the CLI's: a header line of three or more `=`, the case name
//! (optionally followed by attribute lines such as `:error` or `:skip`), another
//! `=` line, the source, a line of three or more `-` (the longest such line in the
//! body is the divider), and the expected S-expression. Comment lines starting with
//! `;` in the expected tree are ignored, like the CLI does.
//!
//! The comparison is exact: `Node::to_sexp` in tree-sitter 0.27.1 prints field names
//! (`name: (type_identifier)`), `MISSING` nodes (`(MISSING "}")`, `(MISSING identifier)`)
//! and unexpected characters (`(UNEXPECTED ';')`), so the expected text is compared
//! verbatim after whitespace normalisation — field names are never stripped, so a
//! corpus tree that omits them fails.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use tree_sitter::{Language, Parser};

#[derive(Debug)]
struct Case {
    file: PathBuf,
    name: String,
    source: Vec<u8>,
    expected: String,
    expect_error: bool,
    skip: bool,
}

/// `Some(len)` if `line` is three or more `c` and nothing else but a line ending.
fn delimiter(line: &str, c: char) -> Option<usize> {
    let rest = line.trim_start_matches(c);
    let len = line.len() - rest.len();
    (len >= 3 && rest.trim_end_matches(['\r', '\n']).is_empty()).then_some(len)
}

/// Whitespace normalisation used by the CLI: drop `;` comment lines, collapse runs of
/// whitespace to one space, and drop a space that precedes `)`.
fn normalize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut prev_space = false;
    for line in raw.lines() {
        if line.trim_start().starts_with(';') {
            continue;
        }
        for ch in line.chars() {
            if ch.is_whitespace() {
                if !prev_space && !out.is_empty() {
                    out.push(' ');
                    prev_space = true;
                }
            } else {
                if ch == ')' && prev_space {
                    out.pop();
                }
                out.push(ch);
                prev_space = false;
            }
        }
        if !out.is_empty() && !prev_space {
            out.push(' ');
            prev_space = true;
        }
    }
    out.trim_end().to_string()
}

/// Parses a header starting at `lines[start]`; returns (name, error, skip, body start).
fn header(lines: &[&str], start: usize) -> Option<(String, bool, bool, usize)> {
    delimiter(lines[start], '=')?;
    let mut name = String::new();
    let (mut error, mut skip, mut seen_marker) = (false, false, false);
    let mut i = start + 1;
    while i < lines.len() {
        if delimiter(lines[i], '=').is_some() {
            break;
        }
        let trimmed = lines[i].trim();
        if trimmed.is_empty() && !seen_marker {
            return None;
        }
        if trimmed.starts_with(':') {
            seen_marker = true;
            match trimmed {
                ":error" => error = true,
                ":skip" => skip = true,
                other => panic!("unsupported corpus attribute {other:?} (only :error and :skip)"),
            }
        } else if !seen_marker {
            name.push_str(lines[i]);
        }
        i += 1;
    }
    if i >= lines.len() {
        return None;
    }
    Some((name.trim_end().to_string(), error, skip, i + 1))
}

fn parse_corpus(file: &Path, content: &str) -> Vec<Case> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    // (name, error, skip, body start, header start)
    let mut headers = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match header(&lines, i) {
            Some((name, error, skip, body)) => {
                headers.push((name, error, skip, body, i));
                i = body;
            }
            None => i += 1,
        }
    }
    let mut cases = Vec::new();
    for (k, (name, expect_error, skip, body_start, _)) in headers.iter().enumerate() {
        let body_end = headers.get(k + 1).map_or(lines.len(), |h| h.4);
        let body = &lines[*body_start..body_end];
        // The longest `---` line is the divider; on a tie the later one wins.
        let mut divider: Option<(usize, usize)> = None;
        for (j, line) in body.iter().enumerate() {
            if let Some(len) = delimiter(line, '-') {
                if divider.is_none_or(|(best, _)| len >= best) {
                    divider = Some((len, j));
                }
            }
        }
        let (_, d) = divider.unwrap_or_else(|| panic!("{}: case {name:?} has no `---` divider", file.display()));
        let mut source: Vec<u8> = body[..d].concat().into_bytes();
        if source.last() == Some(&b'\n') {
            source.pop();
        }
        if source.last() == Some(&b'\r') {
            source.pop();
        }
        cases.push(Case {
            file: file.to_path_buf(),
            name: name.clone(),
            source,
            expected: normalize(&body[d + 1..].concat()),
            expect_error: *expect_error,
            skip: *skip,
        });
    }
    cases
}

fn corpus_files(dialect: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dialect)
        .join("test")
        .join("corpus");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

fn cases(dialect: &str) -> Vec<Case> {
    corpus_files(dialect)
        .iter()
        .flat_map(|file| {
            let content = fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            parse_corpus(file, &content)
        })
        .collect()
}

/// Splits a `to_sexp` string into `(`, `)`, quoted names (`"}"`, `'x'`) and atoms.
fn sexp_tokens(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' {
            tokens.push(c.to_string());
            i += 1;
        } else if c == '"' || c == '\'' {
            // A quoted name: at least one character, up to the closing quote.
            let mut j = i + 2;
            while j < chars.len() && chars[j] != c {
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            tokens.push(chars[i..end].iter().collect());
            i = end;
        } else {
            let mut j = i;
            while j < chars.len() && !chars[j].is_whitespace() && chars[j] != '(' && chars[j] != ')' {
                j += 1;
            }
            tokens.push(chars[i..j].iter().collect());
            i = j;
        }
    }
    tokens
}

/// Pretty-prints a `to_sexp` string the way corpus files are written: one node per
/// line, two spaces of indentation per level, `field: (node)` on one line.
fn pretty(sexp: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut after_field = false;
    let mut first_in_node = false;
    for token in sexp_tokens(sexp) {
        match token.as_str() {
            "(" => {
                if !out.is_empty() && !after_field {
                    out.push('\n');
                    out.push_str(&"  ".repeat(depth));
                }
                out.push('(');
                depth += 1;
                after_field = false;
                first_in_node = true;
            }
            ")" => {
                out.push(')');
                depth = depth.saturating_sub(1);
                first_in_node = false;
            }
            atom if atom.ends_with(':') && !first_in_node => {
                out.push('\n');
                out.push_str(&"  ".repeat(depth));
                out.push_str(atom);
                out.push(' ');
                after_field = true;
            }
            atom => {
                if !first_in_node {
                    out.push(' ');
                }
                out.push_str(atom);
                first_in_node = false;
            }
        }
    }
    out
}

fn language(dialect: &str) -> Language {
    match dialect {
        "sdp" => tree_sitter_wirelens::LANGUAGE_SDP.into(),
        "ffi" => tree_sitter_wirelens::LANGUAGE_FFI.into(),
        other => panic!("unknown dialect {other}"),
    }
}

/// Runs every case of one dialect; returns (passed, skipped) or panics listing failures.
fn run_dialect(dialect: &str) -> (usize, usize) {
    let mut parser = Parser::new();
    parser.set_language(&language(dialect)).unwrap();
    let all = cases(dialect);
    assert!(!all.is_empty(), "no corpus cases found for {dialect}");
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = String::new();
    for case in &all {
        if case.skip {
            skipped += 1;
            continue;
        }
        let tree = parser.parse(&case.source, None).expect("parse returned no tree");
        let root = tree.root_node();
        let actual = root.to_sexp();
        let file = case.file.file_name().unwrap().to_string_lossy();
        let ok = if case.expect_error {
            root.has_error()
        } else {
            actual == case.expected
        };
        if ok {
            passed += 1;
        } else {
            let _ = write!(
                failures,
                "\n--- {dialect} {file}: {:?} ---\n{}expected:\n{}\nactual:\n{}\n",
                case.name,
                if case.expect_error {
                    "(:error) expected a tree with an error\n"
                } else {
                    ""
                },
                pretty(&case.expected),
                pretty(&actual),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus case(s) failed:{failures}",
        all.len() - passed - skipped
    );
    eprintln!("{dialect}: {passed} corpus cases passed, {skipped} skipped");
    (passed, skipped)
}

#[test]
fn sdp_corpus() {
    let (passed, _) = run_dialect("sdp");
    assert!(passed > 0);
}

#[test]
fn ffi_corpus() {
    let (passed, _) = run_dialect("ffi");
    assert!(passed > 0);
}

#[test]
fn corpus_is_not_empty() {
    for dialect in ["sdp", "ffi"] {
        let files = corpus_files(dialect);
        assert!(!files.is_empty(), "no corpus files for {dialect}");
        let all = cases(dialect);
        assert!(!all.is_empty(), "zero corpus cases found for {dialect}");
        for file in &files {
            let content = fs::read_to_string(file).unwrap();
            assert!(
                !parse_corpus(file, &content).is_empty(),
                "{} contains no cases",
                file.display()
            );
        }
        // The CRLF cases must still have their carriage returns (see .gitattributes).
        let crlf: Vec<&Case> = all.iter().filter(|c| c.file.ends_with("crlf.txt")).collect();
        assert!(!crlf.is_empty(), "no CRLF corpus case for {dialect}");
        for case in crlf {
            let s = String::from_utf8_lossy(&case.source);
            assert!(
                s.contains("\r\n") && !s.replace("\r\n", "").contains('\n'),
                "{:?} lost its CRLF line endings",
                case.name
            );
        }
        // Every case must really be checked against a tree, not skipped or empty.
        for case in &all {
            assert!(!case.skip, "{}: {:?} is skipped", case.file.display(), case.name);
            if !case.expect_error {
                assert!(
                    case.expected.starts_with('('),
                    "{}: {:?} has no expected tree",
                    case.file.display(),
                    case.name
                );
            }
        }
    }
}

#[test]
fn splitter_and_normaliser() {
    let content = "==========\nFirst\n==========\n\nstruct A {}\n\n---\n\n(source_file\n  ; a comment\n  (struct_item\n    name: (type_identifier)\n    body: (field_list)\n  ))\n\n=====\nSecond\n:error\n=====\nx\n-----\n---\n\n(ERROR)\n";
    let cases = parse_corpus(Path::new("mem.txt"), content);
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].name, "First");
    assert_eq!(cases[0].source, b"\nstruct A {}\n");
    assert_eq!(
        cases[0].expected,
        "(source_file (struct_item name: (type_identifier) body: (field_list)))"
    );
    assert!(!cases[0].expect_error);
    assert_eq!(cases[1].name, "Second");
    assert!(cases[1].expect_error);
    // The longest dashed line is the divider; the shorter one belongs to the source.
    assert_eq!(cases[1].source, b"x");
    assert_eq!(cases[1].expected, "--- (ERROR)");

    let crlf = "===\r\nC\r\n===\r\n\r\na\r\nb\r\n---\r\n\r\n(x)\r\n";
    let cases = parse_corpus(Path::new("crlf.txt"), crlf);
    assert_eq!(cases[0].name, "C");
    assert_eq!(cases[0].source, b"\r\na\r\nb");
    assert_eq!(cases[0].expected, "(x)");
}

#[test]
fn to_sexp_has_fields_and_missing_nodes() {
    // The comparison relies on these properties of tree-sitter 0.27.1's `to_sexp`.
    let mut parser = Parser::new();
    parser.set_language(&language("sdp")).unwrap();
    let tree = parser.parse("struct A { a: Option<B }", None).unwrap();
    assert_eq!(
        tree.root_node().to_sexp(),
        "(source_file (struct_item name: (type_identifier) body: (field_list \
         (field_declaration name: (field_identifier) type: (option_type inner: \
         (type_identifier) (MISSING \">\"))))))"
    );
    assert_eq!(
        pretty(&tree.root_node().to_sexp()),
        "(source_file\n  (struct_item\n    name: (type_identifier)\n    body: (field_list\n      \
         (field_declaration\n        name: (field_identifier)\n        type: (option_type\n          \
         inner: (type_identifier)\n          (MISSING \">\"))))))"
    );
}
