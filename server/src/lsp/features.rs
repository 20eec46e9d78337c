//! Editing features computed from a document: completion, rename, semantic tokens and
//! code actions. Pure functions of the document; the backend wires them to LSP.

use std::collections::HashMap;
use std::ops::Range;

use codegen::model::{Primitive, Schema, TypeId, TypeKind};
use codegen::source::ColumnUnit;
use codegen::Dialect;
use tower_lsp_server::ls_types::*;

use super::documents::{range_to_lsp, Document};

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

pub fn completion(doc: &Document, offset: usize) -> Vec<CompletionItem> {
    let d = doc.dialect;
    let text = &doc.source.text;
    let line_start = text[..offset.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset.min(text.len())];
    let mut items = Vec::new();
    let type_item = |label: String, kind: CompletionItemKind, detail: String| CompletionItem {
        label,
        kind: Some(kind),
        detail: Some(detail),
        ..Default::default()
    };
    if in_type_position(d, before) {
        for p in primitives(d) {
            items.push(type_item(
                p.to_string(),
                CompletionItemKind::KEYWORD,
                "primitive".into(),
            ));
        }
        for (id, def) in doc.analysis.schema.types.iter().enumerate() {
            let detail = doc
                .analysis
                .layout
                .get(id)
                .map(|t| match t.size.fixed {
                    Some(n) => format!("{n} B fixed"),
                    None => format!("≥ {} B", t.size.min),
                })
                .unwrap_or_default();
            items.push(type_item(def.name.clone(), CompletionItemKind::STRUCT, detail));
        }
        let wrappers: &[(&str, &str)] = match d {
            Dialect::Sdp => &[
                ("[]", "[]${1:T}"),
                ("Option<…>", "Option<${1:T}>"),
                ("Box<…>", "Box<${1:T}>"),
            ],
            Dialect::Ffi => &[("[]", "[]${1:T}"), ("*", "*${1:T}")],
        };
        for (label, snippet) in wrappers {
            items.push(CompletionItem {
                label: label.to_string(),
                kind: Some(CompletionItemKind::SNIPPET),
                insert_text: Some(snippet.to_string()),
                insert_text_format: Some(InsertTextFormat::SNIPPET),
                ..Default::default()
            });
        }
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
        for (label, snippet, detail) in snippets {
            items.push(CompletionItem {
                label: label.to_string(),
                kind: Some(CompletionItemKind::SNIPPET),
                detail: Some(detail.to_string()),
                insert_text: Some(snippet.to_string()),
                insert_text_format: Some(InsertTextFormat::SNIPPET),
                ..Default::default()
            });
        }
    }
    items
}

/// Ranges of the identifier under `offset` and all its occurrences, if it can be renamed.
pub fn rename_targets(schema: &Schema, offset: usize) -> Option<(Range<usize>, Vec<Range<usize>>, RenameKind)> {
    let within = |r: &Range<usize>| r.start <= offset && offset <= r.end;
    for (id, def) in schema.types.iter().enumerate() {
        if within(&def.name_range) {
            let mut all = vec![def.name_range.clone()];
            all.extend(references(schema, id));
            return Some((def.name_range.clone(), all, RenameKind::Type));
        }
        for (_, target, range) in type_exprs(schema, id).into_iter().flat_map(|t| t.named_refs()) {
            if within(&range) {
                let target = target?;
                let mut all = vec![schema.types[target].name_range.clone()];
                all.extend(references(schema, target));
                return Some((range, all, RenameKind::Type));
            }
        }
        for f in def.fields() {
            if within(&f.name_range) {
                return Some((f.name_range.clone(), vec![f.name_range.clone()], RenameKind::Field(id)));
            }
        }
    }
    None
}

#[derive(Clone, Copy)]
pub enum RenameKind {
    Type,
    Field(TypeId),
}

fn type_exprs(schema: &Schema, id: TypeId) -> Vec<&codegen::model::TypeExpr> {
    match &schema.types[id].kind {
        TypeKind::Struct { fields, .. } => fields.iter().map(|f| &f.ty).collect(),
        TypeKind::Alias { target, .. } => vec![target],
    }
}

pub fn references(schema: &Schema, id: TypeId) -> Vec<Range<usize>> {
    (0..schema.types.len())
        .flat_map(|t| type_exprs(schema, t))
        .flat_map(|ty| ty.named_refs())
        .filter(|(_, t, _)| *t == Some(id))
        .map(|(_, _, r)| r)
        .collect()
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
        let langs = codegen::reserved::reserved_in(new_name);
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

pub const TOKEN_TYPES: [SemanticTokenType; 6] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::STRUCT,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::COMMENT,
    SemanticTokenType::STRING,
];
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 3] = [
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DEFAULT_LIBRARY,
    SemanticTokenModifier::DOCUMENTATION,
];

/// Semantic tokens from the syntax tree's leaves, refined by the model (which names are
/// structs, which are primitives).
pub fn semantic_tokens(doc: &Document, unit: ColumnUnit) -> Vec<SemanticToken> {
    let Some(tree) = &doc.analysis.tree else {
        return Vec::new();
    };
    let schema = &doc.analysis.schema;
    let structs: HashMap<&str, bool> = schema.types.iter().map(|t| (t.name.as_str(), t.is_struct())).collect();
    let mut raw: Vec<(Range<usize>, u32, u32)> = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let leaf = node.child_count() == 0
            || matches!(
                node.kind(),
                "comment" | "raw_string_literal" | "interpreted_string_literal" | "primitive_type"
            );
        if leaf {
            let text = doc.source.text.get(node.byte_range()).unwrap_or("");
            let class = match node.kind() {
                "comment" => Some((4, if text.starts_with("///") { 4 } else { 0 })),
                "raw_string_literal" | "interpreted_string_literal" => Some((5, 0)),
                "primitive_type" => Some((1, 2)),
                "type_identifier" if primitives(doc.dialect).contains(&text) => Some((1, 2)),
                "type_identifier" => {
                    let decl = node
                        .parent()
                        .is_some_and(|p| matches!(p.kind(), "struct_item" | "type_spec" | "type_alias"));
                    let kind = if structs.get(text).copied().unwrap_or(true) {
                        2
                    } else {
                        1
                    };
                    Some((kind, if decl { 1 } else { 0 }))
                }
                "field_identifier" => Some((3, 1)),
                k if !node.is_named() && k.chars().all(|c| c.is_ascii_alphabetic()) && !k.is_empty() => Some((0, 0)),
                _ => None,
            };
            if let Some((ty, mods)) = class {
                raw.push((node.byte_range(), ty, mods));
            }
        }
        if !leaf && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    // Relative encoding; multi-line tokens (block comments) are split per line.
    let mut out = Vec::with_capacity(raw.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for (range, ty, mods) in raw {
        let (start, end) = doc.source.range_positions(&range, unit);
        let mut pieces = Vec::new();
        if start.line == end.line {
            pieces.push((start.line, start.column, end.column - start.column));
        } else {
            for line in start.line..=end.line {
                let col = if line == start.line { start.column } else { 0 };
                let line_len = match unit {
                    ColumnUnit::Utf8 => doc.source.line_text(line).len() as u32,
                    ColumnUnit::Utf16 => doc.source.line_text(line).encode_utf16().count() as u32,
                    ColumnUnit::Utf32 => doc.source.line_text(line).chars().count() as u32,
                };
                let end_col = if line == end.line { end.column } else { line_len };
                if end_col > col {
                    pieces.push((line, col, end_col - col));
                }
            }
        }
        for (line, col, len) in pieces {
            let delta_line = line - prev_line;
            let delta_start = if delta_line == 0 { col - prev_col } else { col };
            out.push(SemanticToken {
                delta_line,
                delta_start,
                length: len,
                token_type: ty,
                token_modifiers_bitset: mods,
            });
            prev_line = line;
            prev_col = col;
        }
    }
    out
}

/// Quick fixes and refactorings for the diagnostics and the struct under the cursor.
pub fn code_actions(doc: &Document, uri: &Uri, range: &Range<usize>, unit: ColumnUnit) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    let schema = &doc.analysis.schema;
    let text = &doc.source.text;
    let edit = |title: String, kind: CodeActionKind, edits: Vec<TextEdit>, preferred: bool| {
        CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(kind),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), edits)])),
                ..Default::default()
            }),
            is_preferred: Some(preferred),
            ..Default::default()
        })
    };
    let overlaps = |r: &Range<usize>| r.start <= range.end && range.start <= r.end;
    for d in doc.analysis.diagnostics.iter().filter(|d| overlaps(&d.range)) {
        let name = text.get(d.range.clone()).unwrap_or("");
        match d.code {
            "UNKNOWN_TYPE" | "E005" if !name.is_empty() => {
                let stub = match doc.dialect {
                    Dialect::Sdp => format!("\nstruct {name} {{\n    field: u32,\n}}\n"),
                    Dialect::Ffi => format!("\ntype {name} struct {{\n\tField int32 `json:\"field\"`\n}}\n"),
                };
                let end = range_to_lsp(&doc.source, &(text.len()..text.len()), unit);
                let sep = if text.ends_with('\n') { "" } else { "\n" };
                out.push(edit(
                    format!("Create struct `{name}`"),
                    CodeActionKind::QUICKFIX,
                    vec![TextEdit {
                        range: Range2::at(end),
                        new_text: format!("{sep}{stub}"),
                    }],
                    true,
                ));
            }
            "RESERVED_KEYWORD" if !name.is_empty() => {
                let new_name = format!("{name}_");
                if let Some((_, all, kind)) = rename_targets(schema, d.range.start) {
                    if rename_refusal(schema, kind, &new_name).is_none() {
                        let edits = all
                            .iter()
                            .map(|r| TextEdit {
                                range: range_to_lsp(&doc.source, r, unit),
                                new_text: new_name.clone(),
                            })
                            .collect();
                        out.push(edit(
                            format!("Rename `{name}` to `{new_name}`"),
                            CodeActionKind::QUICKFIX,
                            edits,
                            true,
                        ));
                    }
                }
            }
            "split-fixed-block" => {
                if let Some(action) = reorder_action(doc, d.range.start, unit) {
                    out.push(edit(action.0, CodeActionKind::REFACTOR_REWRITE, vec![action.1], false));
                }
            }
            _ => {}
        }
    }
    if doc.dialect == Dialect::Ffi {
        let other = match schema.order {
            codegen::FieldOrder::Canonical => "declaration",
            codegen::FieldOrder::Declaration => "canonical",
        };
        let directive = format!("//wirelens:order {other}");
        let edit_ = match &schema.order_source {
            codegen::model::OrderSource::Directive(r) => TextEdit {
                range: range_to_lsp(&doc.source, r, unit),
                new_text: directive,
            },
            _ => TextEdit {
                range: range_to_lsp(&doc.source, &(0..0), unit),
                new_text: format!("{directive}\n"),
            },
        };
        out.push(edit(
            format!("Switch this file to ffire {other} field order (changes the wire format)"),
            CodeActionKind::REFACTOR,
            vec![edit_],
            false,
        ));
    }
    out
}

/// Rewrites an SDP struct's field list with the fixed-size fields first (stable).
/// Offered only when no comment sits among the fields, so nothing can be lost.
fn reorder_action(doc: &Document, at: usize, unit: ColumnUnit) -> Option<(String, TextEdit)> {
    let schema = &doc.analysis.schema;
    let (id, def) = schema
        .types
        .iter()
        .enumerate()
        .find(|(_, t)| t.range.start <= at && at <= t.range.end)?;
    let t = doc.analysis.layout.get(id)?;
    let fields = def.fields();
    let text = &doc.source.text;
    let (first, last) = (fields.first()?.range.start, fields.last()?.range.end);
    if text.get(first..last)?.contains("//") || !fields[0].docs.is_empty() {
        return None;
    }
    let line_start = text[..first].rfind('\n').map_or(0, |i| i + 1);
    let indent = text
        .get(line_start..first)
        .filter(|s| s.trim().is_empty())
        .unwrap_or("    ");
    let mut order: Vec<usize> = (0..fields.len()).collect();
    order.sort_by_key(|&i| t.field_by_decl(i).is_none_or(|f| f.size.fixed.is_none()));
    let body: Vec<String> = order
        .iter()
        .map(|&i| format!("{}: {}", fields[i].name, fields[i].ty.display(Dialect::Sdp)))
        .collect();
    Some((
        format!(
            "Move `{}`'s fixed-size fields first (one fixed block; changes the wire format)",
            def.name
        ),
        TextEdit {
            range: range_to_lsp(&doc.source, &(first..last), unit),
            new_text: body.join(&format!(",\n{indent}")),
        },
    ))
}

/// A zero-width range at a position.
struct Range2;
impl Range2 {
    fn at(p: tower_lsp_server::ls_types::Range) -> tower_lsp_server::ls_types::Range {
        tower_lsp_server::ls_types::Range {
            start: p.start,
            end: p.start,
        }
    }
}
