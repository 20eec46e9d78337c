//! A lone `\r` ends a line, as the LSP specification counts line ends (`\n`, `\r\n`,
//! `\r`): a line comment stops before it, so the declaration after it is parsed
//! (issue 20). Before, the comment token ran to the next `\n` and swallowed it.

use tree_sitter::{Language, Node, Parser};
use tree_sitter_wirelens as tsw;

fn parse(language: Language, text: &str) -> tree_sitter::Tree {
    let mut parser = Parser::new();
    parser.set_language(&language).expect("grammar loads");
    parser.parse(text, None).expect("parses")
}

/// Every node of `kind` as its source text.
fn texts<'t>(node: Node, text: &'t str, kind: &str, out: &mut Vec<&'t str>) {
    if node.kind() == kind {
        out.push(&text[node.byte_range()]);
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        texts(child, text, kind, out);
    }
}

fn check(language: Language, text: &str, declaration: &str, names: &[&str]) {
    let tree = parse(language, text);
    let root = tree.root_node();
    assert!(!root.has_error(), "{text:?}: {}", root.to_sexp());
    let mut comments = Vec::new();
    texts(root, text, "comment", &mut comments);
    assert!(!comments.is_empty(), "{text:?}: no comment in {}", root.to_sexp());
    for c in &comments {
        assert!(
            !c.contains('\r') && !c.contains('\n'),
            "a comment ran past its line end: {c:?}"
        );
    }
    let mut decls = Vec::new();
    texts(root, text, declaration, &mut decls);
    assert_eq!(decls.len(), names.len(), "{text:?}: {}", root.to_sexp());
    for (d, name) in decls.iter().zip(names) {
        assert!(d.contains(name), "{d:?} should declare {name}");
    }
}

#[test]
fn sdp_line_comments_end_at_a_lone_carriage_return() {
    for eol in ["\r", "\r\n", "\n"] {
        let text = format!("// one{eol}struct A {{{eol}    /// doc{eol}    x: u8, // trailing{eol}}}{eol}// two{eol}struct B {{}}{eol}");
        check(tsw::LANGUAGE_SDP.into(), &text, "struct_item", &["A", "B"]);
    }
}

#[test]
fn ffire_line_comments_end_at_a_lone_carriage_return() {
    for eol in ["\r", "\r\n", "\n"] {
        let text = format!(
            "package p{eol}// one{eol}type A struct {{{eol}\tX int8 // trailing{eol}}}{eol}// two{eol}type B struct {{{eol}\tY bool{eol}}}{eol}"
        );
        check(tsw::LANGUAGE_FFI.into(), &text, "type_declaration", &["A", "B"]);
    }
}
