//! `editors/helix`: the `languages.toml` entries and the Helix copies of the queries.
//!
//! No Helix binary is available to the tests, so this checks what Helix would reject or
//! get wrong, from Helix's documentation (book: `languages.md`, `themes.md` "Syntax
//! highlighting", `guides/indent.md`, `guides/locals.md`, `guides/textobject.md`):
//!
//! - `languages.toml` is TOML with the documented keys; each language uses the `wirelens
//!   lsp` server, a grammar entry whose subpath is this repository's grammar (and whose C
//!   symbol has the grammar's name, which Helix loads), comment tokens the grammar parses as
//!   comments, and the indent unit `wirelens fmt` writes in the examples;
//! - every query compiles against the grammar, uses only capture names Helix knows and only
//!   predicates Helix evaluates;
//! - the highlights, indents and locals capture exactly the nodes the canonical queries in
//!   `grammar/*/queries` capture, under the Helix name of each canonical capture (the table
//!   below), on every example, test schema and corpus case: a change to the canonical
//!   queries fails here until the Helix copy follows.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

use tree_sitter::{Language, Parser, Query, QueryCursor, StreamingIterator, Tree};
use tree_sitter_wirelens as tsw;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn helix() -> PathBuf {
    root().join("editors").join("helix")
}

fn language(dialect: &str) -> Language {
    match dialect {
        "sdp" => tsw::LANGUAGE_SDP.into(),
        "ffi" => tsw::LANGUAGE_FFI.into(),
        _ => unreachable!(),
    }
}

/// The canonical query of a kind, as the `tree-sitter-wirelens` crate ships it.
fn canonical(dialect: &str, kind: &str) -> &'static str {
    match (dialect, kind) {
        ("sdp", "highlights") => tsw::HIGHLIGHTS_QUERY_SDP,
        ("sdp", "indents") => tsw::INDENTS_QUERY_SDP,
        ("sdp", "locals") => tsw::LOCALS_QUERY_SDP,
        ("ffi", "highlights") => tsw::HIGHLIGHTS_QUERY_FFI,
        ("ffi", "indents") => tsw::INDENTS_QUERY_FFI,
        ("ffi", "locals") => tsw::LOCALS_QUERY_FFI,
        _ => unreachable!(),
    }
}

fn helix_query_text(dialect: &str, kind: &str) -> String {
    let path = helix()
        .join("runtime/queries")
        .join(dialect)
        .join(format!("{kind}.scm"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn compile(dialect: &str, what: &str, text: &str) -> Query {
    Query::new(&language(dialect), text).unwrap_or_else(|e| panic!("{what} ({dialect}) does not compile: {e}"))
}

// ---------------------------------------------------------------------------------------
// Capture names Helix knows.

/// The syntax-highlighting scopes of Helix's `themes.md` (every level of the tree).
const HIGHLIGHT_SCOPES: &[&str] = &[
    "attribute",
    "type",
    "type.builtin",
    "type.parameter",
    "type.enum",
    "type.enum.variant",
    "constructor",
    "constant",
    "constant.builtin",
    "constant.builtin.boolean",
    "constant.character",
    "constant.character.escape",
    "constant.numeric",
    "constant.numeric.integer",
    "constant.numeric.float",
    "string",
    "string.regexp",
    "string.special",
    "string.special.path",
    "string.special.url",
    "string.special.symbol",
    "comment",
    "comment.line",
    "comment.line.documentation",
    "comment.block",
    "comment.block.documentation",
    "comment.unused",
    "variable",
    "variable.builtin",
    "variable.parameter",
    "variable.other",
    "variable.other.member",
    "variable.other.member.private",
    "label",
    "punctuation",
    "punctuation.delimiter",
    "punctuation.bracket",
    "punctuation.special",
    "keyword",
    "keyword.control",
    "keyword.control.conditional",
    "keyword.control.repeat",
    "keyword.control.import",
    "keyword.control.return",
    "keyword.control.exception",
    "keyword.operator",
    "keyword.directive",
    "keyword.function",
    "keyword.storage",
    "keyword.storage.type",
    "keyword.storage.modifier",
    "operator",
    "function",
    "function.builtin",
    "function.method",
    "function.method.private",
    "function.macro",
    "function.special",
    "tag",
    "tag.builtin",
    "namespace",
    "special",
];

/// `guides/indent.md`: the capture types of indent queries.
const INDENT_CAPTURES: &[&str] = &[
    "indent",
    "outdent",
    "indent.always",
    "outdent.always",
    "extend",
    "extend.prevent-once",
    "align",
    "anchor",
];

/// `guides/textobject.md` (and `.movement` for navigation).
fn is_textobject_capture(name: &str) -> bool {
    let Some((object, part)) = name.split_once('.') else {
        return false;
    };
    ["function", "class", "test", "parameter", "comment", "entry"].contains(&object)
        && ["inside", "around", "movement"].contains(&part)
}

/// `guides/locals.md`: `@local.scope`, `@local.reference`, `@local.definition.<scope>`
/// where the suffix is the highlight a resolved reference gets.
fn is_locals_capture(name: &str) -> bool {
    match name {
        "local.scope" | "local.reference" => true,
        _ => name
            .strip_prefix("local.definition.")
            .is_some_and(|scope| HIGHLIGHT_SCOPES.contains(&scope)),
    }
}

fn known_to_helix(kind: &str, name: &str) -> bool {
    // `@_name` captures only feed predicates; Helix ignores them.
    name.starts_with('_')
        || match kind {
            "highlights" => HIGHLIGHT_SCOPES.contains(&name),
            "indents" => INDENT_CAPTURES.contains(&name),
            "locals" => is_locals_capture(name),
            "textobjects" => is_textobject_capture(name),
            _ => unreachable!(),
        }
}

const KINDS: [&str; 4] = ["highlights", "indents", "locals", "textobjects"];

#[test]
fn helix_has_exactly_these_query_files() {
    for dialect in ["sdp", "ffi"] {
        let dir = helix().join("runtime/queries").join(dialect);
        let found: BTreeSet<String> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let expected: BTreeSet<String> = KINDS.iter().map(|k| format!("{k}.scm")).collect();
        assert_eq!(found, expected, "{}", dir.display());
    }
}

#[test]
fn helix_queries_compile_with_known_captures_and_predicates() {
    for dialect in ["sdp", "ffi"] {
        for kind in KINDS {
            let query = compile(dialect, &format!("helix {kind}"), &helix_query_text(dialect, kind));
            let unknown: Vec<&str> = query
                .capture_names()
                .iter()
                .copied()
                .filter(|n| !known_to_helix(kind, n))
                .collect();
            assert!(
                unknown.is_empty(),
                "editors/helix/runtime/queries/{dialect}/{kind}.scm: captures Helix does not know: {unknown:?}"
            );
            // `#eq?`, `#match?`, `#any-of?` and their negations are evaluated by the query
            // cursor (and by Helix); anything else would be an editor extension.
            for i in 0..query.pattern_count() {
                let general: Vec<String> = query
                    .general_predicates(i)
                    .iter()
                    .map(|p| p.operator.to_string())
                    .collect();
                assert!(
                    general.is_empty(),
                    "{dialect}/{kind}.scm pattern {i}: predicates Helix may not evaluate: {general:?}"
                );
                assert!(
                    query.property_settings(i).is_empty() && query.property_predicates(i).is_empty(),
                    "{dialect}/{kind}.scm pattern {i}: #set! / #is? are not used by these queries"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Same nodes as the canonical queries.

/// The Helix name of each canonical capture (`None`: Helix has no counterpart).
fn helix_name(dialect: &str, kind: &str, canonical: &str) -> Option<Option<&'static str>> {
    let name = match (kind, canonical) {
        ("highlights", "keyword") => Some("keyword"),
        ("highlights", "keyword.type") => Some("keyword.storage.type"),
        ("highlights", "keyword.function") => Some("keyword.function"),
        ("highlights", "keyword.directive") => Some("keyword.directive"),
        ("highlights", "type") | ("highlights", "type.definition") => Some("type"),
        ("highlights", "type.builtin") => Some("type.builtin"),
        ("highlights", "module") => Some("namespace"),
        ("highlights", "variable.member") => Some("variable.other.member"),
        ("highlights", "function") => Some("function"),
        ("highlights", "constant") => Some("constant"),
        ("highlights", "string") => Some("string"),
        ("highlights", "string.special") => Some("string.special"),
        ("highlights", "character") => Some("constant.character"),
        ("highlights", "number") => Some("constant.numeric.integer"),
        ("highlights", "number.float") => Some("constant.numeric.float"),
        // SDP has only line comments; ffire also has `/* */`.
        ("highlights", "comment") if dialect == "sdp" => Some("comment.line"),
        ("highlights", "comment") => Some("comment"),
        ("highlights", "comment.documentation") if dialect == "sdp" => Some("comment.line.documentation"),
        ("highlights", "operator") => Some("operator"),
        ("highlights", "punctuation.bracket") => Some("punctuation.bracket"),
        ("highlights", "punctuation.delimiter") => Some("punctuation.delimiter"),
        // nvim-treesitter's indent captures: a block begins (`@indent`), its closing
        // delimiter is a branch back to the outer level (`@outdent`); Helix needs no end
        // marker and has no `@indent.auto`.
        ("indents", "indent.begin") => Some("indent"),
        ("indents", "indent.branch") => Some("outdent"),
        ("indents", "indent.end") | ("indents", "indent.auto") => None,
        ("locals", "local.scope") => Some("local.scope"),
        ("locals", "local.reference") => Some("local.reference"),
        ("locals", "local.definition.type") => Some("local.definition.type"),
        ("locals", "local.definition.field") => Some("local.definition.variable.other.member"),
        _ => return None,
    };
    Some(name)
}

/// Every capture of `query` on `tree`: (start byte, end byte, capture name).
fn capture_set(query: &Query, tree: &Tree, source: &[u8]) -> BTreeSet<(usize, usize, String)> {
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), source);
    let mut out = BTreeSet::new();
    while let Some(m) = matches.next() {
        for c in m.captures() {
            let name = query.capture_names()[c.index as usize];
            if !name.starts_with('_') {
                out.insert((c.node.start_byte(), c.node.end_byte(), name.to_string()));
            }
        }
    }
    out
}

/// The sources of a corpus file's cases (between the header and the `---` divider).
fn corpus_sources(content: &str) -> Vec<String> {
    let is_rule = |line: &str, c: char| line.len() >= 3 && line.trim_end().chars().all(|x| x == c);
    let lines: Vec<&str> = content.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        // `===`, name (and attributes), `===`, source, `---`, tree.
        let Some(close) = (i + 1..lines.len()).find(|&j| is_rule(lines[j], '=')) else {
            break;
        };
        let end = (close + 1..lines.len())
            .find(|&j| is_rule(lines[j], '=') && j + 1 < lines.len() && !is_rule(lines[j + 1], '='))
            .unwrap_or(lines.len());
        let divider = (close + 1..end).rev().find(|&j| is_rule(lines[j], '-')).unwrap_or(end);
        out.push(lines[close + 1..divider].join("\n") + "\n");
        i = end;
    }
    out
}

/// Constructs the files on disk may lack: every node kind a query pattern names.
const EXTRA_SDP: &str = "/// A doc comment.\n// A plain comment.\nstruct A {\n    a: u8,\n    b: []Option<B>,\n    c: Option<Box<B>>,\n    d: [][]str,\n}\n\nstruct B {\n    x: f64,\n}\n";
const EXTRA_FFI: &str = r#"//wirelens:order declaration
package extra

import (
	"fmt"
	m "math"
)

const (
	A = `raw` + `joined`
	B = -`neg`
	C = (`paren`)
	D = 1.5
	E = 'x'
)

var F, G = `one`, "two"

type (
	Alias = Node
	Node  struct {
		Next  *Node  `json:"next"`
		Items []Leaf `json:"items"`
		N     int32
	}
)

type Leaf struct{ V float64 }

type Weird struct {
	M map[string]int
	C chan<- int
	I interface{}
	A [4]byte
	F func(`p`) string
}

/* A block comment. */
func helper(s string) error {
	x := fmt.Sprintf(`%d`, 1)
	if x == `y` {
		return nil
	}
	for i := range s {
		_ = i
	}
	return m.Err(`e`)
}
"#;

/// Examples, the broken-schema tests, the vectors' schemas, every corpus case and the
/// extra sample above.
fn samples(dialect: &str) -> Vec<(String, String)> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<(String, String)>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push((p.display().to_string(), fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let root = root();
    let mut out = Vec::new();
    for dir in ["examples", "tests/schemas", "tests/vectors"] {
        walk(&root.join(dir), dialect, &mut out);
    }
    let corpus = root.join("grammar").join(dialect).join("test/corpus");
    let mut files: Vec<PathBuf> = fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        for (i, s) in corpus_sources(&fs::read_to_string(&f).unwrap()).into_iter().enumerate() {
            out.push((format!("{} case {}", f.display(), i + 1), s));
        }
    }
    let extra = if dialect == "sdp" { EXTRA_SDP } else { EXTRA_FFI };
    out.push(("the extra sample".to_string(), extra.to_string()));
    out
}

#[test]
fn extra_samples_parse() {
    for (dialect, source) in [("sdp", EXTRA_SDP), ("ffi", EXTRA_FFI)] {
        let mut parser = Parser::new();
        parser.set_language(&language(dialect)).unwrap();
        let tree = parser.parse(source, None).unwrap();
        assert!(
            !tree.root_node().has_error(),
            "{dialect}: {}",
            tree.root_node().to_sexp()
        );
    }
}

fn assert_same_nodes(dialect: &str, kind: &str) {
    let lang = language(dialect);
    let ours = compile(dialect, &format!("canonical {kind}"), canonical(dialect, kind));
    let theirs = compile(dialect, &format!("helix {kind}"), &helix_query_text(dialect, kind));
    let samples = samples(dialect);
    assert!(samples.len() > 10, "{dialect}: only {} samples", samples.len());
    let mut parser = Parser::new();
    parser.set_language(&lang).unwrap();
    let mut compared = 0;
    for (name, source) in &samples {
        let tree = parser.parse(source, None).unwrap();
        let mut expected = BTreeSet::new();
        for (start, end, capture) in capture_set(&ours, &tree, source.as_bytes()) {
            let mapped = helix_name(dialect, kind, &capture).unwrap_or_else(|| {
                panic!("{dialect}/{kind}: no Helix name for the canonical capture @{capture} (add it to helix_name and to editors/helix)")
            });
            if let Some(h) = mapped {
                expected.insert((start, end, h.to_string()));
            }
        }
        let got = capture_set(&theirs, &tree, source.as_bytes());
        if expected != got {
            let show = |set: &BTreeSet<(usize, usize, String)>, other: &BTreeSet<(usize, usize, String)>| {
                set.difference(other)
                    .map(|(s, e, n)| format!("  @{n} on {:?} ({s}..{e})", &source[*s..*e]))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "editors/helix/runtime/queries/{dialect}/{kind}.scm differs from grammar/{dialect}/queries/{kind}.scm on {name}\nmissing in Helix:\n{}\nonly in Helix:\n{}",
                show(&expected, &got),
                show(&got, &expected)
            );
        }
        compared += expected.len();
    }
    assert!(compared > 0, "{dialect}/{kind}: nothing captured on any sample");
}

#[test]
fn helix_highlights_capture_the_canonical_nodes() {
    assert_same_nodes("sdp", "highlights");
    assert_same_nodes("ffi", "highlights");
}

#[test]
fn helix_indents_capture_the_canonical_nodes() {
    assert_same_nodes("sdp", "indents");
    assert_same_nodes("ffi", "indents");
}

#[test]
fn helix_locals_capture_the_canonical_nodes() {
    assert_same_nodes("sdp", "locals");
    assert_same_nodes("ffi", "locals");
}

#[test]
fn helix_textobjects_select_types_fields_and_comments() {
    // capture → the node kinds it may select
    type Allowed = &'static [(&'static str, &'static [&'static str])];
    let expected: [(&str, Allowed); 2] = [
        (
            "sdp",
            &[
                ("class.around", &["struct_item"]),
                ("class.inside", &["field_list"]),
                ("entry.around", &["field_declaration"]),
                ("comment.inside", &["comment"]),
                ("comment.around", &["comment"]),
            ],
        ),
        (
            "ffi",
            &[
                ("class.around", &["type_spec", "type_alias"]),
                (
                    "class.inside",
                    &["struct_type", "type_identifier", "slice_type", "pointer_type"],
                ),
                ("entry.around", &["field_declaration"]),
                ("function.around", &["function_declaration"]),
                ("function.inside", &["block"]),
                ("comment.inside", &["comment"]),
                ("comment.around", &["comment"]),
            ],
        ),
    ];
    for (dialect, table) in expected {
        let lang = language(dialect);
        let query = compile(dialect, "helix textobjects", &helix_query_text(dialect, "textobjects"));
        let mut parser = Parser::new();
        parser.set_language(&lang).unwrap();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let mut structs = 0;
        let mut classes = 0;
        for (name, source) in samples(dialect).iter().filter(|(n, _)| n.contains("examples")) {
            let tree = parser.parse(source, None).unwrap();
            let mut cursor = QueryCursor::new();
            let mut matches = cursor.matches(&query, tree.root_node(), source.as_bytes());
            while let Some(m) = matches.next() {
                for c in m.captures() {
                    let capture = query.capture_names()[c.index as usize];
                    let allowed = table
                        .iter()
                        .find(|(n, _)| *n == capture)
                        .unwrap_or_else(|| panic!("{dialect}: unexpected textobject @{capture}"))
                        .1;
                    assert!(
                        allowed.contains(&c.node.kind()),
                        "{dialect} {name}: @{capture} selects a {} node",
                        c.node.kind()
                    );
                    *seen.entry(capture.to_string()).or_default() += 1;
                    classes += usize::from(capture == "class.around");
                }
            }
            let mut stack = vec![tree.root_node()];
            while let Some(node) = stack.pop() {
                structs += usize::from(["struct_item", "type_spec", "type_alias"].contains(&node.kind()));
                let mut walk = node.walk();
                stack.extend(node.children(&mut walk));
            }
        }
        assert!(structs > 0, "{dialect}: no types in the examples");
        assert_eq!(
            classes, structs,
            "{dialect}: every type of the examples is a @class.around"
        );
        for capture in ["class.inside", "entry.around", "comment.around"] {
            assert!(
                seen.get(capture).copied().unwrap_or(0) > 0,
                "{dialect}: @{capture} never matched: {seen:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// languages.toml

/// `languages.md`: the keys of a `[[language]]` table.
const LANGUAGE_KEYS: &[&str] = &[
    "name",
    "language-id",
    "scope",
    "injection-regex",
    "file-types",
    "shebangs",
    "roots",
    "auto-format",
    "diagnostic-severity",
    "comment-tokens",
    "comment-token",
    "block-comment-tokens",
    "indent",
    "language-servers",
    "grammar",
    "formatter",
    "soft-wrap",
    "text-width",
    "rulers",
    "path-completion",
    "word-completion",
    "workspace-lsp-roots",
    "persistent-diagnostic-sources",
];

fn languages_toml() -> toml::Table {
    let path = helix().join("languages.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display()))
}

fn str_at<'a>(t: &'a toml::Table, key: &str, what: &str) -> &'a str {
    t.get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("{what}: `{key}` must be a string"))
}

fn strings(v: &toml::Value, what: &str) -> Vec<String> {
    match v {
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .unwrap_or_else(|| panic!("{what}: not a string: {x}"))
                    .to_string()
            })
            .collect(),
        other => panic!("{what}: expected a string or an array of strings, got {other}"),
    }
}

/// The text parses without errors into one comment spanning all of it.
fn assert_is_comment(dialect: &str, text: &str) {
    let mut parser = Parser::new();
    parser.set_language(&language(dialect)).unwrap();
    let source = format!("{text}\n");
    let tree = parser.parse(&source, None).unwrap();
    let root = tree.root_node();
    let comment = root.named_child(0);
    assert!(
        !root.has_error()
            && root.named_child_count() == 1
            && comment.is_some_and(|c| c.kind() == "comment" && c.end_byte() == text.len()),
        "{dialect}: {text:?} is not a comment: {}",
        root.to_sexp()
    );
}

#[test]
fn helix_languages_toml() {
    let t = languages_toml();
    let servers = t
        .get("language-server")
        .and_then(|v| v.as_table())
        .expect("a [language-server] table");
    let wirelens = servers
        .get("wirelens")
        .and_then(|v| v.as_table())
        .expect("[language-server.wirelens]");
    assert_eq!(str_at(wirelens, "command", "language-server.wirelens"), "wirelens");
    assert_eq!(
        strings(wirelens.get("args").expect("language-server.wirelens.args"), "args"),
        ["lsp"]
    );

    let languages = t
        .get("language")
        .and_then(|v| v.as_array())
        .expect("[[language]] tables");
    let grammars = t.get("grammar").and_then(|v| v.as_array()).expect("[[grammar]] tables");
    let mut names = Vec::new();
    for l in languages {
        let l = l.as_table().expect("[[language]] is a table");
        let name = str_at(l, "name", "[[language]]");
        names.push(name.to_string());
        let what = format!("language {name}");
        for key in l.keys() {
            assert!(LANGUAGE_KEYS.contains(&key.as_str()), "{what}: unknown key `{key}`");
        }
        let scope = str_at(l, "scope", &what);
        let ts_json = fs::read_to_string(root().join("grammar").join(name).join("tree-sitter.json")).unwrap();
        assert!(
            ts_json.contains(&format!("\"scope\": \"{scope}\"")),
            "{what}: scope {scope} differs from grammar/{name}/tree-sitter.json"
        );
        assert_eq!(strings(l.get("file-types").expect("file-types"), "file-types"), [name]);

        // Language server: only wirelens, and it is defined.
        let used = strings(l.get("language-servers").expect("language-servers"), "language-servers");
        assert_eq!(used, ["wirelens"], "{what}: language-servers");
        for s in &used {
            assert!(servers.contains_key(s), "{what}: language server {s} is not defined");
        }

        // Comments: every token starts a comment the grammar recognises.
        let tokens = strings(
            l.get("comment-tokens")
                .or_else(|| l.get("comment-token"))
                .expect("comment-tokens"),
            "comment-tokens",
        );
        assert!(!tokens.is_empty());
        for tok in &tokens {
            assert_is_comment(name, &format!("{tok} a comment"));
        }
        if let Some(block) = l.get("block-comment-tokens") {
            let pairs: Vec<&toml::Table> = match block {
                toml::Value::Table(t) => vec![t],
                toml::Value::Array(a) => a.iter().map(|x| x.as_table().expect("a {start, end} table")).collect(),
                other => panic!("{what}: block-comment-tokens: {other}"),
            };
            for p in pairs {
                let (start, end) = (str_at(p, "start", &what), str_at(p, "end", &what));
                assert_is_comment(name, &format!("{start} a comment {end}"));
            }
        }

        // Indent: the unit `wirelens fmt` writes, as in the (formatted) examples.
        let indent = l
            .get("indent")
            .and_then(|v| v.as_table())
            .expect("indent = { tab-width, unit }");
        let unit = str_at(indent, "unit", &what);
        let width = indent
            .get("tab-width")
            .and_then(|v| v.as_integer())
            .expect("indent.tab-width");
        assert!(width > 0);
        assert!(
            unit == "\t" || (unit.chars().all(|c| c == ' ') && unit.len() as i64 == width),
            "{what}: indent unit {unit:?}"
        );
        let mut indented = 0;
        for (file, source) in samples(name).iter().filter(|(n, _)| n.contains("examples")) {
            for line in source.lines() {
                let lead = &line[..line.len() - line.trim_start().len()];
                if lead.is_empty() {
                    continue;
                }
                indented += 1;
                assert!(
                    lead.len() % unit.len() == 0 && lead == unit.repeat(lead.len() / unit.len()),
                    "{what}: {file}: indentation {lead:?} is not a multiple of {unit:?}"
                );
            }
        }
        assert!(indented > 0, "{what}: no indented line in the examples");

        // Grammar: this repository's subfolder, whose parser exports tree_sitter_<name>
        // (Helix loads that symbol from the library it builds).
        let grammar_name = l.get("grammar").map_or(name, |g| g.as_str().expect("grammar"));
        let g = grammars
            .iter()
            .filter_map(|g| g.as_table())
            .find(|g| g.get("name").and_then(|n| n.as_str()) == Some(grammar_name))
            .unwrap_or_else(|| panic!("{what}: no [[grammar]] named {grammar_name}"));
        let source = g
            .get("source")
            .and_then(|v| v.as_table())
            .expect("grammar source table");
        let git = str_at(source, "git", "grammar source");
        assert!(git.starts_with("https://"), "{what}: grammar git {git}");
        assert!(!str_at(source, "rev", "grammar source").is_empty());
        let subpath = str_at(source, "subpath", "grammar source");
        assert_eq!(subpath, format!("grammar/{name}"));
        let parser_c =
            fs::read_to_string(root().join(subpath).join("src/parser.c")).expect("src/parser.c in the subpath");
        assert!(
            parser_c.contains(&format!("tree_sitter_{grammar_name}(void)")),
            "{what}: parser.c does not export tree_sitter_{grammar_name}"
        );
        assert!(helix()
            .join("runtime/queries")
            .join(name)
            .join("highlights.scm")
            .is_file());
    }
    assert_eq!(names, ["sdp", "ffi"]);
    assert_eq!(grammars.len(), 2, "one [[grammar]] per language");
}
