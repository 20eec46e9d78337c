//! Parsing with tree-sitter, and turning `ERROR` / `MISSING` nodes into `SYNTAX` diagnostics.

use std::ops::Range;

use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::Primitive;
use crate::source::{ColumnUnit, SourceFile};

/// Parses `text`, reusing `old` (already `Tree::edit`ed) for an incremental reparse.
/// Returns `None` only if tree-sitter refuses the language, which would be a build bug.
///
/// Where the text is free of syntax errors the result is the one tree the grammar
/// allows, however it was reached. Where it is not, tree-sitter's error recovery can end
/// differently in an incremental parse than in a fresh one (other `ERROR` nodes, so
/// other syntax diagnostics while the text stays broken), as in every tree-sitter
/// editor. A fresh parse on every keystroke of a broken 5,000-struct file would cost
/// 150 ms instead of a few; the `reparse` fuzz target checks the equality that holds.
pub fn parse(dialect: Dialect, text: &str, old: Option<&Tree>) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&dialect.language()).ok()?;
    parser.parse(text, old)
}

/// Replaces the bytes `range` of `source` with `new_text` (`None`: the whole text) and
/// tells `tree` (the previous parse, if any) about it with [`Tree::edit`], so the next
/// [`parse`] is incremental. The language server applies each change of a
/// `didChange` this way; the `incremental` fuzz target checks that the result always
/// analyses like a fresh parse. A range past the end or inside a character is clamped
/// to the nearest character boundary before it.
pub fn apply_edit(source: &mut SourceFile, range: Option<Range<usize>>, new_text: &str, tree: Option<&mut Tree>) {
    let Some(range) = range else {
        *source = SourceFile::new(std::mem::take(&mut source.path), new_text);
        if let Some(t) = tree {
            // A full replacement: make the old tree describe nothing reusable.
            let old_end = t.root_node().end_byte();
            let old_end_position = t.root_node().end_position();
            t.edit(&InputEdit {
                start_byte: 0,
                old_end_byte: old_end,
                new_end_byte: new_text.len(),
                start_position: Point::new(0, 0),
                old_end_position,
                new_end_position: point(source, new_text.len()),
            });
        }
        return;
    };
    let floor = |mut i: usize| {
        i = i.min(source.text.len());
        while !source.text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(range.start);
    let end = floor(range.end).max(start);
    let start_position = point(source, start);
    let old_end_position = point(source, end);
    let mut text = std::mem::take(&mut source.text);
    text.replace_range(start..end, new_text);
    *source = SourceFile::new(std::mem::take(&mut source.path), text);
    let new_end = start + new_text.len();
    if let Some(t) = tree {
        t.edit(&InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position: point(source, new_end),
        });
    }
}

/// tree-sitter's point (row, byte column) of a byte offset.
fn point(source: &SourceFile, offset: usize) -> Point {
    let p = source.position(offset, ColumnUnit::Utf8);
    Point::new(p.line as usize, p.column as usize)
}

/// Every syntax error of the tree: each `ERROR` node (not the ones nested inside
/// another) and each `MISSING` node.
pub fn syntax_errors(dialect: Dialect, tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !tree.root_node().has_error() {
        return out;
    }
    let mut cursor = tree.walk();
    // Tracked here: `Node::prev_sibling` and `Node::parent` walk down from the root on
    // every call, which is quadratic on a large file with many errors.
    let mut prev_sibling: Option<Node> = None;
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() {
            out.push(missing(dialect, node));
            descend = false;
        } else if node.is_error() {
            unexpected(dialect, node, prev_sibling, text, &mut out);
            // MISSING nodes inside an ERROR are still worth reporting; ERRORs are not.
            collect_missing(dialect, node, &mut out);
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            prev_sibling = None;
            continue;
        }
        loop {
            let left = cursor.node();
            if cursor.goto_next_sibling() {
                prev_sibling = Some(left);
                break;
            }
            if !cursor.goto_parent() {
                out.sort_by_key(|d| (d.range.start, d.range.end));
                return out;
            }
        }
    }
}

fn collect_missing(dialect: Dialect, node: Node, out: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.is_missing() {
            out.push(missing(dialect, child));
        } else if child.has_error() {
            collect_missing(dialect, child, out);
        }
    }
}

fn missing(dialect: Dialect, node: Node) -> Diagnostic {
    let what = node.kind();
    // Recovery inserts the cheapest token; a missing `u8` in `Option<>` is a missing type.
    // (SDP's grammar spells its primitives as keywords.)
    let what = if dialect == Dialect::Sdp && !node.is_named() && Primitive::from_spelling(dialect, what).is_some() {
        "type".to_string()
    } else if node.is_named() {
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

/// One `ERROR` node. Recovery often wraps complete fields together with the stray
/// tokens after them (`r: u8; g: u8;`): the fields are fine, each run of other tokens
/// between them is an error of its own, and a field followed by another field (or by
/// whatever ended the ERROR) without a separator is a missing separator.
fn unexpected(dialect: Dialect, node: Node, prev_sibling: Option<Node>, text: &str, out: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    let complete_field = |n: &Node| n.kind() == "field_declaration" && !n.has_error();
    if let [only] = children.as_slice() {
        if only.kind() == "field_declaration" {
            out.push(missing_separator(dialect, *only, text));
            return;
        }
    }
    if !children.iter().any(complete_field) {
        // SDP: an ERROR that starts a new `name: type` right after a field, with no `,`
        // between them.
        let after_field = prev_sibling.filter(|prev| {
            dialect == Dialect::Sdp
                && complete_field(prev)
                && matches!(
                    first_leaf(node).kind(),
                    "identifier" | "type_identifier" | "field_identifier"
                )
        });
        out.push(match after_field {
            Some(field) => missing_separator(dialect, field, text),
            None => stray(&[node], text),
        });
        return;
    }
    let mut run: Vec<Node> = Vec::new();
    let mut last_field: Option<Node> = None;
    for child in children {
        if complete_field(&child) {
            if !run.is_empty() {
                out.push(stray(&run, text));
                run.clear();
            } else if let Some(field) = last_field {
                out.push(missing_separator(dialect, field, text));
            }
            last_field = Some(child);
        } else {
            run.push(child);
        }
    }
    if !run.is_empty() {
        out.push(stray(&run, text));
    } else if let Some(field) = last_field {
        out.push(missing_separator(dialect, field, text));
    }
}

fn missing_separator(dialect: Dialect, field: Node, text: &str) -> Diagnostic {
    let name = field
        .child_by_field_name("name")
        .and_then(|n| text.get(n.byte_range()))
        .unwrap_or("");
    let end = field.end_byte();
    let sep = match dialect {
        Dialect::Ffi => "a newline or `;`",
        Dialect::Sdp => "`,`",
    };
    Diagnostic::error(
        "SYNTAX",
        end..end,
        format!("syntax error: missing {sep} after field `{name}`"),
    )
    .with_label(format!("expected {sep} here"))
}

/// Consecutive nodes the parser could not place (non-empty).
fn stray(nodes: &[Node], text: &str) -> Diagnostic {
    let (start, end) = (nodes[0], nodes[nodes.len() - 1]);
    let first = first_leaf(start);
    let token = text.get(first.byte_range()).unwrap_or("").trim();
    let shown: String = token.chars().take(24).collect();
    let shown = if shown.len() < token.len() {
        format!("{shown}…")
    } else {
        shown
    };
    // Keep the squiggle on one line: an ERROR can swallow the rest of a file.
    let range = if start.start_position().row == end.end_position().row {
        start.start_byte()..end.end_byte()
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
