//! CST → schema model, one module per dialect. Lowering reports what the grammar
//! accepts but the dialect does not (unsupported Go constructs, ignored declarations);
//! the semantic checks live in [`crate::check`].

mod ffi;
mod sdp;

use tree_sitter::{Node, Tree};

use crate::config::FieldOrder;
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::{OrderSource, Schema};

/// The ffire order chosen outside the file (settings or a command-line flag).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderChoice {
    pub order: Option<FieldOrder>,
    /// A command-line flag beats even the file's own directive.
    pub overrides_directive: bool,
}

pub fn lower(dialect: Dialect, text: &str, tree: &Tree, order: OrderChoice) -> (Schema, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut schema = match dialect {
        Dialect::Sdp => sdp::lower(text, tree, &mut diags),
        Dialect::Ffi => ffi::lower(text, tree, order, &mut diags),
    };
    if dialect == Dialect::Sdp {
        schema.order = FieldOrder::Declaration;
        schema.order_source = OrderSource::Dialect;
    }
    schema.resolve();
    (schema, diags)
}

/// `node.child_by_field_name(name)` without its cost: tree-sitter looks the name up by
/// scanning the grammar's field names on every call, and lowering calls it for every
/// field of every struct on every keystroke. Ids are looked up once per dialect.
pub(crate) fn child<'t>(node: Node<'t>, dialect: Dialect, name: FieldName) -> Option<Node<'t>> {
    static IDS: std::sync::OnceLock<[[Option<std::num::NonZeroU16>; FieldName::COUNT]; 2]> = std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        [Dialect::Sdp, Dialect::Ffi].map(|d| {
            let lang = d.language();
            FieldName::ALL.map(|f| lang.field_id_for_name(f.as_str()))
        })
    });
    let id = ids[dialect as usize][name as usize]?;
    node.child_by_field_id(id.get())
}

/// The grammar field names lowering reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldName {
    Name,
    Type,
    Body,
    Element,
    Inner,
    Tag,
}

impl FieldName {
    const COUNT: usize = 6;
    const ALL: [FieldName; FieldName::COUNT] = [
        FieldName::Name,
        FieldName::Type,
        FieldName::Body,
        FieldName::Element,
        FieldName::Inner,
        FieldName::Tag,
    ];

    fn as_str(self) -> &'static str {
        match self {
            FieldName::Name => "name",
            FieldName::Type => "type",
            FieldName::Body => "body",
            FieldName::Element => "element",
            FieldName::Inner => "inner",
            FieldName::Tag => "tag",
        }
    }
}

pub(crate) fn node_text<'a>(node: Node, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

/// A line comment's range without the `\r` of a CRLF line end, which the comment
/// token includes.
pub(crate) fn comment_range(node: Node, text: &str) -> std::ops::Range<usize> {
    let range = node.byte_range();
    let trimmed = node_text(node, text).trim_end_matches('\r').len();
    range.start..range.start + trimmed
}

/// Named children, looking through `ERROR` nodes so that one typo does not hide the
/// declarations around it.
pub(crate) fn children_through_errors<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    // Iterative: error recovery can nest ERROR nodes deeply on hostile input.
    let mut cursor = node.walk();
    let mut stack: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    stack.reverse();
    while let Some(child) = stack.pop() {
        if child.is_error() {
            let mut c = child.walk();
            let inner: Vec<Node<'t>> = child.named_children(&mut c).collect();
            stack.extend(inner.into_iter().rev());
        } else {
            out.push(child);
        }
    }
    out
}

/// Deepest type expression lowered (`[][]…T`, `Option<Option<…>>`); deeper ones are
/// reported, so that no later pass recurses without bound on hostile input.
pub(crate) const MAX_TYPE_NESTING: usize = 64;

pub(crate) fn too_deep(range: std::ops::Range<usize>) -> Diagnostic {
    Diagnostic::error(
        "type-too-deep",
        range,
        format!("type nested more than {MAX_TYPE_NESTING} levels deep"),
    )
    .with_label("too deep")
}
