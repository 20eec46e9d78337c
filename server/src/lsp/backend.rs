//! The `LanguageServer` implementation: a thin shell over `codegen` and [`views`].

use std::collections::HashMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen::model::{Schema, TypeId, TypeKind};
use codegen::source::ColumnUnit;
use codegen::{Config, Dialect, OrderChoice, Severity};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::documents::{from_lsp, range_to_lsp, Document};
use super::views;

/// Diagnostics wait this long after the last edit, so a burst of keystrokes publishes once.
const DEBOUNCE: Duration = Duration::from_millis(60);

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
}

struct State {
    docs: HashMap<Uri, Document>,
    unit: ColumnUnit,
}

/// What the cursor is on.
enum Target {
    TypeName(TypeId),
    Field(TypeId, usize),
    TypeRef { target: Option<TypeId> },
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            state: Arc::new(Mutex::new(State {
                docs: HashMap::new(),
                unit: ColumnUnit::Utf16,
            })),
        }
    }

    /// Runs `f` on the state; a panic inside is caught and logged, and the server keeps
    /// serving (the handler answers as if there were nothing to show).
    fn with_state<T>(&self, what: &str, f: impl FnOnce(&mut State) -> Option<T>) -> Option<T> {
        let mut guard = match self.state.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        match catch_unwind(AssertUnwindSafe(|| f(&mut guard))) {
            Ok(v) => v,
            Err(_) => {
                eprintln!("wirelens lsp: internal error while handling {what}; the server continues");
                None
            }
        }
    }

    fn with_doc<T>(&self, what: &str, uri: &Uri, f: impl FnOnce(&Document, ColumnUnit) -> Option<T>) -> Option<T> {
        self.with_state(what, |s| {
            let unit = s.unit;
            s.docs.get(uri).and_then(|d| f(d, unit))
        })
    }

    fn order_for(uri: &Uri) -> OrderChoice {
        let order = uri
            .to_file_path()
            .and_then(|p| Config::for_schema(&p).ok())
            .and_then(|c| c.ffi.order);
        OrderChoice {
            order,
            overrides_directive: false,
        }
    }

    fn diagnostics(doc: &Document, unit: ColumnUnit) -> Vec<Diagnostic> {
        doc.analysis
            .diagnostics
            .iter()
            .map(|d| Diagnostic {
                range: range_to_lsp(&doc.source, &d.range, unit),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Info => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(d.code.to_string())),
                source: Some("wirelens".into()),
                message: match (&d.label, d.notes.is_empty()) {
                    (_, false) => format!("{}\n{}", d.message, d.notes.join("\n")),
                    _ => d.message.clone(),
                },
                ..Default::default()
            })
            .collect()
    }

    /// Publishes the diagnostics of `uri` once its version has been stable for
    /// [`DEBOUNCE`]; always publishes, also an empty list.
    fn schedule_diagnostics(&self, uri: Uri, version: i32) {
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            let diags = {
                let s = match state.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                match s.docs.get(&uri) {
                    Some(doc) if doc.version == version => Some(Self::diagnostics(doc, s.unit)),
                    _ => None, // superseded by a newer edit, or closed
                }
            };
            if let Some(diags) = diags {
                client.publish_diagnostics(uri, diags, Some(version)).await;
            }
        });
    }
}

fn locate(schema: &Schema, offset: usize) -> Option<Target> {
    let within = |r: &Range<usize>| r.start <= offset && offset <= r.end;
    for (id, def) in schema.types.iter().enumerate() {
        if within(&def.name_range) {
            return Some(Target::TypeName(id));
        }
        if !within(&def.range) {
            continue;
        }
        let exprs: Vec<&codegen::model::TypeExpr> = match &def.kind {
            TypeKind::Struct { fields, .. } => {
                for (i, f) in fields.iter().enumerate() {
                    if within(&f.name_range) {
                        return Some(Target::Field(id, i));
                    }
                }
                fields.iter().map(|f| &f.ty).collect()
            }
            TypeKind::Alias { target, .. } => vec![target],
        };
        for ty in exprs {
            for (_, target, range) in ty.named_refs() {
                if within(&range) {
                    return Some(Target::TypeRef { target });
                }
            }
        }
    }
    None
}

/// Every reference to type `id` in the schema (field types and alias targets).
fn references_to(schema: &Schema, id: TypeId) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for def in &schema.types {
        let exprs: Vec<&codegen::model::TypeExpr> = match &def.kind {
            TypeKind::Struct { fields, .. } => fields.iter().map(|f| &f.ty).collect(),
            TypeKind::Alias { target, .. } => vec![target],
        };
        for ty in exprs {
            out.extend(
                ty.named_refs()
                    .into_iter()
                    .filter(|(_, t, _)| *t == Some(id))
                    .map(|(_, _, r)| r),
            );
        }
    }
    out
}

fn negotiate(params: &InitializeParams) -> (ColumnUnit, PositionEncodingKind) {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    let offers = |k: &PositionEncodingKind| offered.is_some_and(|o| o.contains(k));
    // UTF-8 is what tree-sitter counts in; prefer it when the client can.
    if offers(&PositionEncodingKind::UTF8) {
        (ColumnUnit::Utf8, PositionEncodingKind::UTF8)
    } else if offers(&PositionEncodingKind::UTF32) {
        (ColumnUnit::Utf32, PositionEncodingKind::UTF32)
    } else {
        (ColumnUnit::Utf16, PositionEncodingKind::UTF16)
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let (unit, kind) = negotiate(&params);
        self.with_state("initialize", |s| {
            s.unit = unit;
            Some(())
        });
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(kind),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                inlay_hint_provider: Some(OneOf::Left(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                document_formatting_provider: Some(OneOf::Left(true)),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "wirelens".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        })
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(dialect) = uri.to_file_path().and_then(|p| Dialect::from_path(&p)).or(
            match params.text_document.language_id.as_str() {
                "sdp" => Some(Dialect::Sdp),
                "ffi" => Some(Dialect::Ffi),
                _ => None,
            },
        ) else {
            return;
        };
        let version = params.text_document.version;
        let order = Self::order_for(&uri);
        let opened = self.with_state("didOpen", |s| {
            s.docs.insert(
                uri.clone(),
                Document::open(dialect, version, params.text_document.text, order),
            );
            Some(())
        });
        if opened.is_some() {
            self.schedule_diagnostics(uri, version);
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before the first await: see `documents` on ordering.
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let order = Self::order_for(&uri);
        let changed = self.with_state("didChange", |s| {
            let unit = s.unit;
            let doc = s.docs.get_mut(&uri)?;
            doc.change(version, &params.content_changes, unit, order).then_some(())
        });
        if changed.is_some() {
            self.schedule_diagnostics(uri, version);
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.with_state("didClose", |s| s.docs.remove(&uri).map(|_| ()));
        // Clear what was shown for the closed file.
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        Ok(self.with_doc("hover", &pos.text_document.uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(pos.position), unit);
            let a = &doc.analysis;
            let text = match locate(&a.schema, offset)? {
                Target::TypeName(id) | Target::TypeRef { target: Some(id) } => {
                    views::type_hover(&a.schema, &a.layout, id)?
                }
                Target::Field(id, i) => views::field_hover(&a.schema, &a.layout, id, i)?,
                Target::TypeRef { target: None } => return None,
            };
            Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: text,
                }),
                range: None,
            })
        }))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        Ok(self.with_doc("inlayHint", &params.text_document.uri, |doc, unit| {
            let a = &doc.analysis;
            let window = doc.source.offset(from_lsp(params.range.start), unit)
                ..doc.source.offset(from_lsp(params.range.end), unit);
            let mut hints = Vec::new();
            for (id, def) in a.schema.types.iter().enumerate() {
                let Some(t) = a.layout.get(id) else { continue };
                for (i, f) in def.fields().iter().enumerate() {
                    if f.range.end < window.start || f.range.start > window.end {
                        continue;
                    }
                    let Some(label) = views::field_hint(&a.layout, t, i) else {
                        continue;
                    };
                    // After the separating comma when there is one.
                    let after = doc
                        .source
                        .text
                        .get(f.range.end..)
                        .and_then(|rest| rest.starts_with(',').then_some(1))
                        .unwrap_or(0);
                    let at = range_to_lsp(&doc.source, &((f.range.end + after)..(f.range.end + after)), unit).start;
                    hints.push(InlayHint {
                        position: at,
                        label: InlayHintLabel::String(label),
                        kind: None,
                        text_edits: None,
                        tooltip: None,
                        padding_left: Some(true),
                        padding_right: None,
                        data: None,
                    });
                }
            }
            Some(hints)
        }))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        Ok(self.with_doc("codeLens", &params.text_document.uri, |doc, unit| {
            let a = &doc.analysis;
            let lenses = (0..a.schema.types.len())
                .filter_map(|id| {
                    let title = views::lens_title(&a.schema, &a.layout, id)?;
                    Some(CodeLens {
                        range: range_to_lsp(&doc.source, &a.schema.types[id].name_range, unit),
                        command: Some(Command {
                            title,
                            command: String::new(),
                            arguments: None,
                        }),
                        data: None,
                    })
                })
                .collect();
            Some(lenses)
        }))
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let pos = params.text_document_position_params;
        let uri = pos.text_document.uri.clone();
        Ok(self.with_doc("definition", &uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(pos.position), unit);
            let id = match locate(&doc.analysis.schema, offset)? {
                Target::TypeRef { target: Some(id) } | Target::TypeName(id) => id,
                _ => return None,
            };
            let range = range_to_lsp(&doc.source, &doc.analysis.schema.types[id].name_range, unit);
            Some(GotoDefinitionResponse::Scalar(Location {
                uri: uri.clone(),
                range,
            }))
        }))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let pos = params.text_document_position;
        let uri = pos.text_document.uri.clone();
        Ok(self.with_doc("references", &uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(pos.position), unit);
            let schema = &doc.analysis.schema;
            let id = match locate(schema, offset)? {
                Target::TypeRef { target: Some(id) } | Target::TypeName(id) => id,
                _ => return None,
            };
            let mut ranges = references_to(schema, id);
            if params.context.include_declaration {
                ranges.insert(0, schema.types[id].name_range.clone());
            }
            Some(
                ranges
                    .iter()
                    .map(|r| Location {
                        uri: uri.clone(),
                        range: range_to_lsp(&doc.source, r, unit),
                    })
                    .collect(),
            )
        }))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        Ok(self.with_doc("documentSymbol", &params.text_document.uri, |doc, unit| {
            let a = &doc.analysis;
            #[allow(deprecated)] // `deprecated` is a required field of the LSP type
            let symbols = a
                .schema
                .types
                .iter()
                .enumerate()
                .map(|(id, def)| DocumentSymbol {
                    name: def.name.clone(),
                    detail: views::lens_title(&a.schema, &a.layout, id),
                    kind: if def.is_struct() {
                        SymbolKind::STRUCT
                    } else {
                        SymbolKind::TYPE_PARAMETER
                    },
                    tags: None,
                    deprecated: None,
                    range: range_to_lsp(&doc.source, &def.range, unit),
                    selection_range: range_to_lsp(&doc.source, &def.name_range, unit),
                    children: Some(
                        def.fields()
                            .iter()
                            .enumerate()
                            .map(|(i, f)| DocumentSymbol {
                                name: f.name.clone(),
                                detail: Some(format!(
                                    "{}{}",
                                    f.ty.display(a.schema.dialect),
                                    a.layout
                                        .get(id)
                                        .and_then(|t| views::field_hint(&a.layout, t, i))
                                        .map(|h| format!("  {h}"))
                                        .unwrap_or_default()
                                )),
                                kind: SymbolKind::FIELD,
                                tags: None,
                                deprecated: None,
                                range: range_to_lsp(&doc.source, &f.range, unit),
                                selection_range: range_to_lsp(&doc.source, &f.name_range, unit),
                                children: None,
                            })
                            .collect(),
                    ),
                })
                .collect();
            Some(DocumentSymbolResponse::Nested(symbols))
        }))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        Ok(self.with_doc("foldingRange", &params.text_document.uri, |doc, unit| {
            let ranges = doc
                .analysis
                .schema
                .types
                .iter()
                .filter_map(|def| {
                    let r = range_to_lsp(&doc.source, &def.range, unit);
                    (r.end.line > r.start.line).then(|| FoldingRange {
                        start_line: r.start.line,
                        start_character: None,
                        end_line: r.end.line,
                        end_character: None,
                        kind: Some(FoldingRangeKind::Region),
                        collapsed_text: Some(def.name.clone()),
                    })
                })
                .collect();
            Some(ranges)
        }))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        Ok(self.with_doc("formatting", &params.text_document.uri, |doc, unit| {
            // Never on a file with syntax errors: the result could lose text.
            if doc.analysis.has_syntax_errors() {
                return None;
            }
            let formatted = codegen::fmt::format(doc.dialect, &doc.source.text).ok()?;
            if formatted == doc.source.text {
                return Some(Vec::new());
            }
            let whole = range_to_lsp(&doc.source, &(0..doc.source.text.len()), unit);
            Some(vec![TextEdit {
                range: whole,
                new_text: formatted,
            }])
        }))
    }
}
