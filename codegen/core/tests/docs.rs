//! Doc comments reach the model as a user of rustdoc/godoc expects.

use wirelens_core::{analyze, Dialect, OrderChoice};

fn docs(dialect: Dialect, text: &str) -> Vec<(String, Vec<String>, Vec<Vec<String>>)> {
    let a = analyze(dialect, text, None, OrderChoice::default());
    a.schema
        .types
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.docs.clone(),
                t.fields().iter().map(|f| f.docs.clone()).collect(),
            )
        })
        .collect()
}

#[test]
fn sdp_triple_slash_lines_join_and_attach_to_the_next_item() {
    let text = "// plain comment\n/// First line.\n/// Second line.\nstruct A {\n    /// The id.\n    id: u32,\n    // not a doc\n    n: str,\n}\n";
    let d = docs(Dialect::Sdp, text);
    assert_eq!(d[0].1, ["First line.", "Second line."]);
    assert_eq!(d[0].2, [vec!["The id.".to_string()], vec![]]);
}

#[test]
fn ffi_go_doc_comments_only_from_own_lines_directly_above() {
    let text = "package p // pkg comment\ntype A int32 // trailing, not a doc\ntype B int64\n\n// C is documented.\n// Really.\ntype C struct {\n\t// X doc.\n\tX int32 // trailing\n\tY int32\n}\n\n// detached\n\ntype D = C\n";
    let d = docs(Dialect::Ffi, text);
    let by = |n: &str| d.iter().find(|t| t.0 == n).unwrap().clone();
    assert!(by("A").1.is_empty());
    assert!(
        by("B").1.is_empty(),
        "a trailing comment on the line above is not a doc: {:?}",
        by("B").1
    );
    assert_eq!(by("C").1, ["C is documented.", "Really."]);
    assert_eq!(by("C").2, [vec!["X doc.".to_string()], vec![]]);
    assert!(by("D").1.is_empty(), "a comment separated by a blank line is detached");
}
