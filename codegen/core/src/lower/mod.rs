//! CST → schema model, one module per dialect. Lowering reports what the grammar
//! accepts but the dialect does not (unsupported Go constructs, ignored declarations);
//! the semantic checks live in [`crate::check`].

mod characters;
mod ffi;

pub(crate) use ffi::unsupported_builtin;
mod sdp;

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::FieldOrder;
use crate::model::{Names, OrderSource, Schema, TypeDef};
use crate::reuse::{Item, Memo};

/// The ffire order chosen outside the file (settings or a command-line flag).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderChoice {
    pub order: Option<FieldOrder>,
    /// A command-line flag beats even the file's own directive.
    pub overrides_directive: bool,
}

/// Lowers a whole file: the schema (names resolved) and every lowering diagnostic.
pub fn lower(dialect: Dialect, text: &str, tree: &Tree, order: OrderChoice) -> (Schema, Vec<Diagnostic>) {
    let (schema, mut diags, items, _) = lower_reusing(dialect, text, tree, order, None);
    diags.extend(items.into_iter().flat_map(|i| i.diags));
    (schema, diags)
}

/// [`lower`], taking unchanged declarations over from `memo`. The diagnostics are split:
/// those of the file as a whole, and each declaration's in its [`Item`].
pub(crate) fn lower_reusing(
    dialect: Dialect,
    text: &str,
    tree: &Tree,
    order: OrderChoice,
    mut memo: Option<&mut Memo>,
) -> (Schema, Vec<Diagnostic>, Vec<Item>, Names) {
    let mut diags = Vec::new();
    characters::check(dialect, text, &mut diags);
    let (nodes, errors) = top_level(tree.root_node());
    let mut names = memo.as_mut().map(|m| m.take_names()).unwrap_or_default();
    let items = Vec::with_capacity(memo.as_ref().map_or(0, |m| m.item_count()));
    let mut decls = Declarations {
        memo,
        errors,
        next_error: 0,
        prev_end: 0,
        items,
    };
    let mut schema = match dialect {
        Dialect::Sdp => sdp::lower(text, &nodes, &mut diags, &mut decls),
        Dialect::Ffi => ffi::lower(text, &nodes, order, &mut diags, &mut decls),
    };
    if dialect == Dialect::Sdp {
        schema.order = FieldOrder::Declaration;
        schema.order_source = OrderSource::Dialect;
    }
    // Types taken over from the memo (their items are already checked) come with their
    // references resolved.
    let mut resolved = vec![false; schema.types.len()];
    for item in decls.items.iter().filter(|i| i.checked) {
        resolved[item.types.clone()].fill(true);
    }
    schema.resolve_reusing(&mut names, &resolved);
    (schema, diags, decls.items, names)
}

/// The top-level declarations of one lowering, each lowered or taken over from the memo.
pub(crate) struct Declarations<'m> {
    memo: Option<&'m mut Memo>,
    /// `ERROR` nodes looked through at the top level: nothing near them is reused.
    errors: Vec<Range<usize>>,
    next_error: usize,
    /// End of the previous non-comment node: an item's text starts there.
    prev_end: usize,
    items: Vec<Item>,
}

impl Declarations<'_> {
    /// A capacity for the lowered types: the previous analysis' count, since an edit
    /// rarely changes it (growing a vector of thousands of types copies them over and over).
    pub fn types_hint(&self) -> usize {
        self.memo.as_ref().map_or(0, |m| m.type_count())
    }

    /// A node that is not a declaration (and not a comment) ends the text of the next item.
    pub fn other(&mut self, node: Node) {
        self.prev_end = node.end_byte();
    }

    /// The types of declaration `node`: from the memo when its text is unchanged, else
    /// from `lower`, which reports into the item's diagnostics.
    pub fn declaration(
        &mut self,
        node: Node,
        text: &str,
        types: &mut Vec<TypeDef>,
        lower: impl FnOnce(&mut Vec<Diagnostic>) -> Vec<TypeDef>,
    ) {
        let span = self.prev_end.min(node.start_byte())..node.end_byte();
        self.prev_end = node.end_byte();
        // `errors` is disjoint and in order, and spans come in order.
        while self.errors.get(self.next_error).is_some_and(|e| e.end < span.start) {
            self.next_error += 1;
        }
        let near_error = self.errors.get(self.next_error).is_some_and(|e| e.start <= span.end);
        let reusable = !node.has_error() && !near_error;
        if let (true, Some(memo)) = (reusable, self.memo.as_deref_mut()) {
            if let Some(item) = memo.take(text, &span, types) {
                self.items.push(item);
                return;
            }
        }
        let start = types.len();
        let mut diags = Vec::new();
        types.extend(lower(&mut diags));
        self.items.push(Item::new(span, start..types.len(), diags, reusable));
    }
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

/// The ids of the two node kinds the top-level loops test on every node: comments and
/// declarations (`struct_item`, `type_declaration`). Comparing `kind()` strings costs a
/// `strlen` per test, on every keystroke, for every node of the file.
pub(crate) struct TopKinds {
    pub comment: u16,
    pub declaration: u16,
}

pub(crate) fn top_kinds(dialect: Dialect) -> &'static TopKinds {
    static KINDS: std::sync::OnceLock<[TopKinds; 2]> = std::sync::OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        [Dialect::Sdp, Dialect::Ffi].map(|d| {
            let lang = d.language();
            let declaration = match d {
                Dialect::Sdp => "struct_item",
                Dialect::Ffi => "type_declaration",
            };
            TopKinds {
                comment: lang.id_for_node_kind("comment", true),
                declaration: lang.id_for_node_kind(declaration, true),
            }
        })
    });
    &kinds[dialect as usize]
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
    top_level(node).0
}

/// [`children_through_errors`], and the ranges of the `ERROR` nodes looked through.
fn top_level(node: Node<'_>) -> (Vec<Node<'_>>, Vec<Range<usize>>) {
    // Sized up front: on a big file this runs per keystroke over thousands of nodes.
    let mut out = Vec::with_capacity(node.named_child_count());
    let mut errors = Vec::new();
    let mut cursor = node.walk();
    // Iterative: error recovery can nest ERROR nodes deeply on hostile input. The stack
    // holds only what ERROR nodes contain; the common case never touches it.
    let mut stack: Vec<Node> = Vec::new();
    for child in node.named_children(&mut cursor) {
        stack.push(child);
        while let Some(child) = stack.pop() {
            if child.is_error() {
                // Kept disjoint and in order (an ERROR inside another adds nothing).
                if errors.last().is_none_or(|e: &Range<usize>| e.end <= child.start_byte()) {
                    errors.push(child.byte_range());
                }
                let mut c = child.walk();
                let at = stack.len();
                stack.extend(child.named_children(&mut c));
                stack[at..].reverse();
            } else {
                out.push(child);
            }
        }
    }
    (out, errors)
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
