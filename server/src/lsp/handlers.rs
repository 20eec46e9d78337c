//! Per-request handlers: LSP parameters in, IDE layer called on a snapshot, LSP answer
//! out through `convert`. They run without the store's lock.

use std::collections::HashMap;

use tower_lsp_server::ls_types::*;
use wirelens_core::source::ColumnUnit;

use super::commands::{generate_command, lang_label, SHOW_LAYOUT};
use super::convert::{self, offset, range_from_lsp, range_to_lsp};
use super::semantic_tokens::{self, ItemCache};
use super::snippets;
use std::sync::{Arc, Mutex};

use crate::ide::compat::Baseline;
use crate::ide::views::NumberFormat;
use crate::ide::{self, Snapshot};

/// The layout hover, with the type's wire changes against `base` when there is one.
pub fn hover(
    snap: &Arc<Snapshot>,
    base: Option<&Baseline>,
    unit: ColumnUnit,
    (markup, numbers): (&MarkupKind, NumberFormat),
    p: &TextDocumentPositionParams,
) -> Option<Hover> {
    let at = offset(&snap.source, p.position, unit);
    let mut text = ide::hover(snap, at, numbers)?;
    if let Some(section) = base.and_then(|b| ide::compat::hover_at(snap, b, at)) {
        text.push_str(
            "
---

",
        );
        text.push_str(&section);
    }
    Some(Hover {
        contents: HoverContents::Markup(convert::markup(text, markup)),
        range: None,
    })
}

pub fn inlay_hints(snap: &Snapshot, unit: ColumnUnit, range: Range) -> Vec<InlayHint> {
    let window = range_from_lsp(&snap.source, range, unit);
    ide::inlay_hints(snap, window)
        .into_iter()
        .map(|h| InlayHint {
            position: convert::to_lsp(snap.source.position(h.offset, unit)),
            label: InlayHintLabel::String(h.label),
            kind: None,
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(h.tooltip)),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        })
        .collect()
}

/// `generatable`: the document is a file inside a workspace folder (else no generate lenses).
/// With `base`, a wire-compatibility lens follows each type's layout lens.
/// Above this many types in one document, the per-type layout lenses are left out (the
/// hover, the inlay hints and the layout view say the same). VS Code keeps a view zone per
/// lens and moves every one of them on each keystroke, before the edit even reaches the
/// server: with the 5,000 structs of `bench/gen-schema.py` that alone made keystroke →
/// visible hint about 0.6 s slower (BENCHMARKS.md, "Inlay hints in the editors"). The wire-break
/// lenses and the Generate lenses stay.
pub const MAX_LAYOUT_LENSES: usize = 1_000;

pub fn code_lenses(
    snap: &Arc<Snapshot>,
    base: Option<&Baseline>,
    unit: ColumnUnit,
    uri: &Uri,
    generatable: bool,
) -> Vec<CodeLens> {
    // Over the limit (`None`): no layout lenses, though the document has some.
    let lenses = ide::lenses(snap, MAX_LAYOUT_LENSES);
    let lens = |range: &std::ops::Range<usize>, title: &str, name: &str| CodeLens {
        range: range_to_lsp(&snap.source, range, unit),
        command: Some(Command {
            title: title.to_string(),
            command: SHOW_LAYOUT.into(),
            arguments: Some(vec![serde_json::json!(uri.as_str()), serde_json::json!(name)]),
        }),
        data: None,
    };
    // Clients that draw a line's lenses in one row order them by start column (Neovim):
    // a wire break first (from the line's start), then the layout (at the name), then
    // the Generate lenses (at the name's end).
    let text = &snap.source.text;
    let line_start = |at: usize| text.get(..at).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let mut out: Vec<CodeLens> = match &lenses {
        Some(lenses) => lenses.iter().map(|l| lens(&l.range, &l.title, &l.type_name)).collect(),
        None => Vec::new(),
    };
    if let Some(base) = base {
        out.extend(
            ide::compat::lenses(snap, base)
                .iter()
                .map(|(range, title, name)| lens(&(line_start(range.start)..range.end), title, name)),
        );
    }
    if let (Some(first), true) = (
        snap.analysis.schema.types.first(),
        generatable && lenses.as_ref().is_none_or(|l| !l.is_empty()),
    ) {
        let end = first.name_range.end;
        let range = range_to_lsp(&snap.source, &(end..end), unit);
        for lang in wirelens_generators::Lang::ALL {
            let title = format!("Generate {}", lang_label(lang));
            out.push(CodeLens {
                range,
                command: Some(generate_command(&title, uri, &[lang])),
                data: None,
            });
        }
    }
    out
}

pub fn definition(snap: &Snapshot, unit: ColumnUnit, p: &TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
    let r = ide::definition(snap, offset(&snap.source, p.position, unit))?;
    Some(GotoDefinitionResponse::Scalar(Location {
        uri: p.text_document.uri.clone(),
        range: range_to_lsp(&snap.source, &r, unit),
    }))
}

pub fn references(snap: &Snapshot, unit: ColumnUnit, p: &ReferenceParams) -> Option<Vec<Location>> {
    let pos = &p.text_document_position;
    let ranges = ide::references(
        snap,
        offset(&snap.source, pos.position, unit),
        p.context.include_declaration,
    )?;
    Some(
        ranges
            .iter()
            .map(|r| Location {
                uri: pos.text_document.uri.clone(),
                range: range_to_lsp(&snap.source, r, unit),
            })
            .collect(),
    )
}

/// Above this many fields in one document, `documentSymbol` lists its types only, without
/// their layout details (a third of the answer, which VS Code parses per keystroke). VS Code
/// asks for the symbols after every edit (breadcrumbs, sticky scroll): with every field, the
/// 5,000 structs of `bench/gen-schema.py` are 45,000 symbols, 11 MB of JSON that the server
/// serialises and the editor parses and hands on each time, and the inlay hints of the
/// visible lines wait behind them (seconds: BENCHMARKS.md, "Inlay hints in VS Code").
pub const MAX_FIELD_SYMBOLS: usize = 10_000;

pub fn document_symbols(snap: &Snapshot, unit: ColumnUnit) -> DocumentSymbolResponse {
    DocumentSymbolResponse::Nested(
        ide::document_symbols(snap, MAX_FIELD_SYMBOLS)
            .into_iter()
            .map(|s| convert::document_symbol(&snap.source, s, unit))
            .collect(),
    )
}

pub fn folding_ranges(snap: &Snapshot, unit: ColumnUnit) -> Vec<FoldingRange> {
    ide::folding_ranges(snap)
        .into_iter()
        .filter_map(|(range, name)| {
            let r = range_to_lsp(&snap.source, &range, unit);
            (r.end.line > r.start.line).then_some(FoldingRange {
                start_line: r.start.line,
                start_character: None,
                end_line: r.end.line,
                end_character: None,
                // No kind: `region` means a `#region` marker (VS Code's "Fold All
                // Regions" folded every struct), and no other kind fits a struct body.
                kind: None,
                collapsed_text: Some(name),
            })
        })
        .collect()
}

pub fn formatting(snap: &Snapshot, unit: ColumnUnit) -> Option<Vec<TextEdit>> {
    let formatted = ide::format(snap)?;
    if formatted == snap.source.text {
        return Some(Vec::new());
    }
    Some(vec![TextEdit {
        range: range_to_lsp(&snap.source, &(0..snap.source.text.len()), unit),
        new_text: formatted,
    }])
}

pub fn completion(snap: &Snapshot, unit: ColumnUnit, p: &TextDocumentPositionParams) -> CompletionResponse {
    let found = ide::completion(snap, offset(&snap.source, p.position, unit));
    let items = found
        .items
        .into_iter()
        .map(|c| CompletionItem {
            label: c.label,
            kind: Some(match c.kind {
                ide::CompletionKind::Primitive => CompletionItemKind::KEYWORD,
                ide::CompletionKind::Type => CompletionItemKind::STRUCT,
                ide::CompletionKind::Snippet => CompletionItemKind::SNIPPET,
            }),
            detail: c.detail,
            insert_text_format: c.snippet.is_some().then_some(InsertTextFormat::SNIPPET),
            insert_text: c.snippet,
            ..Default::default()
        })
        .collect();
    CompletionResponse::List(CompletionList {
        is_incomplete: found.incomplete,
        items,
    })
}

pub fn prepare_rename(
    snap: &Snapshot,
    unit: ColumnUnit,
    p: &TextDocumentPositionParams,
) -> Option<PrepareRenameResponse> {
    let at = ide::prepare_rename(snap, offset(&snap.source, p.position, unit))?;
    Some(PrepareRenameResponse::Range(range_to_lsp(&snap.source, &at, unit)))
}

pub fn rename(snap: &Snapshot, unit: ColumnUnit, p: &RenameParams) -> Option<Result<WorkspaceEdit, String>> {
    let pos = &p.text_document_position;
    let ranges = match ide::rename(snap, offset(&snap.source, pos.position, unit), &p.new_name)? {
        Ok(r) => r,
        Err(why) => return Some(Err(why)),
    };
    let edits: Vec<(std::ops::Range<usize>, String)> = ranges.into_iter().map(|r| (r, p.new_name.clone())).collect();
    Some(Ok(WorkspaceEdit {
        changes: Some(HashMap::from([(
            pos.text_document.uri.clone(),
            convert::edits(&snap.source, &edits, unit),
        )])),
        ..Default::default()
    }))
}

/// The tokens of the lines in `range` only (editors ask for the visible lines first).
pub fn semantic_tokens_range(snap: &Snapshot, unit: ColumnUnit, range: Range) -> SemanticTokensRangeResult {
    let window = range_from_lsp(&snap.source, range, unit);
    SemanticTokensRangeResult::Tokens(SemanticTokens {
        result_id: None,
        data: convert::semantic_tokens(&snap.source, &ide::semantic_tokens_in(snap, window), unit),
    })
}

/// The whole document's tokens, reusing those of the top-level items `cache` holds.
pub fn semantic_tokens(snap: &Snapshot, unit: ColumnUnit, cache: &Mutex<ItemCache>) -> Vec<SemanticToken> {
    // A poisoned cache (a panic in an earlier computation) is dropped, not trusted.
    let mut cache = cache.lock().unwrap_or_else(|poisoned| {
        let mut cache = poisoned.into_inner();
        *cache = ItemCache::default();
        cache
    });
    semantic_tokens::document_tokens(snap, unit, &mut cache)
}

/// `generatable`: the document is a file inside a workspace folder (else no generate actions).
pub fn code_actions(
    snap: &Arc<Snapshot>,
    base: Option<&Baseline>,
    unit: ColumnUnit,
    p: &CodeActionParams,
    generatable: bool,
) -> CodeActionResponse {
    let uri = &p.text_document.uri;
    let range = range_from_lsp(&snap.source, p.range, unit);
    let mut actions = ide::code_actions(snap, range.clone());
    if let Some(base) = base {
        actions.extend(ide::compat::actions(snap, base, &range));
    }
    let mut out: CodeActionResponse = actions
        .into_iter()
        .map(|a| {
            CodeActionOrCommand::CodeAction(CodeAction {
                title: a.title,
                kind: Some(match a.kind {
                    ide::ActionKind::QuickFix => CodeActionKind::QUICKFIX,
                    ide::ActionKind::Refactor => CodeActionKind::REFACTOR,
                    ide::ActionKind::RefactorRewrite => CodeActionKind::REFACTOR_REWRITE,
                }),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(
                        uri.clone(),
                        convert::edits(&snap.source, &a.edits, unit),
                    )])),
                    ..Default::default()
                }),
                is_preferred: Some(a.preferred),
                // Where the cursor goes: `lsp::snippets` makes it a snippet edit for
                // clients that take them.
                data: a.select.as_ref().and_then(|(i, r)| {
                    let snippet = snippets::snippet(&a.edits.get(*i)?.1, r.clone())?;
                    Some(serde_json::json!({ snippets::DATA_KEY: {"edit": i, "snippet": snippet} }))
                }),
                ..Default::default()
            })
        })
        .collect();
    if generatable && ide::is_clean(snap) {
        let mut choices: Vec<(String, Vec<wirelens_generators::Lang>)> = wirelens_generators::Lang::ALL
            .iter()
            .map(|&l| (format!("Generate {} for this file", lang_label(l)), vec![l]))
            .collect();
        choices.push((
            "Generate C, C++ and Rust for this file".into(),
            wirelens_generators::Lang::ALL.to_vec(),
        ));
        for (title, langs) in choices {
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title.clone(),
                kind: Some(CodeActionKind::new("source.generate.wirelens")),
                command: Some(generate_command(&title, uri, &langs)),
                ..Default::default()
            }));
        }
    }
    out
}

/// `wirelens.showLayout [uri, name]`: the type's hover Markdown. With a third argument
/// `{"svg": true}`: `{markdown, svg}`, `svg` being the layout view's diagram (SVG, nested
/// structs in `<details>`), for clients that can show HTML.
pub fn show_layout(snap: &Snapshot, name: &str, numbers: NumberFormat, svg: bool) -> Option<serde_json::Value> {
    /// Nested structs the layout view can expand, levels deep.
    const DEPTH: usize = 3;
    let a = &snap.analysis;
    let id = a.schema.type_id(name)?;
    let markdown = ide::views::type_hover(&a.schema, &a.layout, id, numbers)?;
    if !svg {
        return Some(serde_json::Value::String(markdown));
    }
    let picture = ide::diagram::to_html(&a.schema, &a.layout, id, DEPTH);
    Some(serde_json::json!({ "markdown": markdown, "svg": picture }))
}

#[allow(deprecated)] // `deprecated` is a required field of the LSP type
pub fn workspace_symbols(uri: &Uri, snap: &Snapshot, unit: ColumnUnit, query: &str) -> Vec<SymbolInformation> {
    ide::workspace_symbols(snap, query)
        .into_iter()
        .map(|(name, kind, range)| SymbolInformation {
            name,
            kind: convert::symbol_kind(kind),
            tags: None,
            deprecated: None,
            location: Location {
                uri: uri.clone(),
                range: range_to_lsp(&snap.source, &range, unit),
            },
            container_name: None,
        })
        .collect()
}
