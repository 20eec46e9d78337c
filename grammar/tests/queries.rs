//! The query files of both dialects: they compile, and on a representative schema
//! per dialect they produce the highlights, folds and locals an editor would show.
//!
//! `QueryCursor` in tree-sitter 0.27.1 evaluates `#eq?`, `#match?`, `#any-of?` and
//! their `not-`/`any-` forms itself. Every other predicate is left to the caller
//! (`Query::general_predicates`); this file evaluates `#has-parent?` and
//! `#has-ancestor?` (and their `not-` forms, as Neovim does) and fails on any other
//! predicate, so the assertions reflect what a real editor shows.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::{Language, Node, Parser, Query, QueryCursor, QueryMatch, QueryPredicateArg, StreamingIterator, Tree};
use tree_sitter_wirelens as tsw;

struct Dialect {
    name: &'static str,
    language: Language,
    queries: [(&'static str, &'static str); 4],
}

fn dialects() -> [Dialect; 2] {
    [
        Dialect {
            name: "sdp",
            language: tsw::LANGUAGE_SDP.into(),
            queries: [
                ("highlights", tsw::HIGHLIGHTS_QUERY_SDP),
                ("folds", tsw::FOLDS_QUERY_SDP),
                ("indents", tsw::INDENTS_QUERY_SDP),
                ("locals", tsw::LOCALS_QUERY_SDP),
            ],
        },
        Dialect {
            name: "ffi",
            language: tsw::LANGUAGE_FFI.into(),
            queries: [
                ("highlights", tsw::HIGHLIGHTS_QUERY_FFI),
                ("folds", tsw::FOLDS_QUERY_FFI),
                ("indents", tsw::INDENTS_QUERY_FFI),
                ("locals", tsw::LOCALS_QUERY_FFI),
            ],
        },
    ]
}

fn query(language: &Language, source: &str) -> Query {
    Query::new(language, source).unwrap_or_else(|e| panic!("query does not compile: {e}"))
}

const GENERAL_PREDICATES: [&str; 4] = ["has-parent?", "not-has-parent?", "has-ancestor?", "not-has-ancestor?"];

/// Evaluates the predicates `QueryCursor` leaves to the caller for one match.
fn general_predicates_hold(query: &Query, m: &QueryMatch<'_, '_>) -> bool {
    query.general_predicates(m.pattern_index).iter().all(|predicate| {
        let op = predicate.operator.as_ref();
        assert!(
            GENERAL_PREDICATES.contains(&op),
            "predicate #{op} is not evaluated by this test"
        );
        let (capture, kinds) = match predicate.args.split_first() {
            Some((QueryPredicateArg::Capture(c), rest)) => (*c, rest),
            _ => panic!("#{op} needs a capture as its first argument"),
        };
        let kinds: Vec<&str> = kinds
            .iter()
            .map(|a| match a {
                QueryPredicateArg::String(s) => s.as_ref(),
                QueryPredicateArg::Capture(_) => {
                    panic!("#{op} takes node kinds after the capture")
                }
            })
            .collect();
        let negated = op.starts_with("not-");
        let ancestors = op.ends_with("has-ancestor?");
        m.nodes_for_capture_index(capture).all(|node| {
            let mut parent = node.parent();
            let mut found = false;
            while let Some(p) = parent {
                if kinds.contains(&p.kind()) {
                    found = true;
                    break;
                }
                if !ancestors {
                    break;
                }
                parent = p.parent();
            }
            found != negated
        })
    })
}

/// All captures of `query` on `tree`, after every predicate: (capture name, node).
fn captures<'t>(query: &Query, tree: &'t Tree, source: &str) -> Vec<(String, Node<'t>)> {
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), source.as_bytes());
    let mut out = Vec::new();
    while let Some(m) = matches.next() {
        if !general_predicates_hold(query, m) {
            continue;
        }
        for c in m.captures() {
            out.push((query.capture_names()[c.index as usize].to_string(), c.node));
        }
    }
    out
}

fn parse(language: &Language, source: &str) -> Tree {
    let mut parser = Parser::new();
    parser.set_language(language).unwrap();
    let tree = parser.parse(source, None).unwrap();
    assert!(
        !tree.root_node().has_error(),
        "sample does not parse cleanly:\n{}",
        tree.root_node().to_sexp()
    );
    tree
}

/// Byte range of `target` inside the unique occurrence of `context` in `source`.
fn locate(source: &str, context: &str, target: &str) -> (usize, usize) {
    let mut hits = source.match_indices(context);
    let (at, _) = hits.next().unwrap_or_else(|| panic!("{context:?} not in the sample"));
    assert!(hits.next().is_none(), "{context:?} occurs more than once in the sample");
    let offset = context
        .find(target)
        .unwrap_or_else(|| panic!("{target:?} not in {context:?}"));
    (at + offset, at + offset + target.len())
}

/// The highlight an editor would show: node range → capture names.
struct Highlights {
    source: String,
    by_range: BTreeMap<(usize, usize), Vec<String>>,
}

impl Highlights {
    fn new(language: &Language, highlights: &str, source: &str) -> Self {
        let query = query(language, highlights);
        let tree = parse(language, source);
        let mut by_node: BTreeMap<usize, ((usize, usize), Vec<String>)> = BTreeMap::new();
        for (name, node) in captures(&query, &tree, source) {
            by_node
                .entry(node.id())
                .or_insert_with(|| ((node.start_byte(), node.end_byte()), Vec::new()))
                .1
                .push(name);
        }
        // The queries promise mutually exclusive patterns: one capture per node, so
        // first-match (tree-sitter-highlight) and last-match (Neovim) editors agree.
        let mut by_range = BTreeMap::new();
        for (range, names) in by_node.into_values() {
            assert_eq!(
                names.len(),
                1,
                "{:?} has several highlight captures: {names:?}",
                &source[range.0..range.1]
            );
            by_range.entry(range).or_insert_with(Vec::new).extend(names);
        }
        let by_range = by_range;
        Highlights {
            source: source.to_string(),
            by_range,
        }
    }

    /// The capture of `target` (found inside the unique `context`), or "<none>".
    fn of(&self, context: &str, target: &str) -> String {
        let range = locate(&self.source, context, target);
        match self.by_range.get(&range) {
            Some(names) => names.join(" "),
            None => "<none>".to_string(),
        }
    }

    fn assert(&self, context: &str, target: &str, expected: &str) {
        assert_eq!(
            self.of(context, target),
            expected,
            "highlight of {target:?} in {context:?}"
        );
    }

    /// Every token of the sample (leaf node, named or anonymous) except the listed
    /// kinds has a highlight.
    fn assert_every_token_highlighted(&self, language: &Language, except: &[&str]) {
        let tree = parse(language, &self.source);
        let mut missing = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
            let leaf = node.child_count() == 0;
            if (leaf || node.kind() == "comment") && !except.contains(&node.kind()) {
                let range = (node.start_byte(), node.end_byte());
                if !self.by_range.contains_key(&range) {
                    missing.push(format!("{} {:?}", node.kind(), &self.source[range.0..range.1]));
                }
            }
        }
        assert!(missing.is_empty(), "tokens without a highlight: {missing:?}");
    }
}

const SDP_SAMPLE: &str = "/// A device.
struct Device {
    // plain comment
    /// The id.
    id: u32,
    str: u8,
    name: str,
    params: []Param,
    next: Option<Device>,
    boxed: Box<Param>,
}

struct Param {
    value: f64
}
";

const FFI_SAMPLE: &str = "//wirelens:order declaration
// Package test is a schema.
package test

import \"time\"

type (
\tId int64
\tName = string
)

/* Plugin is a root. */
type Plugin struct {
\tTitle  string `json:\"title\"`
\tKey    Id
\tParams []*Parameter `json:\"params,omitempty\"`
\tX, Y   float32
\tWhen   time.Time
}

type Parameter struct {
\tValue float64
}

const Max = 10

var Raw = `raw`

func helper() {}
";

const HIGHLIGHT_CAPTURES: [&str; 23] = [
    "comment",
    "comment.documentation",
    "keyword",
    "keyword.type",
    "keyword.function",
    "keyword.directive",
    "type",
    "type.builtin",
    "type.definition",
    "variable.member",
    "module",
    "function",
    "constant",
    "string",
    "string.special",
    "character",
    "number",
    "number.float",
    "operator",
    "punctuation.bracket",
    "punctuation.delimiter",
    "variable",
    "property",
];

#[test]
fn every_query_compiles() {
    let mut count = 0;
    for d in dialects() {
        for (name, source) in d.queries {
            let q = Query::new(&d.language, source)
                .unwrap_or_else(|e| panic!("{}/{name}.scm does not compile: {e}", d.name));
            assert!(q.pattern_count() > 0, "{}/{name}.scm has no patterns", d.name);
            // Only predicates this test (or the cursor itself) evaluates.
            for p in 0..q.pattern_count() {
                for predicate in q.general_predicates(p) {
                    assert!(
                        GENERAL_PREDICATES.contains(&predicate.operator.as_ref()),
                        "{}/{name}.scm uses #{} which no highlighter evaluates",
                        d.name,
                        predicate.operator
                    );
                }
            }
            count += 1;
        }
    }
    assert_eq!(count, 8);
}

#[test]
fn highlight_capture_names_are_standard() {
    for d in dialects() {
        let q = query(&d.language, d.queries[0].1);
        for name in q.capture_names() {
            assert!(
                HIGHLIGHT_CAPTURES.contains(name),
                "{}: unexpected capture @{name}",
                d.name
            );
        }
    }
}

#[test]
fn sdp_highlights() {
    let language: Language = tsw::LANGUAGE_SDP.into();
    let h = Highlights::new(&language, tsw::HIGHLIGHTS_QUERY_SDP, SDP_SAMPLE);
    h.assert("struct Device", "struct", "keyword.type");
    h.assert("struct Device", "Device", "type.definition");
    h.assert("struct Param", "Param", "type.definition");
    h.assert("id: u32", "u32", "type.builtin");
    h.assert("value: f64", "f64", "type.builtin");
    h.assert("id: u32", "id", "variable.member");
    // A field named like a primitive is a field; the primitive in type position is builtin.
    h.assert("str: u8", "str", "variable.member");
    h.assert("str: u8", "u8", "type.builtin");
    h.assert("name: str", "str", "type.builtin");
    h.assert("[]Param", "Param", "type");
    h.assert("Option<Device>", "Device", "type");
    h.assert("Box<Param>", "Param", "type");
    h.assert("Option<Device>", "Option", "type.builtin");
    h.assert("Box<Param>", "Box", "type.builtin");
    h.assert("/// A device.", "/// A device.", "comment.documentation");
    h.assert("/// The id.", "/// The id.", "comment.documentation");
    h.assert("// plain comment", "// plain comment", "comment");
    h.assert("Device {", "{", "punctuation.bracket");
    h.assert("[]Param", "[", "punctuation.bracket");
    h.assert("Option<Device>", "<", "punctuation.bracket");
    h.assert("id: u32,", ":", "punctuation.delimiter");
    h.assert("id: u32,", ",", "punctuation.delimiter");
    h.assert_every_token_highlighted(&language, &[]);
}

#[test]
fn ffi_highlights() {
    let language: Language = tsw::LANGUAGE_FFI.into();
    let h = Highlights::new(&language, tsw::HIGHLIGHTS_QUERY_FFI, FFI_SAMPLE);
    h.assert(
        "//wirelens:order declaration",
        "//wirelens:order declaration",
        "keyword.directive",
    );
    h.assert(
        "// Package test is a schema.",
        "// Package test is a schema.",
        "comment",
    );
    h.assert("/* Plugin is a root. */", "/* Plugin is a root. */", "comment");
    h.assert("package test", "package", "keyword");
    h.assert("package test", "test", "module");
    h.assert("import \"time\"", "import", "keyword");
    h.assert("import \"time\"", "\"time\"", "string");
    h.assert("type (", "type", "keyword.type");
    h.assert("Plugin struct", "struct", "keyword.type");
    h.assert("Id int64", "int64", "type.builtin");
    h.assert("Name = string", "string", "type.builtin");
    h.assert("Name = string", "=", "operator");
    h.assert("X, Y   float32", "float32", "type.builtin");
    h.assert("Value float64", "float64", "type.builtin");
    h.assert("Title  string", "string", "type.builtin");
    h.assert("type Plugin", "Plugin", "type");
    h.assert("Key    Id", "Id", "type");
    h.assert("Key    Id", "Key", "variable.member");
    h.assert("[]*Parameter", "Parameter", "type");
    h.assert("[]*Parameter", "*", "operator");
    h.assert("X, Y", "X", "variable.member");
    h.assert("X, Y", ",", "punctuation.delimiter");
    h.assert("time.Time", "time", "module");
    h.assert("time.Time", "Time", "type");
    h.assert("time.Time", ".", "punctuation.delimiter");
    h.assert("`json:\"title\"`", "`json:\"title\"`", "string.special");
    h.assert(
        "`json:\"params,omitempty\"`",
        "`json:\"params,omitempty\"`",
        "string.special",
    );
    // A raw string that is not a tag is a plain string, never also a tag.
    h.assert("`raw`", "`raw`", "string");
    h.assert("const Max", "const", "keyword");
    h.assert("const Max", "Max", "constant");
    h.assert("Max = 10", "10", "number");
    h.assert("func helper", "func", "keyword.function");
    h.assert("func helper", "helper", "function");
    h.assert("helper()", "(", "punctuation.bracket");
    // `\n` terminators are whitespace to the eye.
    h.assert_every_token_highlighted(&language, &["\n"]);
}

#[test]
fn ffi_raw_strings_in_every_context_get_one_highlight() {
    // Every parent a raw string can have (see highlights.scm): tags are
    // string.special, all others string, and never both.
    let source = "package p
type A struct {
\tX int32 `json:\"x\"`
}
type B [len(`a`) + -`b` * (`c`)]int8
const C, D = `d`, x.y(`e`)
func f(`g`) { `h` }
";
    let language: Language = tsw::LANGUAGE_FFI.into();
    let h = Highlights::new(&language, tsw::HIGHLIGHTS_QUERY_FFI, source);
    h.assert("`json:\"x\"`", "`json:\"x\"`", "string.special");
    for raw in ["`a`", "`b`", "`c`", "`d`", "`e`", "`g`", "`h`"] {
        h.assert(raw, raw, "string");
    }
}

#[test]
fn general_predicates_are_evaluated() {
    // The evaluator itself, on predicates Neovim understands but QueryCursor does not.
    let language: Language = tsw::LANGUAGE_FFI.into();
    let source = "package p\ntype A struct {\n\tX int32 `t`\n}\nvar v = `s`\n";
    let tree = parse(&language, source);
    let texts = |q: &str| -> BTreeSet<String> {
        let q = query(&language, q);
        captures(&q, &tree, source)
            .into_iter()
            .map(|(_, n)| source[n.byte_range()].to_string())
            .collect()
    };
    let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        texts("((raw_string_literal) @s (#not-has-parent? @s field_declaration))"),
        set(&["`s`"])
    );
    assert_eq!(
        texts("((raw_string_literal) @s (#has-parent? @s field_declaration))"),
        set(&["`t`"])
    );
    assert_eq!(
        texts("((raw_string_literal) @s (#has-ancestor? @s type_declaration))"),
        set(&["`t`"])
    );
    assert_eq!(
        texts("((raw_string_literal) @s (#not-has-ancestor? @s type_declaration))"),
        set(&["`s`"])
    );
    // And the ones the cursor evaluates natively.
    assert_eq!(
        texts("((type_identifier) @t (#any-of? @t \"int32\" \"int64\"))"),
        set(&["int32"])
    );
    assert_eq!(texts("((type_identifier) @t (#not-any-of? @t \"int32\"))"), set(&["A"]));
    assert_eq!(texts("((type_identifier) @t (#eq? @t \"A\"))"), set(&["A"]));
    assert_eq!(texts("((type_identifier) @t (#not-match? @t \"^i\"))"), set(&["A"]));
}

fn capture_ranges(language: &Language, query_source: &str, source: &str, capture: &str) -> BTreeSet<(usize, usize)> {
    let q = query(language, query_source);
    let tree = parse(language, source);
    captures(&q, &tree, source)
        .into_iter()
        .filter(|(name, _)| name == capture)
        .map(|(_, n)| (n.start_byte(), n.end_byte()))
        .collect()
}

fn node_ranges(language: &Language, source: &str, kind: &str) -> BTreeSet<(usize, usize)> {
    let tree = parse(language, source);
    let mut out = BTreeSet::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == kind {
            out.insert((node.start_byte(), node.end_byte()));
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

#[test]
fn sdp_folds() {
    let language: Language = tsw::LANGUAGE_SDP.into();
    let folds = capture_ranges(&language, tsw::FOLDS_QUERY_SDP, SDP_SAMPLE, "fold");
    let structs = node_ranges(&language, SDP_SAMPLE, "struct_item");
    assert_eq!(structs.len(), 2);
    assert_eq!(folds, structs, "every struct_item and nothing else folds");
    let start = SDP_SAMPLE.find("struct Device").unwrap();
    let end = SDP_SAMPLE.find("}\n\nstruct Param").unwrap() + 1;
    assert!(folds.contains(&(start, end)));
}

#[test]
fn ffi_folds() {
    let language: Language = tsw::LANGUAGE_FFI.into();
    let folds = capture_ranges(&language, tsw::FOLDS_QUERY_FFI, FFI_SAMPLE, "fold");
    for kind in [
        "field_declaration_list",
        "type_declaration",
        "import_declaration",
        "function_declaration",
    ] {
        let nodes = node_ranges(&language, FFI_SAMPLE, kind);
        assert!(!nodes.is_empty(), "sample has no {kind}");
        assert!(nodes.is_subset(&folds), "not every {kind} folds");
    }
    let start = FFI_SAMPLE.find("{\n\tTitle").unwrap();
    let end = FFI_SAMPLE.find("}\n\ntype Parameter").unwrap() + 1;
    assert!(folds.contains(&(start, end)), "the Plugin field list folds");
}

#[test]
fn indents_capture_bodies() {
    let sdp: Language = tsw::LANGUAGE_SDP.into();
    let begins = capture_ranges(&sdp, tsw::INDENTS_QUERY_SDP, SDP_SAMPLE, "indent.begin");
    assert_eq!(begins, node_ranges(&sdp, SDP_SAMPLE, "field_list"));
    let ffi: Language = tsw::LANGUAGE_FFI.into();
    let begins = capture_ranges(&ffi, tsw::INDENTS_QUERY_FFI, FFI_SAMPLE, "indent.begin");
    assert!(node_ranges(&ffi, FFI_SAMPLE, "field_declaration_list").is_subset(&begins));
    let ends = capture_ranges(&ffi, tsw::INDENTS_QUERY_FFI, FFI_SAMPLE, "indent.end");
    assert!(ends.iter().all(|&(s, e)| matches!(&FFI_SAMPLE[s..e], "}" | ")")));
}

/// (capture name → texts) of a locals query on a sample.
fn locals(language: &Language, query_source: &str, source: &str) -> BTreeMap<String, Vec<String>> {
    let q = query(language, query_source);
    let tree = parse(language, source);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, node) in captures(&q, &tree, source) {
        out.entry(name).or_default().push(source[node.byte_range()].to_string());
    }
    out
}

#[test]
fn sdp_locals() {
    let language: Language = tsw::LANGUAGE_SDP.into();
    let l = locals(&language, tsw::LOCALS_QUERY_SDP, SDP_SAMPLE);
    assert_eq!(l["local.scope"].len(), 1, "one file-wide scope");
    assert_eq!(l["local.definition.type"], ["Device", "Param"]);
    assert_eq!(
        l["local.definition.field"],
        ["id", "str", "name", "params", "next", "boxed", "value"]
    );
    let refs: BTreeSet<&str> = l["local.reference"].iter().map(String::as_str).collect();
    assert!(refs.contains("Param") && refs.contains("Device"), "{refs:?}");
    // Every reference resolves to a definition in the file-wide scope.
    for r in &refs {
        assert!(
            l["local.definition.type"].iter().any(|d| d == r),
            "{r} does not resolve"
        );
    }
    // Primitives are not references to definitions.
    assert!(!refs.contains("u32") && !refs.contains("str"));
}

#[test]
fn ffi_locals() {
    let language: Language = tsw::LANGUAGE_FFI.into();
    let l = locals(&language, tsw::LOCALS_QUERY_FFI, FFI_SAMPLE);
    assert_eq!(l["local.scope"].len(), 1, "one file-wide scope");
    assert_eq!(l["local.definition.type"], ["Id", "Name", "Plugin", "Parameter"]);
    assert_eq!(
        l["local.definition.field"],
        ["Title", "Key", "Params", "X", "Y", "When", "Value"]
    );
    let refs = &l["local.reference"];
    assert!(refs.iter().any(|r| r == "Id"), "{refs:?}");
    assert!(refs.iter().any(|r| r == "Parameter"), "{refs:?}");
    assert!(refs.iter().any(|r| r == "int64"), "{refs:?}");
}
