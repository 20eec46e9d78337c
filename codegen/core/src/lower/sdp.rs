//! SDP CST → model.

use tree_sitter::Node;

use super::{child, comment_range, node_text, too_deep, top_kinds, Declarations, FieldName, MAX_TYPE_NESTING};
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::FieldOrder;
use crate::model::{Field, OrderSource, Primitive, Schema, TypeDef, TypeExpr, TypeExprKind, TypeKind};

pub(super) fn lower(text: &str, nodes: &[Node], diags: &mut Vec<Diagnostic>, decls: &mut Declarations) -> Schema {
    let mut types = Vec::with_capacity(decls.types_hint());
    // The comments since the last declaration: the `///` ones are the next struct's docs.
    let kinds = top_kinds(Dialect::Sdp);
    let mut comments: Vec<Node> = Vec::new();
    for &node in nodes {
        let kind = node.kind_id();
        if kind == kinds.comment {
            comments.push(node);
        } else if kind == kinds.declaration {
            decls.declaration(node, text, &mut types, |diags| {
                let mut docs = Vec::new();
                comments.iter().for_each(|&c| collect_doc(c, text, &mut docs));
                lower_struct(node, text, docs, diags).into_iter().collect()
            });
            comments.clear();
        } else {
            comments.clear();
            decls.other(node);
        }
    }
    // `///` lines after the last struct document nothing.
    if let Some(&c) = comments.iter().find(|c| node_text(**c, text).starts_with("///")) {
        diags.push(upstream_parse(
            comment_range(c, text),
            "sdp-gen rejects a `///` doc comment at the end of the file",
            "help: make it a `//` comment, or put a struct after it",
        ));
    }
    Schema {
        dialect: Dialect::Sdp,
        order: FieldOrder::Declaration,
        order_source: OrderSource::Dialect,
        package: None,
        types,
    }
}

/// `///` lines accumulate into the next struct's or field's docs; `//` lines are plain comments.
fn collect_doc(node: Node, text: &str, docs: &mut Vec<String>) {
    let t = node_text(node, text).trim_end_matches('\r');
    if let Some(doc) = t.strip_prefix("///") {
        docs.push(doc.strip_prefix(' ').unwrap_or(doc).to_string());
    }
}

fn lower_struct(node: Node, text: &str, docs: Vec<String>, diags: &mut Vec<Diagnostic>) -> Option<TypeDef> {
    let name_node = child(node, Dialect::Sdp, FieldName::Name).filter(|n| !n.is_missing())?;
    let body = child(node, Dialect::Sdp, FieldName::Body)?;
    let mut fields = Vec::new();
    let mut field_docs = Vec::new();
    let mut last_field_end = None;
    let mut comma_after_last = false;
    let mut comment_after_unterminated = None;
    // A comment between `struct`, the name and `{`.
    let mut cursor = node.walk();
    for c in node.children(&mut cursor).filter(|c| c.kind() == "comment") {
        diags.push(upstream_parse(
            comment_range(c, text),
            "sdp-gen rejects a comment between `struct` and `{`",
            "help: move the comment above the struct",
        ));
    }
    // The comments since the last field or comma: sdp-gen refuses them before a comma,
    // and a `///` before `}` documents nothing.
    let mut pending: Vec<Node> = Vec::new();
    let mut cursor = body.walk();
    let mut children: Vec<Node> = Vec::new();
    for child in body.children(&mut cursor) {
        if child.is_error() {
            let mut c2 = child.walk();
            children.extend(child.children(&mut c2));
        } else {
            children.push(child);
        }
    }
    for child in children {
        match child.kind() {
            "comment" => {
                if last_field_end.is_some() && !comma_after_last {
                    comment_after_unterminated.get_or_insert(comment_range(child, text));
                }
                collect_doc(child, text, &mut field_docs);
                pending.push(child);
            }
            "," => {
                if let Some(&c) = pending.first() {
                    diags.push(upstream_parse(
                        comment_range(c, text),
                        "sdp-gen rejects a comment before a comma",
                        "help: put the comment after the comma",
                    ));
                }
                pending.clear();
                comma_after_last = true;
                comment_after_unterminated = None;
            }
            "field_declaration" => {
                pending.clear();
                comma_after_last = false;
                comment_after_unterminated = None;
                last_field_end = Some(child.end_byte());
                if let Some(f) = lower_field(child, text, std::mem::take(&mut field_docs), diags) {
                    fields.push(f);
                }
            }
            // A `}` recovery invented (the struct is not closed) is a syntax error, not
            // something sdp-gen would read: the comments before it belong to what follows.
            "}" if child.is_missing() => comment_after_unterminated = None,
            "}" => {
                let unterminated = last_field_end.is_some() && !comma_after_last;
                if let Some(&c) = pending.iter().find(|c| node_text(**c, text).starts_with("///")) {
                    if !unterminated {
                        diags.push(upstream_parse(
                            comment_range(c, text),
                            "sdp-gen rejects a `///` doc comment before `}`",
                            "help: make it a `//` comment, or put a field after it",
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(range) = comment_after_unterminated {
        diags.push(
            Diagnostic::warning(
                "upstream-parse",
                range,
                "sdp-gen rejects a comment after the last field unless that field ends with `,`",
            )
            .with_label("sdp-gen fails to parse this file")
            .with_note("help: add a trailing `,` after the last field"),
        );
    }
    Some(TypeDef {
        name: node_text(name_node, text).to_string(),
        name_range: name_node.byte_range(),
        range: node.byte_range(),
        docs,
        kind: TypeKind::Struct {
            fields,
            body_range: body.byte_range(),
        },
    })
}

/// The `upstream-parse` warning: wirelens reads the file, `sdp-gen` cannot.
fn upstream_parse(range: std::ops::Range<usize>, message: &str, help: &str) -> Diagnostic {
    Diagnostic::warning("upstream-parse", range, message)
        .with_label("sdp-gen fails to parse this file")
        .with_note(help)
}

/// sdp-gen takes no comment inside a field (`name // c` `: u8`, `Option< // c` `T>`).
fn comments_inside_field(node: Node, text: &str, diags: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    'walk: loop {
        if cursor.node().kind() == "comment" {
            diags.push(upstream_parse(
                comment_range(cursor.node(), text),
                "sdp-gen rejects a comment inside a field declaration",
                "help: move the comment above the field, or after its comma",
            ));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() || cursor.node() == node {
                break 'walk;
            }
        }
    }
}

fn lower_field(node: Node, text: &str, docs: Vec<String>, diags: &mut Vec<Diagnostic>) -> Option<Field> {
    comments_inside_field(node, text, diags);
    let name_node = child(node, Dialect::Sdp, FieldName::Name).filter(|n| !n.is_missing())?;
    let ty = match node.child_by_field_name("type") {
        Some(t) => lower_type(t, text, 0, diags),
        None => {
            // The grammar lets a field end after its `:` (see `grammar/sdp/grammar.js`):
            // a syntax error, unless what follows is one already (a malformed type).
            let end = node.end_byte();
            if !node.next_sibling().is_some_and(|n| n.is_error()) {
                diags.push(
                    Diagnostic::error("SYNTAX", end..end, "syntax error: missing type")
                        .with_label("expected type here"),
                );
            }
            TypeExpr {
                kind: TypeExprKind::Invalid,
                range: end..end,
            }
        }
    };
    let name = node_text(name_node, text).to_string();
    Some(Field {
        json_name: name.clone(),
        name,
        name_range: name_node.byte_range(),
        range: node.byte_range(),
        ty,
        docs,
        tag: None,
    })
}

fn lower_type(node: Node, text: &str, depth: usize, diags: &mut Vec<Diagnostic>) -> TypeExpr {
    if depth > MAX_TYPE_NESTING {
        diags.push(too_deep(node.byte_range()));
        return TypeExpr {
            kind: TypeExprKind::Invalid,
            range: node.byte_range(),
        };
    }
    let mut inner = |field: FieldName| {
        child(node, Dialect::Sdp, field)
            .filter(|n| !n.is_missing())
            .map(|n| Box::new(lower_type(n, text, depth + 1, diags)))
    };
    let kind = match node.kind() {
        _ if node.is_missing() => TypeExprKind::Invalid,
        "primitive_type" => Primitive::from_spelling(Dialect::Sdp, node_text(node, text))
            .map_or(TypeExprKind::Invalid, TypeExprKind::Primitive),
        "type_identifier" => TypeExprKind::Named {
            name: node_text(node, text).to_string(),
            target: None,
        },
        "array_type" => inner(FieldName::Element).map_or(TypeExprKind::Invalid, TypeExprKind::Array),
        "option_type" | "box_type" => {
            let is_option = node.kind() == "option_type";
            match inner(FieldName::Inner) {
                None => TypeExprKind::Invalid,
                Some(e) => return wrap(is_option, *e, node, text, diags),
            }
        }
        _ => TypeExprKind::Invalid,
    };
    TypeExpr {
        kind,
        range: node.byte_range(),
    }
}

/// `Option<inner>` or `Box<inner>`, collapsed as sdp-gen collapses them: an `Option` or
/// `Box` around an `Option` is that `Option`, a `Box` around a `Box` is that `Box`
/// (`Box<Option<L>>`, `Option<Option<L>>` and `Option<Box<Option<L>>>` all encode as
/// `Option<L>`; `Box<Box<L>>` as `L`). `Option<Box<L>>` stays: it is `Option<L>` already.
/// Layout, checks, codec and emitters see only the collapsed type; one `nested-wrapper`
/// warning per written type says so.
fn wrap(is_option: bool, inner: TypeExpr, node: Node, text: &str, diags: &mut Vec<Diagnostic>) -> TypeExpr {
    let range = node.byte_range();
    let collapses = match inner.kind {
        TypeExprKind::Optional(_) => true,
        TypeExprKind::Boxed(_) => !is_option,
        _ => false,
    };
    if !collapses {
        let inner = Box::new(inner);
        let kind = if is_option {
            TypeExprKind::Optional(inner)
        } else {
            TypeExprKind::Boxed(inner)
        };
        return TypeExpr { kind, range };
    }
    // The inner expression's own warning (it collapsed too) is replaced by this one.
    if diags
        .last()
        .is_some_and(|d| d.code == NESTED_WRAPPER && d.range.start >= range.start && d.range.end <= range.end)
    {
        diags.pop();
    }
    let collapsed = TypeExpr {
        kind: inner.kind,
        range,
    };
    diags.push(
        Diagnostic::warning(
            NESTED_WRAPPER,
            collapsed.range.clone(),
            format!(
                "`{}` is `{}` on the wire: nested `Option` and `Box` collapse",
                node_text(node, text),
                collapsed.display(Dialect::Sdp)
            ),
        )
        .with_label("collapses")
        .with_note(format!("help: write `{}`", collapsed.display(Dialect::Sdp))),
    );
    collapsed
}

/// The warning code of a collapsed `Option`/`Box` nesting.
const NESTED_WRAPPER: &str = "nested-wrapper";
