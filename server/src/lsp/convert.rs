//! The one place IDE answers become LSP values: positions, ranges, diagnostics, markup,
//! semantic tokens. Line and column arithmetic itself lives in `wirelens_core::source`
//! (`\n`, `\r\n` and `\r` end lines, as LSP says).

use std::ops::Range;

use tower_lsp_server::ls_types::{self as lsp, *};
use wirelens_core::source::{ColumnUnit, Position};
use wirelens_core::{Severity, SourceFile};

use crate::ide::{self, Snapshot};

pub fn from_lsp(p: lsp::Position) -> Position {
    Position {
        line: p.line,
        column: p.character,
    }
}

pub fn to_lsp(p: Position) -> lsp::Position {
    lsp::Position {
        line: p.line,
        character: p.column,
    }
}

pub fn offset(source: &SourceFile, p: lsp::Position, unit: ColumnUnit) -> usize {
    source.offset(from_lsp(p), unit)
}

pub fn range_from_lsp(source: &SourceFile, r: lsp::Range, unit: ColumnUnit) -> Range<usize> {
    let start = offset(source, r.start, unit);
    start..offset(source, r.end, unit).max(start)
}

pub fn range_to_lsp(source: &SourceFile, range: &Range<usize>, unit: ColumnUnit) -> lsp::Range {
    let (s, e) = source.range_positions(range, unit);
    lsp::Range {
        start: to_lsp(s),
        end: to_lsp(e),
    }
}

pub fn markdown(value: String) -> MarkupContent {
    MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    }
}

/// The markup a client asked for: the first of its `contentFormat` (hover) or
/// `documentationFormat` (completion) that the server can write, in the client's order
/// of preference. A client that says nothing gets Markdown, as before.
pub fn preferred_markup(formats: Option<&Vec<MarkupKind>>) -> MarkupKind {
    formats
        .into_iter()
        .flatten()
        .find(|k| matches!(k, MarkupKind::Markdown | MarkupKind::PlainText))
        .cloned()
        .unwrap_or(MarkupKind::Markdown)
}

/// The IDE layer's Markdown in the kind the client reads: as is, or rendered as plain
/// text ([`plain_text`]).
pub fn markup(value: String, kind: &MarkupKind) -> MarkupContent {
    match kind {
        MarkupKind::PlainText => MarkupContent {
            kind: MarkupKind::PlainText,
            value: plain_text(&value),
        },
        _ => markdown(value),
    }
}

/// A plain-text rendering of the Markdown the IDE layer writes (for clients such as
/// Emacs' eglot without a Markdown renderer): code fences dropped (their lines kept as
/// they are), tables drawn as aligned columns, rules as a line, and emphasis, code
/// spans and escapes unwrapped.
pub fn plain_text(md: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    let mut table: Vec<Vec<String>> = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push(line.to_string());
            continue;
        }
        let t = line.trim();
        if t.starts_with('|') && t.ends_with('|') && t.len() > 1 {
            let cells = table_cells(t);
            let rule = cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
            if !rule {
                table.push(cells.iter().map(|c| inline_plain(c)).collect());
            }
            continue;
        }
        flush_table(&mut table, &mut out);
        if !t.is_empty() && t.chars().all(|c| c == '-') && t.len() >= 3 {
            out.push("─".repeat(40));
        } else {
            let body = if line.starts_with('#') {
                line.trim_start_matches('#').trim_start()
            } else {
                line
            };
            out.push(inline_plain(body));
        }
    }
    flush_table(&mut table, &mut out);
    // No run of blank lines, none at the ends.
    let mut text = String::new();
    let mut blank = true;
    for l in out {
        let empty = l.trim().is_empty();
        if empty && blank {
            continue;
        }
        blank = empty;
        text.push_str(l.trim_end());
        text.push('\n');
    }
    while text.ends_with("\n\n") {
        text.pop();
    }
    text
}

/// The cells of a table row `| a | b \| c |` (escaped pipes belong to the cell).
fn table_cells(row: &str) -> Vec<String> {
    let inner = &row[1..row.len() - 1];
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                if let Some(s) = cells.last_mut() {
                    s.push('|');
                }
            }
            '|' => cells.push(String::new()),
            _ => {
                if let Some(s) = cells.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

fn flush_table(table: &mut Vec<Vec<String>>, out: &mut Vec<String>) {
    if table.is_empty() {
        return;
    }
    let columns = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            table
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in table.drain(..) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            let pad = widths[i].saturating_sub(cell.chars().count());
            line.extend(std::iter::repeat_n(' ', pad));
        }
        out.push(line.trim_end().to_string());
    }
}

/// One line of Markdown text without its inline markup: `**bold**`, `` `code` `` and
/// backslash escapes are unwrapped.
fn inline_plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&n) if n.is_ascii_punctuation() => {
                    out.push(n);
                    chars.next();
                }
                _ => out.push(c),
            },
            '`' => {}
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Checks the editor does not publish: `split-fixed-block` marks 82% of the structs of
/// a generated schema, which is noise in a Problems panel (and was 1.6 MB of JSON per
/// keystroke on 5,000 structs). The editor offers its fix as a code action on the
/// struct instead; `wirelens check` still reports it.
pub fn published(d: &wirelens_core::Diagnostic) -> bool {
    d.code != "split-fixed-block"
}

/// The diagnostics an editor shows for a snapshot, plus a failed generation's message.
pub fn diagnostics(uri: &Uri, snap: &Snapshot, unit: ColumnUnit, gen_error: Option<&String>) -> Vec<Diagnostic> {
    let source = &snap.source;
    let generation = gen_error.map(|message| Diagnostic {
        range: Default::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String("generate".into())),
        source: Some("wirelens".into()),
        message: format!("code generation failed: {message}"),
        ..Default::default()
    });
    let swallowed = ide::swallowed_declarations(snap);
    let consequence = |d: &wirelens_core::Diagnostic| {
        matches!(d.code, "UNKNOWN_TYPE" | "E005")
            && source
                .text
                .get(d.range.clone())
                .is_some_and(|n| swallowed.iter().any(|(_, s)| *s == n))
    };
    snap.analysis
        .diagnostics
        .iter()
        .filter(|d| published(d) && !consequence(d))
        .map(|d| Diagnostic {
            range: range_to_lsp(source, &d.range, unit),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(NumberOrString::String(d.code.to_string())),
            source: Some("wirelens".into()),
            message: {
                let mut m = d.message.clone();
                // Say what was expected where a declaration starts inside an open struct
                // (more to the point than the parser's list of what may follow a field).
                if d.code == "SYNTAX" && swallowed.iter().any(|(at, _)| *at == d.range.start) {
                    m.truncate(m.find(": expected").unwrap_or(m.len()));
                    m.push_str(": expected `}` to close the declaration before it");
                }
                if !d.notes.is_empty() {
                    m = format!("{m}\n{}", d.notes.join("\n"));
                }
                m
            },
            // "first defined here", the members of a cycle: shown under the message.
            related_information: (!d.related.is_empty()).then(|| {
                d.related
                    .iter()
                    .map(|r| DiagnosticRelatedInformation {
                        location: Location {
                            uri: uri.clone(),
                            range: range_to_lsp(source, &r.range, unit),
                        },
                        message: r.message.clone(),
                    })
                    .collect()
            }),
            ..Default::default()
        })
        .chain(generation)
        .collect()
}

/// Wire-break warnings (see `ide::compat`): `source` `wirelens`, the break kind as the
/// code, the affected messages as related information.
pub fn wire_warnings(
    uri: &Uri,
    source: &SourceFile,
    warnings: &[ide::compat::WireWarning],
    unit: ColumnUnit,
) -> Vec<Diagnostic> {
    warnings
        .iter()
        .map(|w| Diagnostic {
            range: range_to_lsp(source, &w.range, unit),
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String(w.code.to_string())),
            source: Some("wirelens".into()),
            message: w.message.clone(),
            related_information: (!w.related.is_empty()).then(|| {
                w.related
                    .iter()
                    .map(|(range, message)| DiagnosticRelatedInformation {
                        location: Location {
                            uri: uri.clone(),
                            range: range_to_lsp(source, range, unit),
                        },
                        message: message.clone(),
                    })
                    .collect()
            }),
            ..Default::default()
        })
        .collect()
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

/// Relative encoding; multi-line tokens (block comments) are split per line.
pub fn semantic_tokens(source: &SourceFile, tokens: &[ide::Token], unit: ColumnUnit) -> Vec<SemanticToken> {
    encode_tokens(source, tokens, unit, (0, 0)).0
}

/// [`semantic_tokens`] with the first token's deltas counted from `from` (line, column)
/// instead of the document's start; also the position of the last piece encoded.
pub fn encode_tokens(
    source: &SourceFile,
    tokens: &[ide::Token],
    unit: ColumnUnit,
    from: (u32, u32),
) -> (Vec<SemanticToken>, (u32, u32)) {
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = from;
    // A token over several lines (a block comment) is one piece per line; most are one.
    let mut pieces = Vec::new();
    for t in tokens {
        let (start, end) = source.range_positions(&t.range, unit);
        pieces.clear();
        if start.line == end.line {
            pieces.push((start.line, start.column, end.column.saturating_sub(start.column)));
        } else {
            for line in start.line..=end.line {
                let col = if line == start.line { start.column } else { 0 };
                let text = source.line_text(line);
                let line_len = match unit {
                    ColumnUnit::Utf8 => text.len(),
                    ColumnUnit::Utf16 => text.encode_utf16().count(),
                    ColumnUnit::Utf32 => text.chars().count(),
                } as u32;
                let end_col = if line == end.line { end.column } else { line_len };
                if end_col > col {
                    pieces.push((line, col, end_col - col));
                }
            }
        }
        for &(line, col, len) in &pieces {
            if len == 0 {
                continue;
            }
            let delta_line = line - prev_line;
            let delta_start = if delta_line == 0 { col - prev_col } else { col };
            out.push(SemanticToken {
                delta_line,
                delta_start,
                length: len,
                token_type: t.kind as u32,
                token_modifiers_bitset: t.modifiers,
            });
            prev_line = line;
            prev_col = col;
        }
    }
    (out, (prev_line, prev_col))
}

pub fn symbol_kind(k: ide::SymbolKind) -> SymbolKind {
    match k {
        ide::SymbolKind::Struct => SymbolKind::STRUCT,
        ide::SymbolKind::Alias => SymbolKind::TYPE_PARAMETER,
        ide::SymbolKind::Field => SymbolKind::FIELD,
    }
}

#[allow(deprecated)] // `deprecated` is a required field of the LSP type
pub fn document_symbol(source: &SourceFile, s: ide::Symbol, unit: ColumnUnit) -> DocumentSymbol {
    DocumentSymbol {
        name: s.name,
        detail: s.detail,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: range_to_lsp(source, &s.range, unit),
        selection_range: range_to_lsp(source, &s.name_range, unit),
        // Left out rather than empty: a big schema lists its types only (5,000 `[]`).
        children: (!s.children.is_empty()).then(|| {
            s.children
                .into_iter()
                .map(|c| document_symbol(source, c, unit))
                .collect()
        }),
    }
}

pub fn edits(source: &SourceFile, edits: &[(Range<usize>, String)], unit: ColumnUnit) -> Vec<TextEdit> {
    edits
        .iter()
        .map(|(r, text)| TextEdit {
            range: range_to_lsp(source, r, unit),
            new_text: text.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_unwraps_the_markdown_the_ide_writes() {
        let md = "```sdp\nstruct A {\n```\n\n**Wire changes since `HEAD`**\n\n| field | HEAD | now |\n|---|---|---|\n| `x` | #0 · @`4 + \\|s\\|` | — |\n| `long_name` | #1 | #2 |\n\n---\n\n## Title\n";
        assert_eq!(
            plain_text(md),
            format!(
                "struct A {{\n\nWire changes since HEAD\n\nfield      HEAD           now\nx          #0 · @4 + |s|  —\nlong_name  #1             #2\n\n{}\n\nTitle\n",
                "─".repeat(40)
            )
        );
        assert_eq!(preferred_markup(None), MarkupKind::Markdown);
        assert_eq!(
            preferred_markup(Some(&vec![MarkupKind::PlainText, MarkupKind::Markdown])),
            MarkupKind::PlainText
        );
    }
}
