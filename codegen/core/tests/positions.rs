//! Where diagnostics point: columns after non-ASCII text in each column unit, CRLF
//! files, empty and whitespace-only files, very large files, and files that are not
//! UTF-8 at all.

use std::path::Path;

use wirelens_core::source::{ColumnUnit, Position};
use wirelens_core::{analyze, Analysis, Dialect, OrderChoice, SourceFile};

const BROKEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/schemas/broken");

fn run(dialect: Dialect, text: &str) -> Analysis {
    analyze(dialect, text, None, OrderChoice::default())
}

fn pos(line: u32, column: u32) -> Position {
    Position { line, column }
}

/// (code, start, end) of every diagnostic, in one column unit.
fn located(dialect: Dialect, text: &str, unit: ColumnUnit) -> Vec<(&'static str, Position, Position)> {
    let source = SourceFile::new("t", text);
    run(dialect, text)
        .diagnostics
        .iter()
        .map(|d| {
            let (start, end) = source.range_positions(&d.range, unit);
            (d.code, start, end)
        })
        .collect()
}

/// Expected diagnostic: code, zero-based line, then the start column in UTF-8 bytes,
/// UTF-16 code units and characters.
type Expected = (&'static str, u32, [u32; 3]);

fn assert_columns(dialect: Dialect, text: &str, expected: &[Expected]) {
    let source = SourceFile::new("t", text);
    let analysis = run(dialect, text);
    let got: Vec<&str> = analysis.diagnostics.iter().map(|d| d.code).collect();
    let want: Vec<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(got, want, "codes, in position order");
    let units = [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Utf32];
    for (d, &(code, line, columns)) in analysis.diagnostics.iter().zip(expected) {
        for (unit, column) in units.into_iter().zip(columns) {
            let p = source.position(d.range.start, unit);
            assert_eq!(p, pos(line, column), "{code} ({}) in {unit:?}", d.message);
            assert_eq!(source.offset(p, unit), d.range.start, "{code}: {unit:?} round trip");
        }
    }
}

// `é` and `ï` are 2 bytes / 1 UTF-16 unit, `日` and `本` 3 bytes / 1 unit, `😀` 4 bytes /
// 2 units; each is one character.

#[test]
fn sdp_columns_after_non_ascii_on_the_same_line() {
    let text = "// Größe, 日本, 😀\nstruct Ünïcode { naïve: Strng, 日本: u8, x😀: u8, y: Strng }\n";
    assert_columns(
        Dialect::Sdp,
        text,
        &[
            ("INVALID_IDENTIFIER", 1, [7, 7, 7]),    // Ünïcode
            ("INVALID_IDENTIFIER", 1, [19, 17, 17]), // naïve
            ("UNKNOWN_TYPE", 1, [27, 24, 24]),       // Strng
            ("INVALID_IDENTIFIER", 1, [34, 31, 31]), // 日本
            ("SYNTAX", 1, [47, 40, 40]),             // 😀 is not a letter
            ("UNKNOWN_TYPE", 1, [60, 51, 50]),       // Strng, after the emoji
        ],
    );
    // Ends count the same way: `Strng` after the emoji ends 5 units later in each.
    let last = run(Dialect::Sdp, text).diagnostics.last().unwrap().range.clone();
    let source = SourceFile::new("t.sdp", text);
    assert_eq!(source.position(last.end, ColumnUnit::Utf8), pos(1, 65));
    assert_eq!(source.position(last.end, ColumnUnit::Utf16), pos(1, 56));
    assert_eq!(source.position(last.end, ColumnUnit::Utf32), pos(1, 55));
}

#[test]
fn ffi_columns_after_non_ascii_on_the_same_line() {
    let text = "package p\n\ntype Msg struct { Naïve int32 `json:\"é😀\"`; 日本 Strng; X int }\n";
    assert_columns(
        Dialect::Ffi,
        text,
        &[
            // `Naïve` and `日本` are valid field names (issue #19); columns after them count.
            ("E005", 2, [55, 47, 46]), // Strng, after the tag's é and emoji and 日本
            ("unsupported-type", 2, [64, 56, 55]), // int
        ],
    );
}

#[test]
fn the_cli_unit_counts_characters() {
    // spec §10: the CLI's 1-based columns count Unicode characters.
    let text = "struct 日本😀 { x: Strng }\n";
    let source = SourceFile::new("t.sdp", text);
    let unknown = run(Dialect::Sdp, text)
        .diagnostics
        .into_iter()
        .find(|d| d.code == "UNKNOWN_TYPE")
        .expect("UNKNOWN_TYPE");
    assert_eq!(source.position(unknown.range.start, ColumnUnit::Utf32), pos(0, 16));
}

fn crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

fn assert_same_as_lf(dialect: Dialect, name: &str, lf: &str) {
    let crlf = crlf(lf);
    assert_ne!(crlf, lf, "{name}: no line to convert");
    for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Utf32] {
        assert_eq!(
            located(dialect, &crlf, unit),
            located(dialect, lf, unit),
            "{name}: CRLF and LF differ ({unit:?})"
        );
    }
    let messages =
        |text: &str| -> Vec<String> { run(dialect, text).diagnostics.into_iter().map(|d| d.message).collect() };
    assert_eq!(messages(&crlf), messages(lf), "{name}: messages differ");
}

#[test]
fn crlf_files_give_the_same_diagnostics_and_positions_as_lf() {
    assert_same_as_lf(
        Dialect::Sdp,
        "unicode.sdp",
        "// Größe\nstruct Ünïcode {\n    naïve: Strng, // 日本\n    x: u8\n    // 😀\n}\n",
    );
    assert_same_as_lf(
        Dialect::Ffi,
        "directive.ffi",
        "//wirelens:order sideways\npackage p\n\ntype Msg struct {\n\tNaïve int32 `json:name`\n}\n",
    );
    let mut n = 0;
    for entry in std::fs::read_dir(BROKEN).expect("broken corpus") {
        let path = entry.expect("entry").path();
        let dialect = Dialect::from_path(&path).expect("a .sdp or .ffi file");
        let text = std::fs::read_to_string(&path).expect("UTF-8");
        assert_same_as_lf(dialect, &path.display().to_string(), &text);
        n += 1;
    }
    assert!(n >= 40, "only {n} broken schemas");
}

#[test]
fn empty_and_blank_files() {
    for text in ["", "   ", "\n\n", " \t\r\n\r\n  \n"] {
        let sdp = located(Dialect::Sdp, text, ColumnUnit::Utf16);
        assert_eq!(sdp, [("EMPTY_SCHEMA", pos(0, 0), pos(0, 0))], "SDP {text:?}");
        assert_eq!(run(Dialect::Sdp, text).diagnostics[0].message, "the schema is empty");
        let ffi = located(Dialect::Ffi, text, ColumnUnit::Utf16);
        assert_eq!(
            ffi,
            [
                ("missing-package", pos(0, 0), pos(0, 0)),
                ("E002", pos(0, 0), pos(0, 0)),
            ],
            "ffire {text:?}"
        );
    }
    // Comments only: the SDP message says what is missing.
    assert_eq!(
        run(Dialect::Sdp, "// TODO\n").diagnostics[0].message,
        "the schema declares no structs"
    );
}

const TEN_MB: usize = 10 * 1024 * 1024;

#[test]
fn a_ten_megabyte_sdp_schema_checks_clean() {
    let mut text = String::with_capacity(TEN_MB + 4096);
    let mut structs = 0;
    let mut i = 0;
    while text.len() < TEN_MB {
        text.push_str(&format!(
            "/// Reading {i} of the station log.\nstruct Reading{i} {{\n    id: u64,\n    taken_at: i64,\n    \
             celsius: f64,\n    flags: u32,\n    quality: u8,\n    station: str,\n    notes: []str,\n    \
             payload: []u8,\n    probe: Option<Probe{i}>,\n}}\n\nstruct Probe{i} {{\n    serial: u32,\n    \
             model: str,\n}}\n\n"
        ));
        structs += 2;
        i += 1;
    }
    assert!(text.len() >= TEN_MB);
    let analysis = run(Dialect::Sdp, &text);
    let first: Vec<_> = analysis
        .diagnostics
        .iter()
        .take(5)
        .map(|d| (d.code, &d.message))
        .collect();
    assert!(
        analysis.diagnostics.is_empty(),
        "{} diagnostics, first: {first:?}",
        analysis.diagnostics.len()
    );
    assert_eq!(analysis.schema.types.len(), structs);
}

#[test]
fn a_ten_megabyte_ffi_schema_checks_clean() {
    let mut text = String::with_capacity(TEN_MB + 4096);
    text.push_str("package stations\n\n");
    let mut types = 0;
    let mut i = 0;
    while text.len() < TEN_MB {
        text.push_str(&format!(
            "// Reading{i} is one entry of the station log.\ntype Reading{i} struct {{\n\tID       int64\n\t\
             TakenAt  int64    `json:\"taken_at\"`\n\tCelsius  float64\n\tFlags    int32\n\tQuality  int8\n\t\
             Station  string\n\tNotes    []string `json:\"notes,omitempty\"`\n\tRaw      []int8\n\t\
             Probe    *Probe{i}\n}}\n\ntype Probe{i} struct {{\n\tSerial int32\n\tModel  string\n}}\n\n"
        ));
        types += 2;
        i += 1;
    }
    assert!(text.len() >= TEN_MB);
    let analysis = run(Dialect::Ffi, &text);
    let first: Vec<_> = analysis
        .diagnostics
        .iter()
        .take(5)
        .map(|d| (d.code, &d.message))
        .collect();
    assert!(
        analysis.diagnostics.is_empty(),
        "{} diagnostics, first: {first:?}",
        analysis.diagnostics.len()
    );
    assert_eq!(analysis.schema.types.len(), types);
}

/// Many errors in a large file: each is reported once, where it is (error reporting
/// must not walk the tree from the root per error, which is quadratic).
#[test]
fn a_large_file_full_of_errors_reports_each_one() {
    const N: usize = 20_000;
    let mut sdp = String::new();
    let mut ffi = String::from("package p\n");
    for i in 0..N {
        sdp.push_str(&format!(
            "struct S{i} {{\n    a: u8,\n    b: Option<>,\n    z u8,\n}}\n"
        ));
        ffi.push_str(&format!(
            "\ntype T{i} struct {{\n\tID int32\n\ttype int32\n\tName string\n}}\n"
        ));
    }
    let source = SourceFile::new("big.sdp", sdp.as_str());
    let analysis = run(Dialect::Sdp, &sdp);
    assert_eq!(analysis.diagnostics.len(), 2 * N);
    for (i, pair) in analysis.diagnostics.chunks(2).enumerate() {
        let line = 5 * i as u32;
        assert_eq!(pair[0].message, "syntax error: missing type");
        assert_eq!(
            source.position(pair[0].range.start, ColumnUnit::Utf32),
            pos(line + 2, 14)
        );
        // `z u8`: the name is fine, the type comes without its `:`.
        assert_eq!(pair[1].message, "syntax error: unexpected `u8`: expected `:`");
        assert_eq!(
            source.position(pair[1].range.start, ColumnUnit::Utf32),
            pos(line + 3, 6)
        );
    }
    let source = SourceFile::new("big.ffi", ffi.as_str());
    let analysis = run(Dialect::Ffi, &ffi);
    assert_eq!(analysis.diagnostics.len(), N);
    for (i, d) in analysis.diagnostics.iter().enumerate() {
        assert_eq!(
            d.message,
            "syntax error: unexpected `type`: expected a field name or `}`"
        );
        assert_eq!(
            source.position(d.range.start, ColumnUnit::Utf32),
            pos(6 * i as u32 + 4, 1)
        );
    }
}

#[test]
fn invalid_utf8_names_line_and_column() {
    // The bad byte follows `日本` (2 characters, 6 bytes) on the third line, after a CRLF.
    let bytes = b"struct A {\r\n    na\xc3\xafve: u8,\n    \xe6\x97\xa5\xe6\x9c\xac\xff: u8,\n}\n".to_vec();
    let offset = bytes.iter().position(|&b| b == 0xff).unwrap();
    let err = SourceFile::from_bytes(Path::new("bad.sdp"), bytes)
        .err()
        .expect("invalid UTF-8 is refused");
    assert_eq!(err.line_col, Some((3, 7)));
    assert_eq!(
        err.to_string(),
        format!("bad.sdp:3:7: file is not valid UTF-8 (byte 0xff at offset {offset})")
    );

    // A 4-byte sequence cut short at the end of the file.
    let err = SourceFile::from_bytes(Path::new("cut.ffi"), b"package p\n// \xf0\x9f\x98".to_vec())
        .err()
        .expect("a truncated sequence is refused");
    assert_eq!(err.line_col, Some((2, 4)));
    assert!(
        err.to_string().starts_with("cut.ffi:2:4: file is not valid UTF-8"),
        "{err}"
    );

    // A stray continuation byte as the very first byte.
    let err = SourceFile::from_bytes(Path::new("lead.sdp"), b"\x80struct A { x: u8 }".to_vec())
        .err()
        .expect("a leading continuation byte is refused");
    assert_eq!(err.line_col, Some((1, 1)));
    assert!(
        err.to_string()
            .starts_with("lead.sdp:1:1: file is not valid UTF-8 (byte 0x80 at offset 0)"),
        "{err}"
    );

    // Valid UTF-8 (with a BOM-free emoji) loads.
    let ok = SourceFile::from_bytes(Path::new("ok.sdp"), "struct A { x: u8 } // 😀".as_bytes().to_vec());
    assert!(ok.is_ok());
}
