//! The `LanguageServer` implementation: a thin shell over `codegen` and [`views`].

use std::collections::HashMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen::model::{Schema, TypeId, TypeKind};
use codegen::project::Project;
use codegen::source::ColumnUnit;
use codegen::{Dialect, OrderChoice, Severity};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::documents::{from_lsp, range_to_lsp, Document};
use super::generation::{generate_arguments, generate_command, generate_request, lang_label};
use super::settings::ClientSettings;
use super::{features, views};

/// `wirelens.showLayout [uri, typeName]`: the layout of one type as Markdown (the code
/// lens runs it; editors may show the result).
pub(super) const SHOW_LAYOUT: &str = "wirelens.showLayout";

/// `wirelens.generate [{uri, languages?, outDir?}]` (also `[uri, languages?]`): writes
/// the generated code for one schema; answers `{outDir, written, unchanged}`.
pub const GENERATE: &str = "wirelens.generate";

/// `wirelens.generateWorkspace [{languages?, outDir?}?]`: every schema under the
/// workspace folders, with `$/progress`.
pub const GENERATE_WORKSPACE: &str = "wirelens.generateWorkspace";

/// Diagnostics wait this long after the last edit, so a burst of keystrokes publishes once.
/// Clients may change it (`diagnostics.delayMs`; benchmarks use 0 to measure the
/// server's own time).
const DEBOUNCE: Duration = Duration::from_millis(60);

pub struct Backend {
    pub(super) client: Client,
    pub(super) state: Arc<Mutex<State>>,
}

pub(super) struct State {
    pub(super) docs: HashMap<Uri, Document>,
    pub(super) unit: ColumnUnit,
    /// Settings from the client (`initializationOptions` or
    /// `workspace/didChangeConfiguration`); only what the user set.
    pub(super) client: ClientSettings,
    /// Settings per schema, discovery and generation: the project service, rebuilt
    /// when the workspace folders or the client's settings change.
    pub(super) project: Arc<Project>,
    /// The client shows `$/progress` for tokens the server creates.
    pub(super) progress: bool,
    /// The last generation failure per schema, shown as a diagnostic until a
    /// generation of that schema succeeds.
    pub(super) gen_errors: HashMap<Uri, String>,
    /// The client accepts `workspace/inlayHint/refresh`.
    pub(super) inlay_refresh: bool,
    /// Workspace folders, for workspace symbols over files not open.
    pub(super) roots: Vec<std::path::PathBuf>,
    /// The client can watch files for us (`workspace/didChangeWatchedFiles`).
    pub(super) watch_files: bool,
}

impl State {
    /// The ffire order choice of a document, from the project service (its
    /// `wirelens.toml` cache is dropped when a `wirelens.toml` changes).
    fn order_for(&mut self, uri: &Uri) -> OrderChoice {
        match uri.to_file_path() {
            Some(path) => self.project.order_for(&path, None),
            None => codegen::project::order_choice(None, self.client.project.order, None),
        }
    }
}

pub(super) fn internal_error(message: String) -> tower_lsp_server::jsonrpc::Error {
    tower_lsp_server::jsonrpc::Error {
        code: tower_lsp_server::jsonrpc::ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
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
                client: ClientSettings::default(),
                progress: false,
                gen_errors: HashMap::new(),
                inlay_refresh: false,
                roots: Vec::new(),
                project: Arc::new(Project::default()),
                watch_files: false,
            })),
        }
    }

    /// Runs `f` on the state; a panic inside is caught and logged, and the server keeps
    /// serving (the handler answers as if there were nothing to show).
    pub(super) fn with_state<T>(&self, what: &str, f: impl FnOnce(&mut State) -> Option<T>) -> Option<T> {
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

    pub(super) fn with_doc<T>(
        &self,
        what: &str,
        uri: &Uri,
        f: impl FnOnce(&Document, ColumnUnit) -> Option<T>,
    ) -> Option<T> {
        self.with_state(what, |s| {
            let unit = s.unit;
            s.docs.get(uri).and_then(|d| f(d, unit))
        })
    }

    /// Asks the client to re-request inlay hints (only when the layout changed).
    fn refresh_hints(&self) {
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.inlay_hint_refresh().await;
        });
    }

    fn diagnostics(uri: &Uri, doc: &Document, unit: ColumnUnit, gen_error: Option<&String>) -> Vec<Diagnostic> {
        let generation = gen_error.map(|message| Diagnostic {
            range: Default::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String("generate".into())),
            source: Some("wirelens".into()),
            message: format!("code generation failed: {message}"),
            ..Default::default()
        });
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
                // "first defined here", the members of a cycle: shown under the message.
                related_information: (!d.related.is_empty()).then(|| {
                    d.related
                        .iter()
                        .map(|r| DiagnosticRelatedInformation {
                            location: Location {
                                uri: uri.clone(),
                                range: range_to_lsp(&doc.source, &r.range, unit),
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

    /// Publishes the diagnostics of `uri` once its version has been stable for
    /// [`DEBOUNCE`] (or the client's `diagnostics.delayMs`); always publishes, also an
    /// empty list.
    pub(super) fn schedule_diagnostics(&self, uri: Uri, version: i32) {
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move {
            let delay = {
                let s = match state.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                s.client.diagnostics_delay_ms.map_or(DEBOUNCE, Duration::from_millis)
            };
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let diags = {
                let s = match state.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                match s.docs.get(&uri) {
                    Some(doc) if doc.version == version => {
                        Some(Self::diagnostics(&uri, doc, s.unit, s.gen_errors.get(&uri)))
                    }
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
        let refresh = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false);
        let client_settings = params
            .initialization_options
            .as_ref()
            .map(ClientSettings::parse)
            .unwrap_or_default();
        let progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        let watch = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        #[allow(deprecated)] // root_uri: still what many clients send
        let mut roots: Vec<std::path::PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        #[allow(deprecated)]
        if roots.is_empty() {
            roots.extend(
                params
                    .root_uri
                    .as_ref()
                    .and_then(|u| u.to_file_path())
                    .map(|p| p.into_owned()),
            );
        }
        self.with_state("initialize", |s| {
            s.unit = unit;
            s.inlay_refresh = refresh;
            s.client = client_settings;
            s.progress = progress;
            s.roots = roots;
            s.rebuild_project();
            s.watch_files = watch;
            Some(())
        });
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(kind),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                })),
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
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![":".into(), "<".into(), "[".into(), " ".into()]),
                    ..Default::default()
                }),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                })),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![SHOW_LAYOUT.into(), GENERATE.into(), GENERATE_WORKSPACE.into()],
                    work_done_progress_options: Default::default(),
                }),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend: SemanticTokensLegend {
                            token_types: features::TOKEN_TYPES.to_vec(),
                            token_modifiers: features::TOKEN_MODIFIERS.to_vec(),
                        },
                        full: Some(SemanticTokensFullOptions::Bool(true)),
                        range: None,
                        work_done_progress_options: Default::default(),
                    },
                )),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "wirelens".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if self.with_state("initialized", |s| Some(s.watch_files)).unwrap_or(false) {
            let watchers = vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/wirelens.toml".into()),
                kind: None,
            }];
            let options = DidChangeWatchedFilesRegistrationOptions { watchers };
            let registration = Registration {
                id: "wirelens-toml".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            };
            let _ = self.client.register_capability(vec![registration]).await;
        }
    }

    async fn did_change_watched_files(&self, _: DidChangeWatchedFilesParams) {
        // A wirelens.toml changed: forget cached settings and re-check every open file.
        let updated = self.with_state("didChangeWatchedFiles", |s| {
            s.project.forget_configs();
            let uris: Vec<Uri> = s.docs.keys().cloned().collect();
            let mut out = Vec::new();
            for uri in uris {
                let order = s.order_for(&uri);
                if let Some(doc) = s.docs.get_mut(&uri) {
                    doc.reanalyze(order);
                    out.push((uri, doc.version));
                }
            }
            Some((out, s.inlay_refresh))
        });
        if let Some((docs, refresh)) = updated {
            for (uri, version) in docs {
                self.schedule_diagnostics(uri, version);
            }
            if refresh {
                self.refresh_hints();
            }
        }
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
        let opened = self.with_state("didOpen", |s| {
            let order = s.order_for(&uri);
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
        let changed = self.with_state("didChange", |s| {
            let unit = s.unit;
            let order = s.order_for(&uri);
            let refresh = s.inlay_refresh;
            let doc = s.docs.get_mut(&uri)?;
            let layout_changed = doc.change(version, &params.content_changes, unit, order)?;
            Some(refresh && layout_changed)
        });
        if let Some(layout_changed) = changed {
            self.schedule_diagnostics(uri, version);
            if layout_changed {
                self.refresh_hints();
            }
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.generate_on_save(params.text_document.uri).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.with_state("didClose", |s| {
            s.gen_errors.remove(&uri);
            s.docs.remove(&uri).map(|_| ())
        });
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
        if self.with_state("inlayHint", |s| s.client.inlay_hints) == Some(false) {
            return Ok(Some(Vec::new()));
        }
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
        let generatable = self
            .with_state("codeLens", |s| Some(s.can_generate(&params.text_document.uri)))
            .unwrap_or(false);
        Ok(self.with_doc("codeLens", &params.text_document.uri, |doc, unit| {
            let a = &doc.analysis;
            let lenses = (0..a.schema.types.len())
                .filter_map(|id| {
                    let title = views::lens_title(&a.schema, &a.layout, id)?;
                    Some(CodeLens {
                        range: range_to_lsp(&doc.source, &a.schema.types[id].name_range, unit),
                        command: Some(Command {
                            title,
                            command: SHOW_LAYOUT.into(),
                            arguments: Some(vec![
                                serde_json::json!(params.text_document.uri.as_str()),
                                serde_json::json!(a.schema.types[id].name),
                            ]),
                        }),
                        data: None,
                    })
                })
                .collect::<Vec<_>>();
            let mut lenses = lenses;
            if let (Some(first), true) = (a.schema.types.first(), generatable && !lenses.is_empty()) {
                let range = range_to_lsp(&doc.source, &first.name_range, unit);
                for lang in codegen::emit::Lang::ALL {
                    let title = format!("Generate {}", lang_label(lang));
                    lenses.push(CodeLens {
                        range,
                        command: Some(generate_command(&title, &params.text_document.uri, &[lang])),
                        data: None,
                    });
                }
            }
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

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let token = params.work_done_progress_params.work_done_token.clone();
        if params.command == GENERATE {
            let (uri, request) = generate_arguments(&params.arguments)?;
            return self.generate_one(uri, request, token).await.map(Some);
        }
        if params.command == GENERATE_WORKSPACE {
            let request = params.arguments.first().map(generate_request).unwrap_or_default();
            return self.generate_workspace(request, token).await.map(Some);
        }
        if params.command != SHOW_LAYOUT {
            return Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                "unknown command `{}`",
                params.command
            )));
        }
        let (Some(uri), Some(name)) = (
            params
                .arguments
                .first()
                .and_then(|v| v.as_str())
                .and_then(|u| u.parse::<Uri>().ok()),
            params.arguments.get(1).and_then(|v| v.as_str()),
        ) else {
            return Err(tower_lsp_server::jsonrpc::Error::invalid_params(
                "expected [uri, typeName]",
            ));
        };
        Ok(self.with_doc("executeCommand", &uri, |doc, _| {
            let a = &doc.analysis;
            let id = a.schema.type_id(name)?;
            views::type_hover(&a.schema, &a.layout, id).map(serde_json::Value::String)
        }))
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let client_settings = ClientSettings::parse(&params.settings);
        let refresh = self
            .with_state("didChangeConfiguration", |s| Some(s.inlay_refresh))
            .unwrap_or(false);
        let updated = self.with_state("didChangeConfiguration", |s| {
            s.client = client_settings;
            s.rebuild_project();
            let uris: Vec<Uri> = s.docs.keys().cloned().collect();
            for uri in &uris {
                let o = s.order_for(uri);
                if let Some(doc) = s.docs.get_mut(uri) {
                    doc.reanalyze(o);
                }
            }
            Some(
                uris.into_iter()
                    .filter_map(|u| s.docs.get(&u).map(|d| (u.clone(), d.version)))
                    .collect::<Vec<_>>(),
            )
        });
        for (uri, version) in updated.unwrap_or_default() {
            self.schedule_diagnostics(uri, version);
        }
        if refresh {
            self.refresh_hints();
        }
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        Ok(self.with_doc("completion", &pos.text_document.uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(pos.position), unit);
            Some(CompletionResponse::Array(features::completion(doc, offset)))
        }))
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        Ok(self.with_doc("prepareRename", &params.text_document.uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(params.position), unit);
            let (at, _, _) = features::rename_targets(&doc.analysis.schema, offset)?;
            Some(PrepareRenameResponse::Range(range_to_lsp(&doc.source, &at, unit)))
        }))
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let pos = params.text_document_position;
        let uri = pos.text_document.uri.clone();
        let result = self.with_doc("rename", &uri, |doc, unit| {
            let offset = doc.source.offset(from_lsp(pos.position), unit);
            let (_, all, kind) = features::rename_targets(&doc.analysis.schema, offset)?;
            if let Some(why) = features::rename_refusal(&doc.analysis.schema, kind, &params.new_name) {
                return Some(Err(why));
            }
            let edits = all
                .iter()
                .map(|r| TextEdit {
                    range: range_to_lsp(&doc.source, r, unit),
                    new_text: params.new_name.clone(),
                })
                .collect();
            Some(Ok(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), edits)])),
                ..Default::default()
            }))
        });
        match result {
            None => Ok(None),
            Some(Ok(edit)) => Ok(Some(edit)),
            Some(Err(why)) => Err(tower_lsp_server::jsonrpc::Error::invalid_params(why)),
        }
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        Ok(self.with_doc("semanticTokens", &params.text_document.uri, |doc, unit| {
            Some(SemanticTokensResult::Tokens(SemanticTokens {
                result_id: None,
                data: features::semantic_tokens(doc, unit),
            }))
        }))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let generatable = self
            .with_state("codeAction", |s| Some(s.can_generate(&uri)))
            .unwrap_or(false);
        Ok(self.with_doc("codeAction", &uri, |doc, unit| {
            let range = doc.source.offset(from_lsp(params.range.start), unit)
                ..doc.source.offset(from_lsp(params.range.end), unit);
            let mut actions = features::code_actions(doc, &uri, &range, unit);
            let clean = !doc.analysis.diagnostics.iter().any(|d| d.severity == Severity::Error);
            if generatable && clean && !doc.analysis.schema.types.is_empty() {
                let mut choices: Vec<(String, Vec<codegen::emit::Lang>)> = codegen::emit::Lang::ALL
                    .iter()
                    .map(|&l| (format!("Generate {} for this file", lang_label(l)), vec![l]))
                    .collect();
                choices.push((
                    "Generate C, C++ and Rust for this file".into(),
                    codegen::emit::Lang::ALL.to_vec(),
                ));
                for (title, langs) in choices {
                    actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                        title: title.clone(),
                        kind: Some(CodeActionKind::new("source.generate.wirelens")),
                        command: Some(generate_command(&title, &uri, &langs)),
                        ..Default::default()
                    }));
                }
            }
            Some(actions)
        }))
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let query = params.query.to_lowercase();
        Ok(self.with_state("workspace/symbol", |s| {
            let unit = s.unit;
            let mut out = Vec::new();
            let mut push = |uri: &Uri, doc: &Document| {
                for def in &doc.analysis.schema.types {
                    if query.is_empty() || def.name.to_lowercase().contains(&query) {
                        #[allow(deprecated)] // `deprecated` is a required field of the LSP type
                        out.push(SymbolInformation {
                            name: def.name.clone(),
                            kind: if def.is_struct() {
                                SymbolKind::STRUCT
                            } else {
                                SymbolKind::TYPE_PARAMETER
                            },
                            tags: None,
                            deprecated: None,
                            location: Location {
                                uri: uri.clone(),
                                range: range_to_lsp(&doc.source, &def.name_range, unit),
                            },
                            container_name: None,
                        });
                    }
                }
            };
            for (uri, doc) in &s.docs {
                push(uri, doc);
            }
            // Schema files of the workspace that are not open, read from disk.
            for path in workspace_schemas(&s.roots) {
                let Some(uri) = Uri::from_file_path(&path) else {
                    continue;
                };
                if s.docs.contains_key(&uri) {
                    continue;
                }
                let (Some(dialect), Ok(text)) = (Dialect::from_path(&path), std::fs::read_to_string(&path)) else {
                    continue;
                };
                let doc = Document::open(dialect, 0, text, OrderChoice::default());
                push(&uri, &doc);
            }
            Some(WorkspaceSymbolResponse::Flat(out))
        }))
    }
}

/// `.sdp` and `.ffi` files under the workspace roots (skipping hidden folders, `target`
/// and `node_modules`, never looping through symbolic links), at most a few thousand.
pub(super) fn workspace_schemas(roots: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    codegen::project::workspace_schemas(roots, 5000)
}
