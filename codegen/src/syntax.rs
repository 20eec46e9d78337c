//! Parsing with tree-sitter, and turning `ERROR` / `MISSING` nodes into `SYNTAX` diagnostics.

use tree_sitter::{Node, Parser, Tree};

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;

/// Parses `text`, reusing `old` (already `Tree::edit`ed) for an incremental reparse.
/// Returns `None` only if tree-sitter refuses the language, which would be a build bug.
pub fn parse(dialect: Dialect, text: &str, old: Option<&Tree>) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&dialect.language()).ok()?;
    parser.parse(text, old)
}

/// Every syntax error of the tree: each `ERROR` node (not the ones nested inside
/// another) and each `MISSING` node.
pub fn syntax_errors(dialect: Dialect, tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !tree.root_node().has_error() {
        return out;
    }
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() {
            out.push(missing(node));
            descend = false;
        } else if node.is_error() {
            out.push(unexpected(dialect, node, text));
            // MISSING nodes inside an ERROR are still worth reporting; ERRORs are not.
            collect_missing(node, &mut out);
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                out.sort_by_key(|d| (d.range.start, d.range.end));
                return out;
            }
        }
    }
}

fn collect_missing(node: Node, out: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.is_missing() {
            out.push(missing(child));
        } else if child.has_error() {
            collect_missing(child, out);
        }
    }
}

fn missing(node: Node) -> Diagnostic {
    let what = node.kind();
    let what = if node.is_named() {
        what.replace('_', " ")
    } else {
        format!("`{}`", what.escape_debug())
    };
    Diagnostic::error(
        "SYNTAX",
        node.start_byte()..node.start_byte(),
        format!("syntax error: missing {what}"),
    )
    .with_label(format!("expected {what} here"))
}

fn unexpected(dialect: Dialect, node: Node, text: &str) -> Diagnostic {
    // A complete field stranded in an ERROR, followed by another field, is the
    // classic missing separator between two fields.
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    if let [only] = children.as_slice() {
        if only.kind() == "field_declaration" {
            let name = only
                .child_by_field_name("name")
                .and_then(|n| text.get(n.byte_range()))
                .unwrap_or("");
            let end = only.end_byte();
            let sep = match dialect {
                Dialect::Ffi => "a newline or `;`",
                Dialect::Sdp => "`,`",
            };
            return Diagnostic::error(
                "SYNTAX",
                end..end,
                format!("syntax error: missing {sep} after field `{name}`"),
            )
            .with_label(format!("expected {sep} here"));
        }
    }
    let first = first_leaf(node);
    let token = text.get(first.byte_range()).unwrap_or("").trim();
    let shown: String = token.chars().take(24).collect();
    let shown = if shown.len() < token.len() {
        format!("{shown}…")
    } else {
        shown
    };
    // Keep the squiggle on one line: an ERROR can swallow the rest of a file.
    let range = if node.start_position().row == node.end_position().row {
        node.byte_range()
    } else {
        first.byte_range()
    };
    let message = if shown.is_empty() {
        "syntax error".to_string()
    } else {
        format!("syntax error: unexpected `{shown}`")
    };
    Diagnostic::error("SYNTAX", range, message).with_label("not expected here")
}

fn first_leaf(node: Node) -> Node {
    let mut n = node;
    while let Some(child) = n.child(0) {
        n = child;
    }
    n
}
