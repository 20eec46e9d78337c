//! Fixtures with a cursor marker `$0`, in the style of rust-analyzer's `ide` tests.

use super::*;

/// The snapshot of `fixture` without its `$0`, and the marker's offset.
fn snap(dialect: Dialect, fixture: &str) -> (Snapshot, usize) {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor");
    let text = fixture.replacen("$0", "", 1);
    let analysis = wirelens_core::analyze(dialect, &text, None, wirelens_core::OrderChoice::default());
    (Snapshot::new(dialect, 0, SourceFile::new("", text), analysis), offset)
}

fn sdp(fixture: &str) -> (Snapshot, usize) {
    snap(Dialect::Sdp, fixture)
}

fn texts(s: &Snapshot, ranges: &[Range<usize>]) -> Vec<String> {
    ranges.iter().map(|r| s.source.text[r.clone()].to_string()).collect()
}

#[test]
fn locate_type_use_field_and_declaration() {
    let (s, at) = sdp("struct A { x: u8 } struct B { a: $0A }");
    assert!(matches!(
        locate(s.schema(), at),
        Some(Target::TypeRef { target: Some(0), .. })
    ));
    let (s, at) = sdp("struct A { x: u8 } struct $0B { a: A }");
    assert_eq!(locate(s.schema(), at), Some(Target::TypeName(1)));
    let (s, at) = sdp("struct A { $0x: u8 } struct B { a: A }");
    assert_eq!(locate(s.schema(), at), Some(Target::Field(0, 0)));
    let (s, at) = sdp("struct A { x: u8 }  $0 struct B { a: A }");
    assert_eq!(locate(s.schema(), at), None);
}

#[test]
fn definition_and_references_share_one_lookup() {
    let (s, at) = sdp("struct A { x: u8 } struct B { a: $0A, b: []A, c: Option<A> }");
    let def = definition(&s, at).unwrap();
    assert_eq!(def, 7..8);
    let refs = references(&s, at, true).unwrap();
    assert_eq!(refs.len(), 4, "declaration + three uses");
    assert_eq!(refs[0], def);
    assert!(texts(&s, &refs).iter().all(|t| t == "A"));
    assert_eq!(references(&s, at, false).unwrap().len(), 3);
    let (s, at) = sdp("struct A { x: u8 } struct B { a: $0Missing }");
    assert_eq!(definition(&s, at), None);
    assert_eq!(
        hover(&s, at, Default::default()),
        None,
        "an unresolved name has no layout to show"
    );
}

#[test]
fn hover_on_a_field_shows_offset_and_size() {
    let (s, at) = sdp("struct A { x: u8, $0y: u32 }");
    let h = hover(&s, at, Default::default()).unwrap();
    assert!(h.contains("y: u32"), "{h}");
    assert!(h.contains("offset = 1 (0x1)"), "{h}");
}

#[test]
fn hover_fixed_blocks_are_the_generated_copies() {
    // A variable-size nested struct is called by generated code, not inlined: `a` and `b`
    // are two blocks and none of `Inner`'s fields is in them.
    let (s, at) = sdp("struct Inner { x: u32, s: str, y: u32 }\nstruct $0Out { a: u32, i: Inner, b: u16 }");
    let h = hover(&s, at, Default::default()).unwrap();
    assert!(
        h.contains("Fixed blocks (one copy each in generated code):\n- `@0` · 4 B: a\n- `@16 + |i|` · 2 B: b\n"),
        "{h}"
    );
}

#[test]
fn inlay_hints_follow_the_comma_and_the_window() {
    let (s, _) = sdp("$0struct A { x: u8, y: u32 }\nstruct B { z: u64 }\n");
    let all = inlay_hints(&s, 0..s.source.text.len());
    let labels: Vec<&str> = all.iter().map(|h| h.label.as_str()).collect();
    assert_eq!(labels, ["@0 · 1 B", "@1 · 4 B", "@0 · 8 B"]);
    assert_eq!(&s.source.text[..all[0].offset], "struct A { x: u8,");
    let first_line = inlay_hints(&s, 0..27);
    assert_eq!(first_line.len(), 2, "only the fields of the window");
}

#[test]
fn rename_types_everywhere_and_refuse_bad_names() {
    let (s, at) = sdp("struct A { x: u8 } struct B { a: $0A }");
    let ranges = rename(&s, at, "C").unwrap().unwrap();
    assert_eq!(ranges.len(), 2);
    assert_eq!(prepare_rename(&s, at), Some(33..34));
    assert_eq!(rename(&s, at, "B").unwrap(), Err("`B` already exists".into()));
    assert!(rename(&s, at, "u8").unwrap().is_err());
    let (s, at) = sdp("struct A { $0x: u8, y: u8 }");
    assert_eq!(rename(&s, at, "z").unwrap().unwrap(), vec![11..12]);
}

#[test]
fn completion_offers_types_after_the_colon() {
    let (s, at) = sdp("struct A { x: u8 } struct B { a: $0 }");
    let items = completion(&s, at).items;
    assert!(items.iter().any(|c| c.label == "A" && c.kind == CompletionKind::Type));
    assert!(items
        .iter()
        .any(|c| c.label == "u32" && c.kind == CompletionKind::Primitive));
    let (s, at) = sdp("struct A { x: u8 }\n$0");
    let items = completion(&s, at).items;
    assert!(items.iter().all(|c| c.kind == CompletionKind::Snippet));
}

/// ffire: a type half typed after the field name is still a type position (the editor
/// asks on the first character typed), and only the types it can become are offered.
#[test]
fn ffi_completion_offers_types_while_one_is_typed() {
    let text = "package p\n\ntype Point struct {\n\tX int32\n}\ntype Pair struct {\n\tA int32\n}\ntype Shape struct {\n\tAt Po$0\n}\n";
    let (s, at) = snap(Dialect::Ffi, text);
    let found = completion(&s, at);
    let types: Vec<&str> = found
        .items
        .iter()
        .filter(|c| c.kind == CompletionKind::Type)
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(types, ["Point"]);
    assert!(found.items.iter().any(|c| c.label == "int32"));
    assert!(!found.incomplete);
    // After a multi-byte character that cannot be in a name (no panic on its bytes).
    let (s, at) = snap(Dialect::Ffi, "package p\n\ntype Shape struct {\n\tAt —Po$0\n}\n");
    assert!(!completion(&s, at).items.is_empty());
    // A field name being typed is not a type position.
    let (s, at) = snap(Dialect::Ffi, "package p\n\ntype Shape struct {\n\tAt$0\n}\n");
    assert!(completion(&s, at)
        .items
        .iter()
        .all(|c| c.kind == CompletionKind::Snippet));
}

#[test]
fn symbols_carry_fields_with_layout() {
    let (s, _) = sdp("$0struct A { x: u8, y: u32 }");
    let syms = document_symbols(&s, usize::MAX);
    assert_eq!(syms.len(), 1);
    assert_eq!(syms[0].kind, SymbolKind::Struct);
    let details: Vec<_> = syms[0].children.iter().map(|c| c.detail.clone().unwrap()).collect();
    assert_eq!(details, ["u8  @0 · 1 B", "u32  @1 · 4 B"]);
}

#[test]
fn semantic_tokens_mark_declarations_from_the_walk() {
    let (s, _) = sdp("$0/// doc\nstruct A { x: u8 } struct B { a: A }");
    let toks = semantic_tokens(&s);
    let shown: Vec<(String, TokenKind, u32)> = toks
        .iter()
        .map(|t| (s.source.text[t.range.clone()].to_string(), t.kind, t.modifiers))
        .collect();
    assert!(shown.contains(&("/// doc".into(), TokenKind::Comment, MOD_DOCUMENTATION)));
    assert!(
        shown.contains(&("A".into(), TokenKind::Struct, MOD_DECLARATION)),
        "{shown:?}"
    );
    assert!(shown.contains(&("A".into(), TokenKind::Struct, 0)), "the use of A");
    assert!(shown.contains(&("u8".into(), TokenKind::Type, MOD_DEFAULT_LIBRARY)));
    assert!(shown.contains(&("struct".into(), TokenKind::Keyword, 0)));
}

#[test]
fn code_action_creates_a_missing_struct() {
    let (s, at) = sdp("struct B { a: $0Missing }\n");
    let actions = code_actions(&s, at..at);
    let create = actions.iter().find(|a| a.title == "Create struct `Missing`").unwrap();
    assert_eq!(create.kind, ActionKind::QuickFix);
    assert_eq!(
        apply(&s, create),
        "struct B { a: Missing }\n\nstruct Missing {\n    field: u32,\n}\n",
        "appended after one blank line"
    );
    // The stub field is where the cursor goes (selected).
    let (i, r) = create.select.clone().expect("a cursor");
    assert_eq!(&create.edits[i].1[r], "field: u32");
}

#[test]
fn a_struct_of_many_fields_costs_linear_time() {
    // 8,000 fields: the shape that was quadratic in tokens, symbols and hints.
    let fields: String = (0..8000).map(|i| format!("    f{i}: u32,\n")).collect();
    let text = format!("$0struct Big {{\n{fields}}}\n");
    let (s, _) = sdp(&text);
    let start = std::time::Instant::now();
    assert_eq!(inlay_hints(&s, 0..s.source.text.len()).len(), 8000);
    assert_eq!(document_symbols(&s, 8000)[0].children.len(), 8000);
    assert!(document_symbols(&s, 8000)[0].detail.is_some());
    let over = &document_symbols(&s, 7999)[0];
    assert!(
        over.children.is_empty() && over.detail.is_none(),
        "over the limit: type names only"
    );
    assert!(semantic_tokens(&s).len() > 16_000);
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
}

const REGISTRY: &str = include_str!("../../../examples/audiounit/plugin_registry.sdp");

/// The hint labels of the fields of struct `name`, in declaration order.
fn hints_of(s: &Snapshot, name: &str) -> Vec<String> {
    let def = &s.schema().types[s.schema().type_id(name).unwrap()];
    inlay_hints(s, def.range.clone())
        .into_iter()
        .filter(|h| def.range.start <= h.offset && h.offset <= def.range.end + 1)
        .map(|h| h.label)
        .collect()
}

fn registry_with(from: &str, to: &str) -> Snapshot {
    assert!(REGISTRY.contains(from));
    sdp(&format!("$0{}", REGISTRY.replacen(from, to, 1))).0
}

#[test]
fn an_unknown_type_keeps_the_fixed_prefix_and_other_structs() {
    let good = registry_with("", "");
    let s = registry_with("    id: ComponentId,", "    id: ComponentIdd,");
    assert_eq!(hints_of(&s, "Parameter"), hints_of(&good, "Parameter"), "untouched");
    assert_eq!(
        hints_of(&s, "Plugin"),
        [
            "@0 · ? B",
            "@? · 4+len B",
            "@? · 4+len B",
            "@? · 4+n×≥43 B",
            "@? · 4+n×≥4 B"
        ],
        "sizes that do not depend on the unknown type stay; offsets after it are unknown"
    );
    assert_eq!(
        hints_of(&s, "PluginRegistry"),
        ["@0 · 8 B", "@8 · 4 B", "@12 · 4 B", "@16 · ? B"],
        "the fixed prefix before `plugins: []Plugin` stays constant"
    );
    let titles: Vec<(String, String)> = lenses(&s, usize::MAX)
        .unwrap_or_default()
        .into_iter()
        .map(|l| (l.type_name, l.title))
        .collect();
    assert_eq!(
        titles[3..],
        [
            (
                "Plugin".to_string(),
                "layout unknown from `id` (its type has no layout)".to_string()
            ),
            (
                "PluginRegistry".to_string(),
                "layout unknown from `plugins` (its type has no layout) · first 16 B fixed".to_string()
            ),
        ],
        "marked, not dropped"
    );
    assert_eq!(
        lenses(&s, usize::MAX).unwrap_or_default()[..3],
        lenses(&good, usize::MAX).unwrap_or_default()[..3]
    );
}

#[test]
fn a_syntax_error_in_one_struct_keeps_the_others_hints() {
    let good = registry_with("", "");
    let s = registry_with("    names: []str,", "    names: [],");
    assert!(s.analysis.has_syntax_errors());
    let (mut broken, mut fine) = (hints_of(&s, "Parameter"), hints_of(&good, "Parameter"));
    assert_eq!(broken.len(), 12);
    assert_eq!(
        (broken.pop(), fine.pop()),
        (
            Some("@after unit · ? B".into()),
            Some("@after unit · 1 or 1+≥4 B".into())
        ),
        "only `value_strings` depends on the broken struct"
    );
    assert_eq!(broken, fine, "`@0` … `@29` and the rest stay");
    assert_eq!(hints_of(&s, "ComponentId"), hints_of(&good, "ComponentId"));
}

fn action_titles(actions: &[Action]) -> Vec<(&str, bool)> {
    actions.iter().map(|a| (a.title.as_str(), a.preferred)).collect()
}

fn apply(s: &Snapshot, a: &Action) -> String {
    let mut text = s.source.text.clone();
    let mut edits = a.edits.clone();
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (r, t) in edits {
        text.replace_range(r, &t);
    }
    text
}

#[test]
fn did_you_mean_comes_with_the_fix_it_suggests() {
    let (s, at) = sdp("struct A {\n    x: $0u3,\n}\n");
    let actions = code_actions(&s, at..at);
    assert_eq!(
        action_titles(&actions),
        [
            ("Replace `u3` with `u8`", true),
            ("Replace `u3` with `u16`", false),
            ("Create struct `u3`", false)
        ]
    );
    assert_eq!(apply(&s, &actions[0]), "struct A {\n    x: u8,\n}\n");

    let (s, at) = snap(
        Dialect::Ffi,
        "package p\n\ntype A struct {\n\tN $0uint32\n\tB byte\n}\n",
    );
    let actions = code_actions(&s, at..at);
    assert_eq!(action_titles(&actions)[0], ("Replace `uint32` with `int64`", true));
    assert_eq!(
        apply(&s, &actions[0]),
        "package p\n\ntype A struct {\n\tN int64\n\tB byte\n}\n"
    );
    let at = s.source.text.find("byte").unwrap();
    let actions = code_actions(&s, at..at);
    let titles = action_titles(&actions)
        .into_iter()
        .filter(|(t, _)| t.starts_with("Replace"))
        .collect::<Vec<_>>();
    assert_eq!(
        titles,
        [
            ("Replace `byte` with `int8`", true),
            ("Replace `byte` with `int16`", false)
        ],
        "one fix per type the help names"
    );
}

#[test]
fn reorder_keeps_comments_with_their_fields() {
    // The bundled example's `Parameter` with a string (and its doc comment) written
    // between its fixed fields; every field has a doc comment above it.
    let moved = "    /// Name shown to the user, e.g. \"Cutoff Frequency\".\n    display_name: str,\n";
    let edited =
        REGISTRY
            .replacen(moved, "", 1)
            .replacen("    address: u64,\n", &format!("    address: u64,\n{moved}"), 1);
    let s = sdp(&format!("$0{edited}")).0;
    let at = s.source.text.find("    raw_flags").unwrap() + 4;
    assert!(
        s.analysis.diagnostics.iter().any(|d| d.code == "split-fixed-block"),
        "{:?}",
        s.analysis.diagnostics
    );
    let actions = code_actions(&s, at..at);
    let reorder = actions
        .iter()
        .find(|a| a.title.starts_with("Move `Parameter`'s fixed-size fields first"))
        .expect("offered although comments sit between the fields");
    assert_eq!(
        apply(&s, reorder),
        REGISTRY,
        "fixed fields first, each with its comments: the example as written"
    );
}

#[test]
fn a_missing_brace_does_not_make_the_next_struct_unknown() {
    let (s, _) = sdp("$0struct A {\n    x: Option<B>\n\nstruct B {\n    y: u32,\n}\nstruct C {\n    z: B,\n}\n");
    let codes: Vec<&str> = s.analysis.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&"UNKNOWN_TYPE"), "the checker sees no `B`: {codes:?}");
    let names: Vec<&str> = swallowed_declarations(&s).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["B"], "so the editor knows why");
    let (s, _) = snap(
        Dialect::Ffi,
        "$0package p\n\ntype A struct {\n\tX int32\n\ntype B struct {\n\tY int32\n}\n\ntype C struct {\n\tZ B\n}\n",
    );
    // ffire: recovery closes `A` before `type B` (its grammar needs no separator after a
    // declaration), so nothing is swallowed and B and C are types.
    assert!(swallowed_declarations(&s).is_empty());
    let names: Vec<&str> = s.schema().types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C"]);
}

#[test]
fn hint_labels_fit_and_tooltips_carry_the_full_expression() {
    // VS Code cuts inlay hints at 43 characters.
    let s = registry_with("", "");
    let hints = inlay_hints(&s, 0..s.source.text.len());
    let long: Vec<&str> = hints
        .iter()
        .map(|h| h.label.as_str())
        .filter(|l| l.chars().count() > 40)
        .collect();
    assert_eq!(long, Vec::<&str>::new());
    let value_strings = hints.iter().find(|h| h.label.starts_with("@after unit")).unwrap();
    assert_eq!(value_strings.label, "@after unit · 1 or 1+≥4 B");
    assert_eq!(
        value_strings.tooltip,
        "offset 42 + |display_name| + |identifier| + |unit| B\nsize 1 or 1+≥4 B\n\
         |x| is the length of field x beyond its minimum size"
    );
}

#[test]
fn ffi_field_hover_names_wire_positions_as_the_hints_do() {
    // Canonical order: `Id` (8 bytes) goes first on the wire although written second.
    let (s, at) = snap(
        Dialect::Ffi,
        "package p\n\ntype A struct {\n\tN int32\n\t$0Id int64\n}\n\ntype As []A\n",
    );
    let h = hover(&s, at, Default::default()).unwrap();
    assert!(h.contains("wire #0 (written #1)"), "{h}");
    let hints: Vec<String> = inlay_hints(&s, 0..s.source.text.len())
        .into_iter()
        .map(|h| h.label)
        .collect();
    assert!(hints.iter().any(|l| l.ends_with("wire #0")), "{hints:?}");
}

#[test]
fn primitives_have_a_hover_and_numbers_follow_the_setting() {
    let (s, at) = snap(Dialect::Ffi, "package p\n\ntype A struct {\n\tN []in$0t64\n}\n");
    let h = hover(&s, at, Default::default()).unwrap();
    assert!(h.starts_with("```ffi\nint64\n```"), "{h}");
    assert!(
        h.contains("8 B · two's complement, little-endian · range −9223372036854775808 ..= 9223372036854775807 (0x7fffffffffffffff)"),
        "{h}"
    );
    let (s, at) = snap(Dialect::Ffi, "package p\n\ntype A struct {\n\tS $0string\n}\n");
    let h = hover(&s, at, Default::default()).unwrap();
    assert!(
        h.contains("2+len B · a u16 byte length (at most 65535 (0xffff))"),
        "{h}"
    );
    let (s, at) = sdp("struct A { x: u8, $0y: u32 }");
    let h = hover(&s, at, views::NumberFormat::Hex).unwrap();
    assert!(h.contains("size = 0x4 (4), offset = 0x1 (1)"), "{h}");
    let h = hover(&s, at, views::NumberFormat::Decimal).unwrap();
    assert!(h.contains("size = 4 (0x4), offset = 1 (0x1)"), "{h}");
}

#[test]
fn nearest_widths_for_a_width_that_does_not_exist() {
    assert_eq!(nearest_widths(Dialect::Sdp, "u3"), ["u8", "u16"]);
    assert_eq!(nearest_widths(Dialect::Sdp, "i12"), ["i16", "i8"]);
    assert_eq!(nearest_widths(Dialect::Sdp, "f16"), ["f32", "f64"]);
    assert_eq!(nearest_widths(Dialect::Ffi, "int128"), ["int64", "int32"]);
    assert_eq!(
        nearest_widths(Dialect::Ffi, "uint3"),
        Vec::<String>::new(),
        "no unsigned types in ffire"
    );
    assert_eq!(nearest_widths(Dialect::Sdp, "Point3"), Vec::<String>::new());
}

#[test]
fn quick_fixes_the_help_prescribes() {
    // `Option<u32>`: SDP's Option needs a struct.
    let (s, at) = sdp("struct A {\n    x: Option<$0u32>,\n}\n\n\n");
    let actions = code_actions(&s, at..at);
    let wrap = actions
        .iter()
        .find(|a| a.title == "Wrap `u32` in a new struct `MaybeU32`")
        .unwrap_or_else(|| panic!("{:?}", action_titles(&actions)));
    let fixed = apply(&s, wrap);
    assert_eq!(
        fixed,
        "struct A {\n    x: Option<MaybeU32>,\n}\n\nstruct MaybeU32 {\n    value: u32,\n}\n"
    );
    assert!(!wirelens_core::analyze(Dialect::Sdp, &fixed, None, wirelens_core::OrderChoice::default()).has_errors());

    // ffire without `package`.
    let (s, at) = snap(Dialect::Ffi, "$0type A struct {\n\tX int32\n}\n");
    let actions = code_actions(&s, at..at);
    let add = actions
        .iter()
        .find(|a| a.title == "Add `package schema`")
        .expect("offered");
    let fixed = apply(&s, add);
    assert!(fixed.starts_with("package schema\n\ntype A struct"), "{fixed}");
    assert!(!wirelens_core::analyze(Dialect::Ffi, &fixed, None, wirelens_core::OrderChoice::default()).has_errors());

    // Create struct: one blank line before it, however many the file ends with.
    let (s, at) = sdp("struct A {\n    x: $0Missing,\n}\n\n\n");
    let actions = code_actions(&s, at..at);
    let create = actions.iter().find(|a| a.title == "Create struct `Missing`").unwrap();
    assert_eq!(
        apply(&s, create),
        "struct A {\n    x: Missing,\n}\n\nstruct Missing {\n    field: u32,\n}\n"
    );
}

#[test]
fn reorder_anywhere_in_the_struct_and_order_switch_only_where_it_applies() {
    let text = "struct P {\n    a: u32,\n    s: str,\n    b: u32,\n}\n";
    let (s, _) = sdp(&format!("$0{text}"));
    let reorder = |at: usize| {
        code_actions(&s, at..at)
            .into_iter()
            .any(|a| a.title.starts_with("Move `P`'s fixed-size fields first"))
    };
    for place in ["struct P", "a: u32", "s: str", "b: u32"] {
        assert!(reorder(text.find(place).unwrap() + 1), "offered on `{place}`");
    }

    let ffi = "package p\n\ntype A struct {\n\tX int32\n}\n\ntype As []A\n";
    let (s, _) = snap(Dialect::Ffi, &format!("$0{ffi}"));
    let switch = |at: usize| {
        code_actions(&s, at..at)
            .into_iter()
            .any(|a| a.title.starts_with("Switch this file to ffire"))
    };
    assert!(switch(3), "on the package line");
    assert!(!switch(ffi.find("X int32").unwrap()), "not in a struct");
}

#[test]
fn completion_leaves_out_types_that_would_close_a_cycle() {
    let (s, at) = sdp("struct A {\n    x: u8,\n}\nstruct B {\n    a: A,\n}\nstruct C {\n    b: B,\n    c: $0\n}\nstruct D {\n    c: C,\n}\n");
    let labels: Vec<String> = completion(&s, at)
        .items
        .into_iter()
        .filter(|c| c.kind == CompletionKind::Type)
        .map(|c| c.label)
        .collect();
    assert_eq!(labels, ["A", "B"], "C itself and D (which holds C) would be cycles");
}
