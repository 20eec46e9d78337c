//! Reusing the previous analysis after an edit (`analyze_reusing`, what the language
//! server does on every keystroke: unchanged declarations keep their lowered types and
//! diagnostics, unchanged types their layouts) must give exactly what a fresh analysis
//! gives, for any edit: thousands of random insertions and deletions over real schemas,
//! through broken intermediate states.

use std::path::Path;

use wirelens_core::{analyze, analyze_reusing, Analysis, Dialect, OrderChoice};

/// xorshift64: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn same(a: &Analysis, b: &Analysis, context: &str) {
    assert_eq!(a.schema, b.schema, "model differs after {context}");
    assert_eq!(a.layout, b.layout, "layout differs after {context}");
    assert_eq!(a.diagnostics, b.diagnostics, "diagnostics differ after {context}");
}

/// Snippets an edit inserts: type names, fields, punctuation that breaks and repairs.
const SDP_SNIPPETS: &[&str] = &[
    "x",
    "u8",
    "u64",
    "str",
    "[]",
    "Option<",
    ">",
    ",",
    "{",
    "}",
    "\n    extra: u32,",
    "\nstruct New { a: u8 }\n",
    "Plugin",
    "Parameter",
    ": ",
    "Box<",
    "//",
];
const FFI_SNIPPETS: &[&str] = &[
    "x",
    "int8",
    "int64",
    "string",
    "[]",
    "*",
    "\n\tExtra int32",
    "\ntype New struct {\n\tA int8\n}\n",
    "Config",
    "Item",
    " ",
    "{",
    "}",
    "`json:\"k\"`",
    "//",
];

fn churn(dialect: Dialect, text: &str, seed: u64, steps: usize) {
    let snippets = match dialect {
        Dialect::Sdp => SDP_SNIPPETS,
        Dialect::Ffi => FFI_SNIPPETS,
    };
    let mut rng = Rng(seed);
    let mut text = text.to_string();
    let mut current = analyze(dialect, &text, None, OrderChoice::default());
    for step in 0..steps {
        let mut at = rng.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        if rng.below(3) == 0 && at < text.len() {
            let mut end = (at + 1 + rng.below(12)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            text.replace_range(at..end, "");
        } else {
            text.insert_str(at, snippets[rng.below(snippets.len())]);
        }
        // The tree is reparsed from scratch here (the incremental tree is the grammar's
        // business, fuzzed separately by the `reparse` target).
        let next = analyze_reusing(dialect, &text, None, OrderChoice::default(), Some(current));
        let fresh = analyze(dialect, &text, None, OrderChoice::default());
        same(&next, &fresh, &format!("step {step} (seed {seed})"));
        current = next;
    }
}

fn vectors() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

#[test]
fn sdp_reuse_matches_fresh_analysis() {
    for (i, name) in ["audiounit.sdp", "complex.sdp", "nested.sdp", "optional.sdp"]
        .iter()
        .enumerate()
    {
        let text = std::fs::read_to_string(vectors().join("sdp/schemas").join(name)).unwrap();
        churn(Dialect::Sdp, &text, 0x9e37_79b9 + i as u64, 300);
    }
}

#[test]
fn ffi_reuse_matches_fresh_analysis() {
    for (i, name) in ["complex.ffi", "nested.ffi", "optional.ffi", "array_struct.ffi"]
        .iter()
        .enumerate()
    {
        let text = std::fs::read_to_string(vectors().join("ffi/schemas").join(name)).unwrap();
        churn(Dialect::Ffi, &text, 0x5851_f42d + i as u64, 300);
    }
}

#[test]
fn an_edit_inside_one_struct_keeps_the_others_layouts() {
    let text = std::fs::read_to_string(vectors().join("sdp/schemas/audiounit.sdp")).unwrap();
    let before = analyze(Dialect::Sdp, &text, None, OrderChoice::default());
    // Rename a field of the last struct: only its fingerprint may change.
    let last = before.schema.types.len() - 1;
    let field = &before.schema.types[last].fields()[0];
    let mut edited = text.clone();
    edited.insert(field.name_range.end, 'x');
    let fps = before.layout.fingerprints.clone();
    let after = analyze_reusing(Dialect::Sdp, &edited, None, OrderChoice::default(), Some(before));
    let changed: Vec<usize> = (0..fps.len())
        .filter(|&i| fps[i] != after.layout.fingerprints[i])
        .collect();
    assert_eq!(changed, vec![last], "only the edited struct changes");
}

/// Edits that change what a declaration means without touching its own text: the
/// comments above it (its docs), the line before it, a duplicate of it, its position.
#[test]
fn edits_around_a_declaration_match_fresh_analysis() {
    let cases: &[(Dialect, &str, &str)] = &[
        // SDP docs come from the `///` lines above the struct.
        (
            Dialect::Sdp,
            "/// old\nstruct A { a: u8 }\nstruct B { b: A }\n",
            "/// new\nstruct A { a: u8 }\nstruct B { b: A }\n",
        ),
        (
            Dialect::Sdp,
            "/// doc\nstruct A { a: u8 }\n",
            "/// doc\nstruct Z { z: u8 }\nstruct A { a: u8 }\n",
        ),
        // Moved below another struct: same text, new offsets, other message ids.
        (
            Dialect::Sdp,
            "struct A { a: u8, b: str, c: u16 }\nstruct B { x: []u8 }\n",
            "struct B { x: []u8 }\nstruct A { a: u8, b: str, c: u16 }\n",
        ),
        // The same struct twice: each copy is reported, at its own place.
        (
            Dialect::Sdp,
            "struct A { a: u8, a: u8 }\n",
            "struct A { a: u8, a: u8 }\nstruct A { a: u8, a: u8 }\n",
        ),
        // A reference starts to resolve: `B`'s own text is unchanged.
        (
            Dialect::Sdp,
            "struct B { a: A, b: str, c: u8 }\n",
            "struct A { x: u8 }\nstruct B { a: A, b: str, c: u8 }\n",
        ),
        // Go docs: the comment must end on the line right above `type`…
        (
            Dialect::Ffi,
            "package p\n\n// Doc.\ntype A struct {\n\tX int32\n}\n",
            "package p\n\n// Doc.\n\ntype A struct {\n\tX int32\n}\n",
        ),
        // …and must not end a line of code.
        (
            Dialect::Ffi,
            "package p\n\ntype B int32\n// Doc.\ntype A struct {\n\tX B\n}\n",
            "package p\n\ntype B int32 // Doc.\ntype A struct {\n\tX B\n}\n",
        ),
        (
            Dialect::Ffi,
            "package p\n\ntype A struct {\n\tX int32\n}\n",
            "//wirelens:order declaration\npackage p\n\ntype A struct {\n\tX int32\n}\n",
        ),
        (
            Dialect::Ffi,
            "package p\n\ntype (\n\t// One.\n\tA int32\n\tB struct {\n\t\tX A\n\t}\n)\n",
            "package p\n\ntype (\n\t// Two.\n\tA int32\n\tB struct {\n\t\tX A\n\t}\n)\n",
        ),
    ];
    for (i, (dialect, before, after)) in cases.iter().enumerate() {
        for (from, to) in [(before, after), (after, before)] {
            let previous = analyze(*dialect, from, None, OrderChoice::default());
            let next = analyze_reusing(*dialect, to, None, OrderChoice::default(), Some(previous));
            let fresh = analyze(*dialect, to, None, OrderChoice::default());
            same(&next, &fresh, &format!("case {i}: {from:?} → {to:?}"));
        }
    }
}
