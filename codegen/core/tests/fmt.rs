//! Tests of the formatter (`wirelens_core::fmt`). Every test name starts with `fmt_` so that
//! `cargo test -p wirelens-core --test fmt` runs them all.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wirelens_core::fmt::{format, FormatError};
use wirelens_core::Dialect;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors");

fn schemas(dialect: Dialect) -> Vec<PathBuf> {
    let dir = Path::new(VECTORS).join(dialect.name()).join("schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(dialect.name()))
        .collect();
    files.sort();
    files
}

/// A leaf of the tree: kind, text, byte range, parent kind.
struct Leaf {
    kind: String,
    text: String,
    end: usize,
    parent: String,
}

/// Every leaf in document order (iterative: inputs may nest deeply).
fn leaves(dialect: Dialect, text: &str) -> Vec<Leaf> {
    let tree = wirelens_core::syntax::parse(dialect, text, None).expect("parser");
    let mut out = Vec::new();
    let mut parents: Vec<String> = Vec::new();
    let mut cursor = tree.walk();
    'outer: loop {
        let node = cursor.node();
        if node.child_count() == 0 || node.kind() == "comment" {
            out.push(Leaf {
                kind: node.kind().to_string(),
                text: text[node.byte_range()].to_string(),
                end: node.end_byte(),
                parent: parents.last().cloned().unwrap_or_default(),
            });
        } else {
            parents.push(node.kind().to_string());
            if cursor.goto_first_child() {
                continue;
            }
            parents.pop();
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() {
                break 'outer;
            }
            parents.pop();
        }
    }
    out
}

/// What the schema says: the non-comment tokens, without the separators the formatter
/// normalises (`,` between SDP fields; `\n` and `;` terminators in ffire).
fn tokens(dialect: Dialect, text: &str) -> Vec<String> {
    leaves(dialect, text)
        .into_iter()
        .filter(|l| l.kind != "comment")
        .filter(|l| match dialect {
            Dialect::Sdp => !(l.kind == "," && l.parent == "field_list"),
            Dialect::Ffi => l.kind != "\n" && l.kind != ";",
        })
        .map(|l| l.text.replace("\r\n", "\n"))
        .collect()
}

/// Every comment, in order, without trailing whitespace on its lines (the formatter's
/// only change to a comment). Comments inside verbatim Go declarations count too.
fn comments(dialect: Dialect, text: &str) -> Vec<String> {
    leaves(dialect, text)
        .into_iter()
        .filter(|l| l.kind == "comment")
        .map(|l| l.text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n"))
        .collect()
}

/// The output rules that hold for every formatted text.
fn assert_clean(out: &str, what: &str) {
    if out.is_empty() {
        return;
    }
    assert!(
        out.ends_with('\n') && !out.ends_with("\n\n"),
        "{what}: must end with exactly one newline:\n{out}"
    );
    assert!(!out.starts_with('\n'), "{what}: leading blank line:\n{out}");
    assert!(!out.contains("\n\n\n"), "{what}: two blank lines in a row:\n{out}");
    assert!(!out.contains('\r'), "{what}: CR in output:\n{out:?}");
    for (i, line) in out.lines().enumerate() {
        assert_eq!(
            line,
            line.trim_end(),
            "{what}: trailing whitespace on line {}:\n{out}",
            i + 1
        );
    }
}

/// Formats `text` and checks everything that must hold: idempotence, the same tokens,
/// the same comments, clean output. Returns the output.
fn check(dialect: Dialect, text: &str, what: &str) -> String {
    let out = format(dialect, text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_clean(&out, what);
    let again = format(dialect, &out).unwrap_or_else(|e| panic!("{what}: output does not parse: {e}\n{out}"));
    assert_eq!(
        again, out,
        "{what}: not idempotent\n--- input\n{text}\n--- once\n{out}\n--- twice\n{again}"
    );
    assert_eq!(
        tokens(dialect, &out),
        tokens(dialect, text),
        "{what}: tokens changed\n--- input\n{text}\n--- output\n{out}"
    );
    assert_eq!(
        comments(dialect, &out),
        comments(dialect, text),
        "{what}: comments changed\n--- input\n{text}\n--- output\n{out}"
    );
    out
}

fn sdp(text: &str) -> String {
    check(Dialect::Sdp, text, "sdp")
}

fn ffi(text: &str) -> String {
    check(Dialect::Ffi, text, "ffi")
}

// ---- the shared vectors ----

#[test]
fn fmt_every_vector_schema_formats_idempotently_keeping_tokens_and_comments() {
    let mut count = 0;
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        for path in schemas(dialect) {
            let text = std::fs::read_to_string(&path).unwrap();
            let out = check(dialect, &text, &path.display().to_string());
            assert_eq!(comments(dialect, &out).len(), comments(dialect, &text).len());
            // The CRLF twin of every vector formats to the same text.
            let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
            assert_eq!(check(dialect, &crlf, "crlf"), out, "{}: CRLF", path.display());
            count += 1;
        }
    }
    assert!(count >= 20, "expected the 20 vector schemas, found {count}");
}

#[test]
fn fmt_canonical_vectors_are_fixed_points() {
    // These are already written in the canonical style.
    for (dialect, name) in [
        (Dialect::Sdp, "optional.sdp"),
        (Dialect::Sdp, "message_test.sdp"),
        (Dialect::Sdp, "valid_complex.sdp"),
        (Dialect::Ffi, "struct.ffi"),
        (Dialect::Ffi, "optional.ffi"),
        (Dialect::Ffi, "nested.ffi"),
        (Dialect::Ffi, "array_struct.ffi"),
    ] {
        let path = Path::new(VECTORS).join(dialect.name()).join("schemas").join(name);
        let text = std::fs::read_to_string(&path).unwrap().replace("\r\n", "\n");
        assert_eq!(format(dialect, &text).unwrap(), text, "{name}");
    }
}

#[test]
fn fmt_vector_complex_ffi_is_aligned_like_gofmt() {
    // `gofmt` output for the vector (its tags were not aligned).
    let path = Path::new(VECTORS).join("ffi/schemas/complex.ffi");
    let out = format(Dialect::Ffi, &std::fs::read_to_string(path).unwrap()).unwrap();
    let plugin = "\
type Plugin struct {
\tName           string      `json:\"name\"`
\tManufacturerID string      `json:\"manufacturerID\"`
\tType           string      `json:\"type\"`
\tSubtype        string      `json:\"subtype\"`
\tParameters     []Parameter `json:\"parameters\"`
}
";
    assert!(out.contains(plugin), "{out}");
    assert!(
        out.contains("\tAddress             int32     `json:\"address\"`\n"),
        "{out}"
    );
}

// ---- SDP style ----

#[test]
fn fmt_sdp_messy_input_to_canonical() {
    let input = "// header\n\n\n/// Doc A\nstruct   A{a:u32,b : Option< B >,// trailing b\n\n\n  c:[ ] Box <B> // last, no comma\n}\nstruct B {\n\n}\n// between\nstruct C { // brace\n}\nstruct D {\n  // only a comment\n}\nstruct E { x: u8 } // after E\n\n\n\n// end\n";
    let expected = "\
// header

/// Doc A
struct A {
    a: u32,
    b: Option<B>, // trailing b

    c: []Box<B>, // last, no comma
}

struct B {}

// between
struct C { // brace
}

struct D {
    // only a comment
}

struct E {
    x: u8,
} // after E

// end
";
    assert_eq!(sdp(input), expected);
}

#[test]
fn fmt_sdp_doc_comments_stay_above_their_field() {
    let input = "/// A request\nstruct Request {\n  /// id\n  id: u32,\n\n  /// Optional\n  /// metadata\n  metadata: Option<Meta>\n}\n/// Meta\nstruct Meta { user: u64 }";
    let expected = "\
/// A request
struct Request {
    /// id
    id: u32,

    /// Optional
    /// metadata
    metadata: Option<Meta>,
}

/// Meta
struct Meta {
    user: u64,
}
";
    assert_eq!(sdp(input), expected);
}

#[test]
fn fmt_sdp_comment_after_unterminated_last_field_follows_the_new_comma() {
    assert_eq!(
        sdp("struct A {\n    a: u32,\n    b: u32 // why\n}\n"),
        "struct A {\n    a: u32,\n    b: u32, // why\n}\n"
    );
    assert_eq!(
        sdp("struct A {\n    b: u32\n    // below\n}\n"),
        "struct A {\n    b: u32,\n    // below\n}\n"
    );
    assert_eq!(
        sdp("struct A { a: u32\n, // on the comma line\nb: u8 }"),
        "struct A {\n    a: u32, // on the comma line\n    b: u8,\n}\n"
    );
}

#[test]
fn fmt_sdp_missing_trailing_comma_and_one_line_structs() {
    assert_eq!(sdp("struct A{a:u32}"), "struct A {\n    a: u32,\n}\n");
    assert_eq!(
        sdp("struct A { a: u32, b: []str }struct B{}"),
        "struct A {\n    a: u32,\n    b: []str,\n}\n\nstruct B {}\n"
    );
}

#[test]
fn fmt_sdp_types_lose_their_inner_spaces() {
    assert_eq!(
        sdp("struct A { a : [ ] [ ]  u8 , b: Option <\n Foo\n > , c: Box< Bar >, d: [] Option<Foo> }"),
        "struct A {\n    a: [][]u8,\n    b: Option<Foo>,\n    c: Box<Bar>,\n    d: []Option<Foo>,\n}\n"
    );
}

#[test]
fn fmt_sdp_crlf_input_formats_to_lf() {
    let input = "/// CRLF file  \r\nstruct Example {\r\n    field: u32, // note \r\n\r\n\r\n    other: str\r\n}\r\n";
    let expected = "/// CRLF file\nstruct Example {\n    field: u32, // note\n\n    other: str,\n}\n";
    assert_eq!(sdp(input), expected);
}

#[test]
fn fmt_sdp_comments_inside_a_field_move_above_it() {
    let input = "struct A {\n    a // c1\n    : // c2\n    u32 // c3\n    , // c4\n    b: u32\n}\n";
    let expected = "struct A {\n    // c1\n    // c2\n    a: u32, // c3\n    // c4\n    b: u32,\n}\n";
    assert_eq!(sdp(input), expected);
    assert_eq!(sdp("struct // c\nA {}"), "// c\nstruct A {}\n");
}

#[test]
fn fmt_sdp_blank_lines_collapse_and_leave_brace_edges() {
    let input = "\n\n\nstruct A {\n\n\n    a: u32,\n\n\n\n    // c\n\n\n    b: u32,\n\n\n}\n\n\n\n\nstruct B {}\n\n\n";
    let expected = "struct A {\n    a: u32,\n\n    // c\n\n    b: u32,\n}\n\nstruct B {}\n";
    assert_eq!(sdp(input), expected);
}

// ---- ffire style ----

#[test]
fn fmt_ffi_fields_tags_and_comments_align_like_gofmt() {
    let input = "package x // pkg comment
// after
type T struct {
A int `json:\"a\"`
\tBbbbbbbbbb string // comment
  C int // c
\tD int `json:\"d\"` // dd
\t/* own */
\tE int
\tFF, G int
\tEmbedded
\t*Ptr `tag:\"x\"` // yy
\tEmb2 // zz

\tH int   // after blank
}
";
    let expected = "package x // pkg comment

// after
type T struct {
\tA          int    `json:\"a\"`
\tBbbbbbbbbb string // comment
\tC          int    // c
\tD          int    `json:\"d\"` // dd
\t/* own */
\tE     int
\tFF, G int
\tEmbedded
\t*Ptr `tag:\"x\"` // yy
\tEmb2           // zz

\tH int // after blank
}
";
    assert_eq!(ffi(input), expected);
}

#[test]
fn fmt_ffi_groups_nested_structs_and_multiline_fields() {
    let input = "package x
type (
A int
Bbb string // x
Cc = int // y
D struct {
Q int
}
Eeeeee int
)
type P struct {
Xxxxxxx int
Y struct {
Inner int `json:\"i\"`
I2 string // c
} `json:\"y\"`
Z int
}
";
    let expected = "package x

type (
\tA   int
\tBbb string // x
\tCc  = int  // y
\tD   struct {
\t\tQ int
\t}
\tEeeeee int
)

type P struct {
\tXxxxxxx int
\tY       struct {
\t\tInner int    `json:\"i\"`
\t\tI2    string // c
\t} `json:\"y\"`
\tZ int
}
";
    assert_eq!(ffi(input), expected);
}

#[test]
fn fmt_ffi_empty_structs_one_line_structs_and_separators() {
    let input = "package x; type A struct {  }\ntype B struct {\n}\ntype C struct { X int32; Y, Z string }\ntype ( )\ntype (Single int)\n";
    let expected = "package x

type A struct{}

type B struct{}

type C struct {
\tX    int32
\tY, Z string
}

type ()

type (
\tSingle int
)
";
    assert_eq!(ffi(input), expected);
    assert_eq!(
        ffi("package x\ntype W struct { // brace\n}\n"),
        "package x\n\ntype W struct { // brace\n}\n"
    );
    assert_eq!(
        ffi("package x\ntype Y struct {\n// only\n}\n"),
        "package x\n\ntype Y struct {\n\t// only\n}\n"
    );
}

#[test]
fn fmt_ffi_types_are_written_without_spaces() {
    let input = "package x\ntype M map [ string ] * [ ] int\ntype Ch chan <- chan int\ntype R <- chan int\ntype Q pkg . T\ntype Arr [ 4 ] [ ] int\ntype I interface {   }\ntype F func() error\n";
    let expected = "package x

type M map[string]*[]int

type Ch chan<- chan int

type R <-chan int

type Q pkg.T

type Arr [4][]int

type I interface{}

type F func() error
";
    assert_eq!(ffi(input), expected);
}

#[test]
fn fmt_ffi_directive_doc_comments_and_ignored_declarations() {
    let input = "//wirelens:order declaration
package   test
import \"fmt\"   
const C = 1 // c  
func f(a int) (int, error) {   
\treturn 0, nil   
}
// Config is the root.
type Config struct {
\tHost string `json:\"host\"`
}
";
    let expected = "//wirelens:order declaration
package test

import \"fmt\"

const C = 1 // c

func f(a int) (int, error) {
\treturn 0, nil
}

// Config is the root.
type Config struct {
\tHost string `json:\"host\"`
}
";
    assert_eq!(ffi(input), expected);
}

#[test]
fn fmt_ffi_verbatim_declarations_keep_raw_string_contents() {
    let input = "package x\nconst C = `raw  \r\n  kept   \r\n` // c\n";
    // Trailing blanks inside a raw string are its value; only the CR of CRLF goes.
    let out = format(Dialect::Ffi, input).unwrap();
    assert_eq!(out, "package x\n\nconst C = `raw  \n  kept   \n` // c\n");
    assert_eq!(format(Dialect::Ffi, &out).unwrap(), out);
    assert_eq!(tokens(Dialect::Ffi, &out), tokens(Dialect::Ffi, input));
}

#[test]
fn fmt_ffi_crlf_and_comments_inside_declarations() {
    let input =
        "package x\r\n\r\ntype /* c1 */ T struct { // brace\r\n\tA /* c2 */ int32 // a  \r\n\tB string\r\n}\r\n";
    let expected = "package x\n\n/* c1 */\ntype T struct { // brace\n\t/* c2 */\n\tA int32 // a\n\tB string\n}\n";
    assert_eq!(ffi(input), expected);
}

#[test]
fn fmt_ffi_trailing_block_comments() {
    let input = "package x\ntype Q struct {\n\tA int /* a */ /* b */\n\tBb int /* c */ // d\n\tCcc int\n\tD int /* multi\n\tline */\n\tEe int\n}\n";
    let expected = "package x

type Q struct {
\tA   int /* a */ /* b */
\tBb  int /* c */ // d
\tCcc int
\tD int /* multi
\tline */
\tEe int
}
";
    assert_eq!(ffi(input), expected);
}

// ---- refusals, edge files ----

#[test]
fn fmt_syntax_errors_are_refused_with_their_position() {
    assert_eq!(
        format(Dialect::Sdp, "struct A {\n    a: u32,\n    b: }\n"),
        Err(FormatError::Syntax { line: 2, column: 6 })
    );
    assert_eq!(
        format(Dialect::Sdp, "struct A { a u32 }"),
        Err(FormatError::Syntax { line: 0, column: 11 })
    );
    assert_eq!(
        format(Dialect::Sdp, "struct A {\n    a: u32"),
        Err(FormatError::Syntax { line: 1, column: 10 })
    );
    assert_eq!(
        format(Dialect::Ffi, "package x\n\ntype A struct {\n\tB int32 C int32\n}\n"),
        Err(FormatError::Syntax { line: 3, column: 3 })
    );
    let err = format(Dialect::Sdp, "struct A { a u32 }").unwrap_err();
    assert_eq!(err.to_string(), "not formatted: syntax error at line 1, column 12");
}

#[test]
fn fmt_empty_and_comment_only_files() {
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        assert_eq!(format(dialect, "").unwrap(), "");
        assert_eq!(format(dialect, "\n\n  \r\n\t\n").unwrap(), "");
        assert_eq!(
            check(dialect, "\n\n// one  \n\n\n\n// two\r\n// three\n\n", "comments only"),
            "// one\n\n// two\n// three\n"
        );
    }
    assert_eq!(ffi("/* block\n   comment */"), "/* block\n   comment */\n");
}

// ---- robustness ----

#[test]
fn fmt_large_generated_inputs_format_quickly() {
    let mut sdp_text = String::new();
    let mut ffi_text = String::from("package big\n");
    for i in 0..5000 {
        sdp_text.push_str(&format!(
            "/// S{i}\nstruct S{i} {{ id: u32, name : str, next: Option<S{}>, items: [ ]u8 // c\n}}\n",
            i + 1
        ));
        ffi_text.push_str(&format!(
            "// T{i}\ntype T{i} struct {{ ID int64 `json:\"id\"`; Name string // c\nNext *T{} }}\n",
            i + 1
        ));
    }
    for (dialect, text) in [(Dialect::Sdp, sdp_text), (Dialect::Ffi, ffi_text)] {
        let start = Instant::now();
        let out = format(dialect, &text).unwrap();
        let took = start.elapsed();
        assert!(took < Duration::from_secs(60), "{dialect:?}: {took:?}");
        assert_clean(&out, "large");
        assert_eq!(format(dialect, &out).unwrap(), out);
        assert_eq!(tokens(dialect, &out), tokens(dialect, &text));
        assert_eq!(comments(dialect, &out).len(), 10_000);
    }
}

#[test]
fn fmt_deep_nesting_does_not_overflow_the_stack() {
    let n = 100_000;
    let text = format!("struct A {{ a: {}u8 }}", "[]".repeat(n));
    let out = format(Dialect::Sdp, &text).unwrap();
    assert_eq!(out, format!("struct A {{\n    a: {}u8,\n}}\n", "[]".repeat(n)));
    let text = format!("struct A {{ a: {}B{} }}", "Option<".repeat(n / 10), ">".repeat(n / 10));
    assert!(format(Dialect::Sdp, &text).is_ok());
    let text = format!("package x\ntype A {}int\n", "*".repeat(n));
    assert_eq!(
        format(Dialect::Ffi, &text).unwrap(),
        format!("package x\n\ntype A {}int\n", "*".repeat(n))
    );
    // Anonymous structs (ffire rejects them) nested up to the type-depth limit are
    // formatted; deeper ones are refused, since indenting them costs quadratic output.
    let nest = |depth: usize| {
        format!(
            "package x\ntype A {}int{}\n",
            "struct { F ".repeat(depth),
            " }".repeat(depth)
        )
    };
    let depth = wirelens_core::fmt::MAX_FORMAT_NESTING;
    let out = format(Dialect::Ffi, &nest(depth)).unwrap();
    assert_eq!(format(Dialect::Ffi, &out).unwrap(), out);
    assert!(out.contains(&format!("{}F int\n", "\t".repeat(depth))));
    for depth in [depth + 1, 500, 40_000] {
        assert!(matches!(
            format(Dialect::Ffi, &nest(depth)),
            Err(FormatError::TooDeep { line: 1, .. })
        ));
    }
}

/// A small deterministic generator (no dependencies).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Rewrites the gaps between tokens of `text`: random whitespace, line endings and
/// comments in random places; for SDP, commas randomly dropped or kept.
fn mutate(dialect: Dialect, text: &str, rng: &mut Lcg) -> String {
    let leaves = leaves(dialect, text);
    let mut out = String::new();
    let mut at = 0;
    for (i, leaf) in leaves.iter().enumerate() {
        let start = leaf.end - leaf.text.len();
        let gap = &text[at..start];
        if dialect == Dialect::Sdp && leaf.kind == "," && rng.below(4) == 0 {
            // Dropping the comma before `}` keeps the file valid.
            if leaves.get(i + 1).is_some_and(|n| n.kind == "}") {
                at = leaf.end;
                out.push_str(gap);
                continue;
            }
        }
        match rng.below(10) {
            0 => out.push_str(&format!(" // m{i}  \n")),
            1 if dialect == Dialect::Ffi => out.push_str(&format!(" /* m{i} */ ")),
            2 => out.push_str(&gap.replace('\n', "\r\n")),
            3 => out.push_str(&gap.replace('\n', "\n\n\n")),
            4 if !gap.contains('\n') || dialect == Dialect::Sdp => {
                out.push_str(if gap.is_empty() { "" } else { "  \t" })
            }
            5 if dialect == Dialect::Sdp => out.push_str(" \n "),
            _ => out.push_str(gap),
        }
        out.push_str(&leaf.text);
        at = leaf.end;
    }
    out.push_str(&text[at..]);
    out
}

#[test]
fn fmt_mutated_vectors_keep_every_invariant() {
    let mut rng = Lcg(0x5eed);
    let mut formatted = 0;
    let mut refused = 0;
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        for path in schemas(dialect) {
            let text = std::fs::read_to_string(&path).unwrap();
            for round in 0..40 {
                let input = mutate(dialect, &text, &mut rng);
                match format(dialect, &input) {
                    Ok(_) => {
                        check(dialect, &input, &format!("{} round {round}", path.display()));
                        formatted += 1;
                    }
                    Err(FormatError::Syntax { .. } | FormatError::TooDeep { .. }) => refused += 1,
                }
            }
        }
    }
    assert!(
        formatted > 500,
        "only {formatted} mutants formatted ({refused} refused)"
    );
}
