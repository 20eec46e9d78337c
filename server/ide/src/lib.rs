//! The IDE layer: what the editor shows, computed from one immutable [`Snapshot`] of a
//! document in byte offsets and plain data. No LSP types here: `lsp::convert` turns
//! these answers into protocol values, `lsp::handlers` wires them to requests.
//!
//! Every function costs at most linear time in the document (one struct with 8,000
//! fields included): per-type tables are built once per request, never searched per
//! field.

pub mod compat;
pub mod diagram;
pub mod views;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::ops::Range;

use wirelens_core::layout::{FieldLayout, TypeLayout};
use wirelens_core::model::{Primitive, Schema, TypeDef, TypeExpr, TypeId, TypeKind};
use wirelens_core::{Analysis, Dialect, Severity, SourceFile};

/// One version of a document, analysed. Shared (`Arc`) between the store and the
/// requests computing from it; never changed once built.
pub struct Snapshot {
    pub dialect: Dialect,
    pub version: i32,
    pub source: SourceFile,
    pub analysis: Analysis,
}

impl Snapshot {
    pub fn new(dialect: Dialect, version: i32, source: SourceFile, analysis: Analysis) -> Snapshot {
        Snapshot {
            dialect,
            version,
            source,
            analysis,
        }
    }

    fn schema(&self) -> &Schema {
        &self.analysis.schema
    }
}

/// What the cursor is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The name in a type's declaration.
    TypeName(TypeId),
    /// A field's name: its type and declaration index.
    Field(TypeId, usize),
    /// A use of a type name (a field's type, an alias target); `target` is `None` when
    /// the name resolves to nothing.
    TypeRef {
        range: Range<usize>,
        target: Option<TypeId>,
    },
}

fn within(r: &Range<usize>, offset: usize) -> bool {
    r.start <= offset && offset <= r.end
}

/// The type expressions inside a type's declaration (field types or the alias target).
fn type_exprs(schema: &Schema, id: TypeId) -> Vec<&TypeExpr> {
    match &schema.types[id].kind {
        TypeKind::Struct { fields, .. } => fields.iter().map(|f| &f.ty).collect(),
        TypeKind::Alias { target, .. } => vec![target],
    }
}

/// What is under `offset`: the one answer hover, definition, references and rename use.
pub fn locate(schema: &Schema, offset: usize) -> Option<Target> {
    for (id, def) in schema.types.iter().enumerate() {
        if within(&def.name_range, offset) {
            return Some(Target::TypeName(id));
        }
        if !within(&def.range, offset) {
            continue;
        }
        for (i, f) in def.fields().iter().enumerate() {
            if within(&f.name_range, offset) {
                return Some(Target::Field(id, i));
            }
        }
        for ty in type_exprs(schema, id) {
            for (_, target, range) in ty.named_refs() {
                if within(&range, offset) {
                    return Some(Target::TypeRef { range, target });
                }
            }
        }
    }
    None
}

/// Every use of type `id` in the schema (field types and alias targets), in order.
pub fn references_to(schema: &Schema, id: TypeId) -> Vec<Range<usize>> {
    (0..schema.types.len())
        .flat_map(|t| type_exprs(schema, t))
        .flat_map(|ty| ty.named_refs())
        .filter(|(_, t, _)| *t == Some(id))
        .map(|(_, _, r)| r)
        .collect()
}

/// The type a cursor on a type name or a resolved type use means.
pub(crate) fn type_at(schema: &Schema, offset: usize) -> Option<TypeId> {
    match locate(schema, offset)? {
        Target::TypeName(id) | Target::TypeRef { target: Some(id), .. } => Some(id),
        _ => None,
    }
}

/// The declaration's name of the type under the cursor.
pub fn definition(snap: &Snapshot, offset: usize) -> Option<Range<usize>> {
    let id = type_at(snap.schema(), offset)?;
    Some(snap.schema().types[id].name_range.clone())
}

/// Uses of the type under the cursor, with its declaration first when asked.
pub fn references(snap: &Snapshot, offset: usize, include_declaration: bool) -> Option<Vec<Range<usize>>> {
    let schema = snap.schema();
    let id = type_at(schema, offset)?;
    let mut out = Vec::new();
    if include_declaration {
        out.push(schema.types[id].name_range.clone());
    }
    out.extend(references_to(schema, id));
    Some(out)
}

/// Markdown for the type, field or primitive under the cursor, numbers written as the
/// `wirelens.numberFormat` setting says.
pub fn hover(snap: &Snapshot, offset: usize, nf: views::NumberFormat) -> Option<String> {
    let a = &snap.analysis;
    if let Some(p) = primitive_at(&a.schema, offset) {
        return Some(views::primitive_hover(snap.dialect, p, nf));
    }
    match locate(&a.schema, offset)? {
        Target::TypeName(id) | Target::TypeRef { target: Some(id), .. } => {
            views::type_hover(&a.schema, &a.layout, id, nf)
        }
        Target::Field(id, i) => views::field_hover(&a.schema, &a.layout, id, i, nf),
        Target::TypeRef { target: None, .. } => None,
    }
}

/// The primitive type written under `offset` (a field's `u32`, the `int64` of
/// `[]int64`), if any.
fn primitive_at(schema: &Schema, offset: usize) -> Option<Primitive> {
    let id = schema.types.iter().position(|d| within(&d.range, offset))?;
    for ty in type_exprs(schema, id) {
        let mut t = ty;
        loop {
            match &t.kind {
                wirelens_core::model::TypeExprKind::Primitive(p) if within(&t.range, offset) => return Some(*p),
                wirelens_core::model::TypeExprKind::Array(e)
                | wirelens_core::model::TypeExprKind::Optional(e)
                | wirelens_core::model::TypeExprKind::Boxed(e) => t = e,
                _ => break,
            }
        }
    }
    None
}

/// A type's field layouts indexed by declaration order (built once, so a struct with
/// thousands of fields costs linear time, not a search per field).
fn by_declaration(t: &TypeLayout, fields: usize) -> Vec<Option<&FieldLayout>> {
    let mut out = vec![None; fields];
    for f in &t.fields {
        if let Some(slot) = out.get_mut(f.decl_index) {
            *slot = Some(f);
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the label goes: after the field (and its separating comma).
    pub offset: usize,
    /// Short (fits an editor's hint width).
    pub label: String,
    /// The full offset expression and size.
    pub tooltip: String,
}

/// Offset and size of every field that overlaps `window`.
pub fn inlay_hints(snap: &Snapshot, window: Range<usize>) -> Vec<InlayHint> {
    let a = &snap.analysis;
    let text = &snap.source.text;
    let mut hints = Vec::new();
    for (id, def) in a.schema.types.iter().enumerate() {
        if def.range.end < window.start || def.range.start > window.end {
            continue;
        }
        let fields = def.fields();
        let Some(t) = a.layout.get(id) else {
            // No layout (an unknown or broken type inside): show what is still known.
            let partial = a.layout.partial(&a.schema, id).unwrap_or_default();
            let mut end = None;
            for (f, pf) in fields.iter().zip(&partial) {
                let previous_end = end;
                if let (Some(o), Some(s)) = (&pf.offset, pf.size.filter(|s| s.fixed.is_none())) {
                    end = Some(o.constant.saturating_add(s.min));
                }
                if f.range.end < window.start || f.range.start > window.end {
                    continue;
                }
                let h = views::partial_hint(&a.layout, previous_end, pf);
                hints.push(InlayHint {
                    offset: hint_offset(text, f.range.end),
                    label: h.label,
                    tooltip: h.tooltip,
                });
            }
            continue;
        };
        let layouts = by_declaration(t, fields.len());
        let ends = views::variable_ends(t);
        for (f, fl) in fields.iter().zip(layouts) {
            if f.range.end < window.start || f.range.start > window.end {
                continue;
            }
            let Some(fl) = fl else { continue };
            let h = views::field_hint(&a.layout, &ends, fl);
            hints.push(InlayHint {
                offset: hint_offset(text, f.range.end),
                label: h.label,
                tooltip: h.tooltip,
            });
        }
    }
    hints
}

/// After the field and its separating comma.
fn hint_offset(text: &str, field_end: usize) -> usize {
    field_end + usize::from(text.get(field_end..).is_some_and(|rest| rest.starts_with(',')))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lens {
    /// The type's name.
    pub range: Range<usize>,
    pub title: String,
    /// The type the lens shows the layout of.
    pub type_name: String,
}

/// A lens with the totals above every type that has a layout, or `None` as soon as there
/// are more than `max`: the titles of the rest are not made (a 5,000-struct schema
/// formatted all of them on every keystroke for an editor that then showed none).
pub fn lenses(snap: &Snapshot, max: usize) -> Option<Vec<Lens>> {
    let a = &snap.analysis;
    let mut out = Vec::new();
    for (id, def) in a.schema.types.iter().enumerate() {
        let Some(title) =
            views::lens_title(&a.schema, &a.layout, id).or_else(|| views::partial_lens_title(&a.schema, &a.layout, id))
        else {
            continue;
        };
        if out.len() == max {
            return None;
        }
        out.push(Lens {
            range: def.name_range.clone(),
            title,
            type_name: def.name.clone(),
        });
    }
    Some(out)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    /// A struct (else an alias, ffire's `type X []Y`) or a field.
    pub kind: SymbolKind,
    pub range: Range<usize>,
    pub name_range: Range<usize>,
    pub children: Vec<Symbol>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    Struct,
    Alias,
    Field,
}

/// Types with their fields; details carry the layout. A document of more than `max_fields`
/// fields gets its types only, without details (their fields are not even looked at).
pub fn document_symbols(snap: &Snapshot, max_fields: usize) -> Vec<Symbol> {
    let a = &snap.analysis;
    let d = a.schema.dialect;
    let with_fields = a.schema.types.iter().map(|def| def.fields().len()).sum::<usize>() <= max_fields;
    a.schema
        .types
        .iter()
        .enumerate()
        .map(|(id, def)| {
            let fields = if with_fields { def.fields() } else { &[] };
            let t = a.layout.get(id);
            let layouts = t.map_or_else(|| vec![None; fields.len()], |t| by_declaration(t, fields.len()));
            let ends = t.filter(|_| with_fields).map(views::variable_ends).unwrap_or_default();
            Symbol {
                name: def.name.clone(),
                detail: if with_fields {
                    views::lens_title(&a.schema, &a.layout, id)
                } else {
                    None
                },
                kind: if def.is_struct() {
                    SymbolKind::Struct
                } else {
                    SymbolKind::Alias
                },
                range: def.range.clone(),
                name_range: def.name_range.clone(),
                children: fields
                    .iter()
                    .zip(layouts)
                    .map(|(f, fl)| Symbol {
                        name: f.name.clone(),
                        detail: Some(match fl {
                            Some(fl) => {
                                format!("{}  {}", f.ty.display(d), views::field_hint(&a.layout, &ends, fl).label)
                            }
                            None => f.ty.display(d).to_string(),
                        }),
                        kind: SymbolKind::Field,
                        range: f.range.clone(),
                        name_range: f.name_range.clone(),
                        children: Vec::new(),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Names of the types whose name contains `query` (lower case), with their name ranges.
pub fn workspace_symbols(snap: &Snapshot, query: &str) -> Vec<(String, SymbolKind, Range<usize>)> {
    snap.schema()
        .types
        .iter()
        .filter(|def| query.is_empty() || def.name.to_lowercase().contains(query))
        .map(|def| {
            let kind = if def.is_struct() {
                SymbolKind::Struct
            } else {
                SymbolKind::Alias
            };
            (def.name.clone(), kind, def.name_range.clone())
        })
        .collect()
}

/// Each type's declaration, folded to its name (the LSP layer drops one-line ones).
pub fn folding_ranges(snap: &Snapshot) -> Vec<(Range<usize>, String)> {
    snap.schema()
        .types
        .iter()
        .map(|def| (def.range.clone(), def.name.clone()))
        .collect()
}

/// The whole text in canonical style; `None` when the file has syntax errors (the
/// result could lose text) or the formatter refuses it.
pub fn format(snap: &Snapshot) -> Option<String> {
    if snap.analysis.has_syntax_errors() {
        return None;
    }
    wirelens_core::fmt::format(snap.dialect, &snap.source.text).ok()
}

// ---- completion ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    Primitive,
    Type,
    Snippet,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// A snippet in LSP snippet syntax (`${1:T}`), inserted instead of the label.
    pub snippet: Option<String>,
}

/// Primitive type names of a dialect.
fn primitives(d: Dialect) -> Vec<&'static str> {
    Primitive::ALL.iter().filter_map(|p| p.spelling(d)).collect()
}

/// Whether the cursor sits where a type is expected (after `:` in SDP, after a field
/// name in ffire), judged from the text of the line before it.
fn in_type_position(d: Dialect, line_before: &str) -> bool {
    match d {
        Dialect::Sdp => line_before.contains(':'),
        Dialect::Ffi => {
            let t = line_before.trim_start();
            t.starts_with("type ") || t.split_whitespace().count() >= 1 && line_before.ends_with(' ') && !t.is_empty()
        }
    }
}

/// At most this many type names in one completion answer. Editors ask for completions on
/// every identifier character typed; all 5,000 types of a big schema were a 270 KB answer
/// per keystroke, parsed by the editor while the keystroke's inlay hints waited. An answer
/// cut here is marked incomplete, and the editor asks again as the name is typed on.
pub const COMPLETION_TYPE_LIMIT: usize = 1000;

/// What [`completion`] offers at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completions {
    pub items: Vec<Completion>,
    /// Types were left out ([`COMPLETION_TYPE_LIMIT`]): ask again when more is typed.
    pub incomplete: bool,
}

/// Whether `typed` (the identifier being typed) could still become `name`: its characters
/// appear in `name` in order, ignoring case. Editors filter the list themselves with a
/// stricter fuzzy match, so this never hides an item they would show.
fn could_become(typed: &str, name: &str) -> bool {
    let mut rest = name.chars().flat_map(char::to_lowercase);
    typed.chars().flat_map(char::to_lowercase).all(|t| rest.any(|n| n == t))
}

pub fn completion(snap: &Snapshot, offset: usize) -> Completions {
    let d = snap.dialect;
    let text = &snap.source.text;
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    // The identifier being typed, and the line before it (what decides the position).
    let typed_at = text[line_start..offset]
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(line_start, |(i, c)| line_start + i + c.len_utf8());
    let (before, typed) = (&text[line_start..typed_at], &text[typed_at..offset]);
    let mut items = Vec::new();
    let mut incomplete = false;
    let snippet = |label: &str, snippet: &str, detail: Option<&str>| Completion {
        label: label.to_string(),
        kind: CompletionKind::Snippet,
        detail: detail.map(str::to_string),
        snippet: Some(snippet.to_string()),
    };
    if in_type_position(d, before) {
        for p in primitives(d) {
            items.push(Completion {
                label: p.to_string(),
                kind: CompletionKind::Primitive,
                detail: Some("primitive".into()),
                snippet: None,
            });
        }
        let cyclic = types_reaching(snap.schema(), offset);
        let mut offered = 0;
        for (id, def) in snap.schema().types.iter().enumerate() {
            if cyclic.get(id).copied().unwrap_or(false) || !could_become(typed, &def.name) {
                continue;
            }
            if offered == COMPLETION_TYPE_LIMIT {
                incomplete = true;
                break;
            }
            offered += 1;
            let detail = snap
                .analysis
                .layout
                .get(id)
                .map(|t| match t.size.fixed {
                    Some(n) => format!("{n} B fixed"),
                    None => format!("≥ {} B", t.size.min),
                })
                .unwrap_or_default();
            items.push(Completion {
                label: def.name.clone(),
                kind: CompletionKind::Type,
                detail: Some(detail),
                snippet: None,
            });
        }
        let wrappers: &[(&str, &str)] = match d {
            Dialect::Sdp => &[
                ("[]", "[]${1:T}"),
                ("Option<…>", "Option<${1:T}>"),
                ("Box<…>", "Box<${1:T}>"),
            ],
            Dialect::Ffi => &[("[]", "[]${1:T}"), ("*", "*${1:T}")],
        };
        items.extend(wrappers.iter().map(|(label, s)| snippet(label, s, None)));
    } else {
        let snippets: &[(&str, &str, &str)] = match d {
            Dialect::Sdp => &[
                (
                    "struct",
                    "struct ${1:Name} {\n    ${2:field}: ${3:u32},\n}",
                    "a new struct",
                ),
                ("field", "${1:name}: ${2:u32},", "a field"),
            ],
            Dialect::Ffi => &[
                (
                    "type struct",
                    "type ${1:Name} struct {\n\t${2:Field} ${3:int32} `json:\"${4:field}\"`\n}",
                    "a new struct",
                ),
                (
                    "type list",
                    "type ${1:Names} []${2:Name}",
                    "a list type (a root when unreferenced)",
                ),
                (
                    "field",
                    "${1:Name} ${2:int32} `json:\"${3:name}\"`",
                    "a field with its JSON tag",
                ),
                ("package", "package ${1:schema}", "the package clause"),
            ],
        };
        items.extend(
            snippets
                .iter()
                .map(|(label, s, detail)| snippet(label, s, Some(detail))),
        );
    }
    Completions { items, incomplete }
}

/// Per type, whether using it in the struct around `offset` would close a cycle (the
/// struct itself and every type that mentions it, directly or not): SDP and ffire have
/// no recursive types. Linear in types and references.
fn types_reaching(schema: &Schema, offset: usize) -> Vec<bool> {
    let n = schema.types.len();
    let mut reaches = vec![false; n];
    let Some(here) = schema.types.iter().position(|t| within(&t.range, offset)) else {
        return reaches;
    };
    let mut users: Vec<Vec<TypeId>> = vec![Vec::new(); n];
    for id in 0..n {
        for ty in type_exprs(schema, id) {
            for (_, target, _) in ty.named_refs() {
                if let Some(t) = target.filter(|t| *t < n) {
                    users[t].push(id);
                }
            }
        }
    }
    let mut stack = vec![here];
    reaches[here] = true;
    while let Some(t) = stack.pop() {
        for &u in &users[t] {
            if !reaches[u] {
                reaches[u] = true;
                stack.push(u);
            }
        }
    }
    reaches
}

// ---- rename ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameKind {
    Type,
    Field(TypeId),
}

/// The identifier under `offset` (its range) and every occurrence to rewrite, if it can
/// be renamed.
pub fn rename_targets(schema: &Schema, offset: usize) -> Option<(Range<usize>, Vec<Range<usize>>, RenameKind)> {
    let all_of = |id: TypeId| {
        let mut all = vec![schema.types[id].name_range.clone()];
        all.extend(references_to(schema, id));
        all
    };
    match locate(schema, offset)? {
        Target::TypeName(id) => Some((schema.types[id].name_range.clone(), all_of(id), RenameKind::Type)),
        Target::TypeRef { range, target } => Some((range, all_of(target?), RenameKind::Type)),
        Target::Field(id, i) => {
            let r = schema.types[id].fields()[i].name_range.clone();
            Some((r.clone(), vec![r], RenameKind::Field(id)))
        }
    }
}

/// The range a rename would start from.
pub fn prepare_rename(snap: &Snapshot, offset: usize) -> Option<Range<usize>> {
    rename_targets(snap.schema(), offset).map(|(at, _, _)| at)
}

/// The ranges to replace with `new_name`; `Err` says why the name cannot be used.
pub fn rename(snap: &Snapshot, offset: usize, new_name: &str) -> Option<Result<Vec<Range<usize>>, String>> {
    let (_, all, kind) = rename_targets(snap.schema(), offset)?;
    Some(match rename_refusal(snap.schema(), kind, new_name) {
        Some(why) => Err(why),
        None => Ok(all),
    })
}

/// Why `new_name` cannot be used, if it cannot.
pub fn rename_refusal(schema: &Schema, kind: RenameKind, new_name: &str) -> Option<String> {
    let d = schema.dialect;
    let valid = new_name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && new_name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid {
        return Some(format!("`{new_name}` is not a valid identifier"));
    }
    if primitives(d).contains(&new_name) || (d == Dialect::Sdp && matches!(new_name, "struct" | "Option" | "Box")) {
        return Some(format!("`{new_name}` is a built-in name"));
    }
    if d == Dialect::Sdp {
        let langs = wirelens_core::reserved::reserved_in(new_name);
        if !langs.is_empty() {
            return Some(format!("`{new_name}` is reserved in {}", langs.join(", ")));
        }
    }
    let taken = match kind {
        RenameKind::Type => schema.types.iter().any(|t| t.name == new_name),
        RenameKind::Field(id) => schema.types[id].fields().iter().any(|f| f.name == new_name),
    };
    taken.then(|| format!("`{new_name}` already exists"))
}

// ---- semantic tokens ----

/// Token classes; the LSP layer's legend lists them in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Keyword = 0,
    Type = 1,
    Struct = 2,
    Property = 3,
    Comment = 4,
    String = 5,
}

/// Token modifier bits; the LSP layer's legend lists them in this order.
pub const MOD_DECLARATION: u32 = 1;
pub const MOD_DEFAULT_LIBRARY: u32 = 2;
pub const MOD_DOCUMENTATION: u32 = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub range: Range<usize>,
    pub kind: TokenKind,
    pub modifiers: u32,
}

/// Tokens from the syntax tree's leaves, in text order, refined by the model (which
/// names are structs, which are primitives). One walk with a cursor: a node's parent is
/// known from the walk (tree-sitter's `parent()` searches from the root, which made a
/// struct of 8,000 fields quadratic).
pub fn semantic_tokens(snap: &Snapshot) -> Vec<Token> {
    semantic_tokens_in(snap, 0..usize::MAX)
}

/// The tokens of [`semantic_tokens`] that touch the byte range `window` (the lines an
/// editor shows): subtrees outside it are not walked, so the cost follows the window,
/// not the file (the top-level declarations before it are only stepped over).
pub fn semantic_tokens_in(snap: &Snapshot, window: Range<usize>) -> Vec<Token> {
    let mut out = Vec::new();
    let Some(walk) = TokenWalk::new(snap) else {
        return out;
    };
    walk.items(|item| {
        if item.start_byte() > window.end {
            return false; // everything after this item starts later still
        }
        if item.end_byte() >= window.start {
            walk.subtree(item, &window, &mut out);
        }
        true
    });
    out
}

/// One top-level syntax node (a declaration, a comment, an error) and the means to walk
/// its tokens: the unit in which the server reuses the tokens of what an edit left alone.
pub struct TokenItem<'w, 's> {
    walk: &'w TokenWalk<'s>,
    node: tree_sitter::Node<'s>,
}

impl TokenItem<'_, '_> {
    pub fn range(&self) -> Range<usize> {
        self.node.byte_range()
    }

    /// What, beside its text, the item's tokens follow from: its node kind and the number
    /// of nodes under it (the same text parsed differently after an error has another).
    pub fn shape(&self) -> (u16, usize) {
        (self.node.kind_id(), self.node.descendant_count())
    }

    /// The item's tokens, in text order (a walk of its subtree).
    pub fn tokens(&self) -> Vec<Token> {
        let mut out = Vec::new();
        self.walk.subtree(self.node, &(0..usize::MAX), &mut out);
        out
    }
}

/// The document's top-level items, for a cache of their tokens; `None` when there is no
/// syntax tree.
pub fn semantic_token_items(snap: &Snapshot) -> Option<TokenItems<'_>> {
    TokenWalk::new(snap).map(TokenItems)
}

pub struct TokenItems<'s>(TokenWalk<'s>);

impl<'s> TokenItems<'s> {
    /// A key of everything besides an item's own text and shape that its tokens depend
    /// on (which type names are structs): under the same key, an item of the same text
    /// and shape has the same tokens.
    pub fn context_key(&self) -> u64 {
        self.0.context_key()
    }

    /// Calls `each` with the top-level items in text order.
    pub fn for_each(&self, mut each: impl FnMut(TokenItem<'_, 's>)) {
        self.0.items(|node| {
            each(TokenItem { walk: &self.0, node });
            true
        });
    }
}

/// What the token walk of one snapshot needs: node classes, the primitive names and which
/// declared names are structs.
struct TokenWalk<'s> {
    tree: &'s tree_sitter::Tree,
    kinds: NodeKinds,
    prims: Vec<&'static str>,
    structs: HashMap<&'s str, bool>,
    text: &'s str,
}

impl<'s> TokenWalk<'s> {
    fn new(snap: &'s Snapshot) -> Option<TokenWalk<'s>> {
        let tree = snap.analysis.tree.as_ref()?;
        Some(TokenWalk {
            tree,
            kinds: NodeKinds::of(&tree.language()),
            prims: primitives(snap.dialect),
            structs: snap
                .schema()
                .types
                .iter()
                .map(|t| (t.name.as_str(), t.is_struct()))
                .collect(),
            text: &snap.source.text,
        })
    }

    /// Calls `each` with the root's children in order until it returns false.
    fn items(&self, mut each: impl FnMut(tree_sitter::Node<'s>) -> bool) {
        let mut cursor = self.tree.walk();
        if !cursor.goto_first_child() {
            return;
        }
        while each(cursor.node()) && cursor.goto_next_sibling() {}
    }

    /// A hash of the primitive names, the type names and whether each is a struct: the
    /// only things besides an item's own subtree that its tokens read.
    fn context_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut names: Vec<(&str, bool)> = self.structs.iter().map(|(n, s)| (*n, *s)).collect();
        names.sort_unstable();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.prims.hash(&mut h);
        names.hash(&mut h);
        h.finish()
    }

    /// Appends the tokens of the subtree at `top` that touch `window`, in text order.
    fn subtree(&self, top: tree_sitter::Node<'s>, window: &Range<usize>, out: &mut Vec<Token>) {
        let text = self.text;
        // A cursor made from `top` stops there when it goes up.
        let mut cursor = top.walk();
        // Whether each node above the cursor declares a type (its name is a declaration);
        // `top`'s parent is the root, which does not.
        let mut parents: Vec<bool> = vec![false];
        'walk: loop {
            let node = cursor.node();
            if node.start_byte() > window.end {
                break; // everything after this node starts later still
            }
            let class = self.kinds.class(node.kind_id());
            let outside = node.end_byte() < window.start;
            let leaf = outside || node.child_count() == 0 || class.is_leaf();
            if leaf && !outside {
                let s = text.get(node.byte_range()).unwrap_or("");
                let token = match class {
                    NodeClass::Comment => Some((
                        TokenKind::Comment,
                        if s.starts_with("///") { MOD_DOCUMENTATION } else { 0 },
                    )),
                    NodeClass::StringLiteral => Some((TokenKind::String, 0)),
                    NodeClass::Primitive => Some((TokenKind::Type, MOD_DEFAULT_LIBRARY)),
                    NodeClass::TypeName if self.prims.contains(&s) => Some((TokenKind::Type, MOD_DEFAULT_LIBRARY)),
                    NodeClass::TypeName => {
                        let decl = parents.last().copied().unwrap_or(false);
                        let kind = if self.structs.get(s).copied().unwrap_or(true) {
                            TokenKind::Struct
                        } else {
                            TokenKind::Type
                        };
                        Some((kind, if decl { MOD_DECLARATION } else { 0 }))
                    }
                    NodeClass::FieldName => Some((TokenKind::Property, MOD_DECLARATION)),
                    NodeClass::Keyword => Some((TokenKind::Keyword, 0)),
                    NodeClass::Other | NodeClass::Declaration => None,
                };
                if let Some((kind, modifiers)) = token {
                    out.push(Token {
                        range: node.byte_range(),
                        kind,
                        modifiers,
                    });
                }
            }
            if !leaf && cursor.goto_first_child() {
                parents.push(class == NodeClass::Declaration);
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                parents.pop();
            }
        }
    }
}

/// What the token walk needs to know of a node kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeClass {
    Comment,
    StringLiteral,
    Primitive,
    TypeName,
    FieldName,
    /// An anonymous node spelled with letters only: `struct`, `type`, `package`…
    Keyword,
    /// A type's declaration: the type name right under it is declared there.
    Declaration,
    Other,
}

impl NodeClass {
    /// Nodes the walk does not descend into (their children are one token's parts).
    fn is_leaf(self) -> bool {
        matches!(
            self,
            NodeClass::Comment | NodeClass::StringLiteral | NodeClass::Primitive
        )
    }
}

/// [`NodeClass`] by kind id, for one grammar: the walk compares ids, not kind names
/// (`Node::kind` measures and checks a C string on every call: a quarter of the
/// tokens' time on a 60,000-line schema).
struct NodeKinds(Vec<NodeClass>);

impl NodeKinds {
    fn of(language: &tree_sitter::LanguageRef<'_>) -> NodeKinds {
        let classes = (0..language.node_kind_count())
            .map(|id| {
                let id = id as u16;
                let named = language.node_kind_is_named(id);
                match language.node_kind_for_id(id).unwrap_or("") {
                    "comment" => NodeClass::Comment,
                    "raw_string_literal" | "interpreted_string_literal" => NodeClass::StringLiteral,
                    "primitive_type" => NodeClass::Primitive,
                    "type_identifier" => NodeClass::TypeName,
                    "field_identifier" => NodeClass::FieldName,
                    "struct_item" | "type_spec" | "type_alias" => NodeClass::Declaration,
                    k if !named && !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic()) => NodeClass::Keyword,
                    _ => NodeClass::Other,
                }
            })
            .collect();
        NodeKinds(classes)
    }

    fn class(&self, id: u16) -> NodeClass {
        self.0.get(usize::from(id)).copied().unwrap_or(NodeClass::Other)
    }
}

// ---- code actions ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    Refactor,
    RefactorRewrite,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    pub preferred: bool,
    /// Replacements in the document, by byte range.
    pub edits: Vec<(Range<usize>, String)>,
    /// Where the cursor goes once the edits are applied, for clients that can place it
    /// (LSP 3.18 snippet edits): the index of an edit and a byte range of its new text,
    /// selected (empty: the cursor only).
    pub select: Option<(usize, Range<usize>)>,
}

/// Names whose declaration a syntax error swallowed (`struct B {` right after a
/// missing `}`): an "unknown type `B`" elsewhere then follows from that syntax error and
/// is not a second problem, so the editor does not show it. With each name, where its
/// syntax error starts.
pub fn swallowed_declarations(snap: &Snapshot) -> Vec<(usize, &str)> {
    let text = &snap.source.text;
    snap.analysis
        .diagnostics
        .iter()
        .filter(|d| d.code == "SYNTAX")
        .filter_map(|d| {
            let rest = text.get(d.range.start..)?;
            let rest = rest.strip_prefix("struct").or_else(|| rest.strip_prefix("type"))?;
            if !rest.starts_with([' ', '\t']) {
                return None;
            }
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (end > 0).then(|| (d.range.start, &rest[..end]))
        })
        // A built-in type is no declaration: `type int32` in a struct is a field named `type`.
        .filter(|(_, name)| {
            snap.schema().type_id(name).is_none() && Primitive::from_spelling(snap.dialect, name).is_none()
        })
        .collect()
}

/// Whether the file has no errors (so generating it makes sense).
pub fn is_clean(snap: &Snapshot) -> bool {
    !snap.analysis.diagnostics.iter().any(|d| d.severity == Severity::Error) && !snap.schema().types.is_empty()
}

/// Quick fixes for the diagnostics overlapping `range` and refactorings of the file.
pub fn code_actions(snap: &Snapshot, range: Range<usize>) -> Vec<Action> {
    let mut out = Vec::new();
    let schema = snap.schema();
    let text = &snap.source.text;
    let overlaps = |r: &Range<usize>| r.start <= range.end && range.start <= r.end;
    for d in snap.analysis.diagnostics.iter().filter(|d| overlaps(&d.range)) {
        let name = text.get(d.range.clone()).unwrap_or("");
        match d.code {
            "UNKNOWN_TYPE" | "E005" if !name.is_empty() => {
                // The help's "did you mean `u8`?" comes with the fix that does it.
                let suggested: Vec<&str> = d
                    .notes
                    .iter()
                    .filter_map(|n| n.strip_prefix("help: did you mean `")?.strip_suffix("`?"))
                    .collect();
                for s in &suggested {
                    out.push(replace_action(name, s, &d.range, true));
                }
                // `u3`, `int12`: the widths of that family nearest to the one written.
                for (i, w) in nearest_widths(snap.dialect, name)
                    .into_iter()
                    .filter(|w| !suggested.contains(&w.as_str()))
                    .enumerate()
                {
                    out.push(replace_action(name, &w, &d.range, suggested.is_empty() && i == 0));
                }
                // The stub field is selected, for typing the first real one over it.
                let (stub, field) = match snap.dialect {
                    Dialect::Sdp => (format!("struct {name} {{\n    field: u32,\n}}\n"), "field: u32"),
                    Dialect::Ffi => (
                        format!("type {name} struct {{\n\tField int32 `json:\"field\"`\n}}\n"),
                        "Field int32 `json:\"field\"`",
                    ),
                };
                let preferred = suggested.is_empty() && !out.iter().any(|a| a.preferred);
                let edit = append_at_end(text, &stub);
                let select = edit.1.find(field).map(|at| (0, at..at + field.len()));
                out.push(Action {
                    title: format!("Create struct `{name}`"),
                    kind: ActionKind::QuickFix,
                    preferred,
                    select,
                    edits: vec![edit],
                });
            }
            "RESERVED_KEYWORD" if !name.is_empty() => {
                let new_name = format!("{name}_");
                if let Some((_, all, kind)) = rename_targets(schema, d.range.start) {
                    if rename_refusal(schema, kind, &new_name).is_none() {
                        out.push(Action {
                            title: format!("Rename `{name}` to `{new_name}`"),
                            kind: ActionKind::QuickFix,
                            preferred: true,
                            select: None,
                            edits: all.into_iter().map(|r| (r, new_name.clone())).collect(),
                        });
                    }
                }
            }
            "split-fixed-block" => out.extend(reorder_action(snap, d.range.start)),
            "missing-package" => out.push(Action {
                title: "Add `package schema`".into(),
                kind: ActionKind::QuickFix,
                preferred: true,
                select: None,
                edits: vec![(d.range.start..d.range.start, "package schema\n\n".into())],
            }),
            "OPTION_PRIMITIVE" | "OPTION_ARRAY" => out.extend(wrap_in_struct_action(snap, &d.range)),
            // ffire `uint32`: "… ffire has no unsigned types; use int64" gets that fix.
            "unsupported-type" if snap.dialect == Dialect::Ffi && !name.is_empty() => {
                let advice = d.message.split_once("; use ").map_or("", |(_, a)| a);
                let mut first = true;
                for word in advice.split(|c: char| !c.is_ascii_alphanumeric()) {
                    if wirelens_core::model::Primitive::from_spelling(Dialect::Ffi, word).is_some() {
                        out.push(replace_action(name, word, &d.range, first));
                        first = false;
                    }
                }
            }
            _ => {}
        }
    }
    // The reorder is offered anywhere in a struct whose fixed fields are split (the
    // lint sits on the field that splits them).
    if !out.iter().any(|a| a.kind == ActionKind::RefactorRewrite) {
        let here = schema.types.iter().position(|t| within(&t.range, range.start));
        let split = snap.analysis.diagnostics.iter().find(|d| {
            d.code == "split-fixed-block"
                && here.is_some()
                && schema.types.iter().position(|t| within(&t.range, d.range.start)) == here
        });
        if let Some(d) = split {
            out.extend(reorder_action(snap, d.range.start));
        }
    }
    // ffire: switching the field order is offered where the order is decided (the
    // `package` line, the directive) or on a diagnostic that talks about it.
    let order_here = schema
        .package
        .as_ref()
        .is_some_and(|(_, r)| line_overlaps(text, r, &range))
        || matches!(&schema.order_source, wirelens_core::model::OrderSource::Directive(r) if line_overlaps(text, r, &range))
        || snap.analysis.diagnostics.iter().any(|d| {
            overlaps(&d.range) && (d.message.contains("order") || d.notes.iter().any(|n| n.contains("wirelens:order")))
        });
    if snap.dialect == Dialect::Ffi && order_here {
        let other = match schema.order {
            wirelens_core::FieldOrder::Canonical => "declaration",
            wirelens_core::FieldOrder::Declaration => "canonical",
        };
        let directive = format!("//wirelens:order {other}");
        let edit = match &schema.order_source {
            wirelens_core::model::OrderSource::Directive(r) => (r.clone(), directive),
            _ => (0..0, format!("{directive}\n")),
        };
        out.push(Action {
            title: format!("Switch this file to ffire {other} field order (changes the wire format)"),
            kind: ActionKind::Refactor,
            preferred: false,
            select: None,
            edits: vec![edit],
        });
    }
    out
}

/// Whether `cursor` touches a line that `r` is on.
fn line_overlaps(text: &str, r: &Range<usize>, cursor: &Range<usize>) -> bool {
    let start = text.get(..r.start).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let end = text
        .get(r.end..)
        .and_then(|t| t.find('\n'))
        .map_or(text.len(), |i| r.end + i);
    cursor.start <= end && start <= cursor.end
}

/// The edit appending a declaration `stub` (which starts with its own newline) at the
/// end of the file: one blank line before it, whatever blank lines the file ends with.
pub(crate) fn append_at_end(text: &str, stub: &str) -> (Range<usize>, String) {
    let end = text.trim_end().len();
    let stub = stub.trim_start_matches('\n');
    let sep = if end == 0 { "" } else { "\n\n" };
    (end..text.len(), format!("{sep}{stub}"))
}

/// `u3` → `u8`, `u16`; `int12` → `int16`, `int8`: the two widths of the primitive
/// family written nearest to it, the smallest that holds the width written first.
fn nearest_widths(d: Dialect, name: &str) -> Vec<String> {
    let digits = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let family = &name[..name.len() - digits.len()];
    let Ok(bits) = digits.parse::<u32>() else {
        return Vec::new();
    };
    if family.is_empty() || bits == 0 || digits.starts_with('0') {
        return Vec::new();
    }
    let mut widths: Vec<(u32, String)> = [8u32, 16, 32, 64]
        .iter()
        .map(|w| (*w, format!("{family}{w}")))
        .filter(|(w, spelled)| *w != bits && wirelens_core::model::Primitive::from_spelling(d, spelled).is_some())
        .collect();
    // The smallest width that holds `bits` first, then the others by distance.
    let holds = widths.iter().filter(|(w, _)| *w > bits).map(|(w, _)| *w).min();
    widths.sort_by_key(|(w, _)| (Some(*w) != holds, w.abs_diff(bits)));
    widths.into_iter().take(2).map(|(_, s)| s).collect()
}

/// `Option<u32>` / `Option<[]T>`: SDP's `Option` needs a struct, so the value goes into
/// a new struct (appended at the end) and the `Option` takes that.
fn wrap_in_struct_action(snap: &Snapshot, range: &Range<usize>) -> Option<Action> {
    let text = &snap.source.text;
    let written = text.get(range.clone())?;
    let (open, close) = (written.find('<')?, written.rfind('>')?);
    let inner = written.get(open + 1..close)?.trim();
    if inner.is_empty() {
        return None;
    }
    let base: String = {
        let word: String = inner.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        let mut c = word.chars();
        match c.next() {
            Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
            None => return None,
        }
    };
    let (stem, field) = if inner.starts_with("[]") {
        (format!("{base}List"), "items")
    } else {
        (format!("Maybe{base}"), "value")
    };
    let schema = snap.schema();
    let name = std::iter::once(stem.clone())
        .chain((2..).map(|i| format!("{stem}{i}")))
        .find(|n| schema.type_id(n).is_none())?;
    let new_written = format!("{}{name}{}", &written[..open + 1], &written[close..]);
    Some(Action {
        title: format!("Wrap `{inner}` in a new struct `{name}`"),
        kind: ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![
            (range.clone(), new_written),
            append_at_end(text, &format!("struct {name} {{\n    {field}: {inner},\n}}\n")),
        ],
    })
}

fn replace_action(old: &str, new: &str, range: &Range<usize>, preferred: bool) -> Action {
    Action {
        title: format!("Replace `{old}` with `{new}`"),
        kind: ActionKind::QuickFix,
        preferred,
        select: None,
        edits: vec![(range.clone(), new.to_string())],
    }
}

/// Rewrites an SDP struct's field list with the fixed-size fields first (stable). Each
/// field moves with the lines that belong to it: the comments and docs above it and the
/// comment after it on its line. Offered when every field has a line of its own (or,
/// with no comments at all, on any layout of the text).
fn reorder_action(snap: &Snapshot, at: usize) -> Option<Action> {
    let schema = snap.schema();
    let (id, def) = schema.types.iter().enumerate().find(|(_, t)| within(&t.range, at))?;
    let t = snap.analysis.layout.get(id)?;
    let fields = def.fields();
    let fixed: Vec<bool> = by_declaration(t, fields.len())
        .iter()
        .map(|f| f.is_some_and(|f| f.size.fixed.is_some()))
        .collect();
    let mut order: Vec<usize> = (0..fields.len()).collect();
    order.sort_by_key(|&i| !fixed[i]);
    let title = format!(
        "Move `{}`'s fixed-size fields first (one fixed block; changes the wire format)",
        def.name
    );
    let action = |edit| Action {
        title: title.clone(),
        kind: ActionKind::RefactorRewrite,
        preferred: false,
        select: None,
        edits: vec![edit],
    };
    let pieces: Vec<Piece> = order.into_iter().map(Piece::Kept).collect();
    rebuild_fields(snap, def, &pieces).map(action)
}

/// One field of a struct's rebuilt body ([`rebuild_fields`]).
pub(crate) enum Piece {
    /// The field of this declaration index, as written (with its comments).
    Kept(usize),
    /// A field declaration that is not in the text (`x: u32`, `` X int32 `json:"x"` ``),
    /// with its doc lines.
    New { decl: String, docs: Vec<String> },
}

/// The edit that makes the fields of struct `def` be `pieces`, in that order: whole
/// lines move, so comments move with their fields. SDP fields all end with a comma.
/// `None` where the fields cannot be moved safely (several on a line, with comments).
pub(crate) fn rebuild_fields(snap: &Snapshot, def: &TypeDef, pieces: &[Piece]) -> Option<(Range<usize>, String)> {
    let fields = def.fields();
    let text = &snap.source.text;
    let sdp = snap.dialect == Dialect::Sdp;
    let (sep, doc_marker, default_indent) = if sdp { (",", "///", "    ") } else { ("", "//", "\t") };
    let new_lines = |indent: &str, decl: &str, docs: &[String], out: &mut String| {
        for d in docs {
            out.push_str(&format!("{indent}{doc_marker} {d}\n"));
        }
        out.push_str(&format!("{indent}{decl}{sep}\n"));
    };
    if fields.is_empty() {
        // `struct A {}`: the new fields on lines of their own.
        let TypeKind::Struct { body_range, .. } = &def.kind else {
            return None;
        };
        let mut body = "{\n".to_string();
        for p in pieces {
            match p {
                Piece::Kept(_) => return None,
                Piece::New { decl, docs } => new_lines(default_indent, decl, docs, &mut body),
            }
        }
        body.push('}');
        return Some((body_range.clone(), body));
    }
    if let Some(chunks) = field_chunks(text, def.range.start, fields) {
        let first = fields[0].range.start;
        let line_start = text[..first].rfind('\n').map_or(0, |i| i + 1);
        let indent = text
            .get(line_start..first)
            .filter(|s| s.trim().is_empty())
            .unwrap_or(default_indent);
        let mut body = String::new();
        for p in pieces {
            match p {
                Piece::Kept(i) => {
                    let (chunk, field_end) = chunks.get(*i)?;
                    let piece = &text[chunk.clone()];
                    let end = field_end - chunk.start;
                    // Every SDP field keeps a comma after it wherever it lands.
                    let has_comma = piece[end..].trim_start_matches([' ', '\t']).starts_with(',');
                    body.push_str(&piece[..end]);
                    if sdp && !has_comma {
                        body.push(',');
                    }
                    body.push_str(&piece[end..]);
                    if !body.ends_with('\n') {
                        body.push('\n'); // the last line of a file without a newline
                    }
                }
                Piece::New { decl, docs } => new_lines(indent, decl, docs, &mut body),
            }
        }
        let whole = chunks.first()?.0.start..chunks.last()?.0.end;
        if !text[..whole.end].ends_with('\n') {
            body.pop();
        }
        return Some((whole, body));
    }
    if !sdp {
        return None;
    }
    let (first, last) = (fields.first()?.range.start, fields.last()?.range.end);
    if text.get(first..last)?.contains("//") || !fields[0].docs.is_empty() {
        return None;
    }
    let line_start = text[..first].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let indent = text
        .get(line_start..first)
        .filter(|s| s.trim().is_empty())
        .unwrap_or("    ");
    let mut body: Vec<String> = Vec::with_capacity(pieces.len());
    for p in pieces {
        body.push(match p {
            Piece::Kept(i) => {
                let f = fields.get(*i)?;
                format!("{}: {}", f.name, f.ty.display(Dialect::Sdp))
            }
            Piece::New { decl, .. } => decl.clone(),
        });
    }
    Some((first..last, body.join(&format!(",\n{indent}"))))
}

/// Per field, the whole lines it owns (from the line after the previous field's, or
/// after the `{`, through the end of its own line) and where the field itself ends.
/// `None` unless every field starts on a line of its own after the `{` line and the
/// last field's line holds nothing after it but a comma and a comment.
fn field_chunks(
    text: &str,
    decl_start: usize,
    fields: &[wirelens_core::model::Field],
) -> Option<Vec<(Range<usize>, usize)>> {
    let line_end = |pos: usize| text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
    let first = fields.first()?;
    let brace = decl_start + text.get(decl_start..first.range.start)?.rfind('{')?;
    let mut start = line_end(brace);
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let own_line = text[..f.range.start].rfind('\n').map_or(0, |i| i + 1);
        if own_line < start {
            return None; // shares a line with the `{` or the previous field
        }
        let end = line_end(f.range.end);
        let rest = text[f.range.end..end].trim_start_matches([' ', '\t']);
        let rest = rest.strip_prefix(',').unwrap_or(rest).trim();
        if !(rest.is_empty() || rest.starts_with("//")) {
            return None; // another field or the `}` follows on the same line
        }
        out.push((start..end, f.range.end));
        start = end;
    }
    Some(out)
}
