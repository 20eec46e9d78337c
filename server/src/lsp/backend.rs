//! The `LanguageServer` implementation: the document store, lifecycle and
//! notifications. Requests take a snapshot of their document under the lock, release
//! it, and compute in [`handlers`]; long ones run on the blocking pool.
//!
//! Analysis never runs under the lock or on the message loop: an edit only updates the
//! document's text (under the lock, in arrival order), and one background task per
//! document analyses the newest text on the blocking pool; edits that arrive meanwhile
//! coalesce into one more analysis. Requests on a document wait (without the lock) until
//! its snapshot reflects the newest text; requests on other documents never wait.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};
use wirelens_core::source::ColumnUnit;
use wirelens_core::{Dialect, OrderChoice};
use wirelens_project::project::Project;

use super::commands::{generate_arguments, generate_request, GENERATE, GENERATE_WORKSPACE, SHOW_LAYOUT};
use super::documents::{self, Document, LARGE_DOCUMENT_BYTES};
use super::handlers;
use super::semantic_tokens::{self, SentTokens};
use super::settings::ClientSettings;
use super::{convert, workspace_index::WorkspaceIndex};
use crate::ide::compat::Baseline;
use crate::ide::Snapshot;

/// Diagnostics wait this long after the last edit, so a burst of keystrokes publishes once.
/// Clients may change it (`diagnostics.delayMs`; benchmarks use 0 to measure the
/// server's own time).
const DEBOUNCE: Duration = Duration::from_millis(60);

pub struct Backend {
    pub(super) client: Client,
    pub(super) state: Arc<Mutex<State>>,
    /// Symbols of the workspace's schema files, for `workspace/symbol`.
    index: Arc<WorkspaceIndex>,
    /// Counts installed analyses: requests waiting for a document's current snapshot
    /// wake on each.
    analysed: Arc<tokio::sync::watch::Sender<u64>>,
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
    /// The wire baseline of each open document that has one (loaded in the background).
    pub(super) baselines: HashMap<Uri, Arc<Baseline>>,
    /// Per document, the number of the latest baseline load started: an older load
    /// finishing late is dropped.
    pub(super) baseline_loads: HashMap<Uri, u64>,
    /// The client accepts `workspace/codeLens/refresh`.
    pub(super) lens_refresh: bool,
    /// The documents whose baseline is being loaded: at most one load per document is
    /// in flight ...
    pub(super) baseline_running: HashSet<Uri>,
    /// ... and at most one more is asked for (started when it ends): a storm of
    /// `.git/HEAD` or `wirelens.toml` events costs two loads per document, not one per
    /// event.
    pub(super) baseline_pending: HashSet<Uri>,
    /// The markup the client reads in hovers (and command results that show markup).
    pub(super) markup: MarkupKind,
    /// The semantic tokens last sent per document, for `semanticTokens/full/delta`.
    pub(super) tokens: SentTokens,
}

impl State {
    /// The ffire order choice of a document, from the project service (its
    /// `wirelens.toml` cache is dropped when a `wirelens.toml` changes).
    fn order_for(&mut self, uri: &Uri) -> OrderChoice {
        match uri.to_file_path() {
            Some(path) => self.project.order_for(&path, None),
            None => wirelens_project::project::order_choice(None, self.client.project.order, None),
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
                baselines: HashMap::new(),
                baseline_loads: HashMap::new(),
                lens_refresh: false,
                baseline_running: HashSet::new(),
                baseline_pending: HashSet::new(),
                tokens: SentTokens::default(),
                markup: MarkupKind::Markdown,
            })),
            index: Arc::new(WorkspaceIndex::default()),
            analysed: Arc::new(tokio::sync::watch::Sender::new(0)),
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

    /// The snapshot of `uri` that reflects its newest text, and the column unit: waits
    /// (without the lock) for the document's analysis to catch up; the lock is held only
    /// to clone the `Arc`.
    pub(super) async fn snapshot(&self, uri: &Uri) -> Option<(Arc<Snapshot>, ColumnUnit)> {
        self.snapshot_with_baseline(uri)
            .await
            .map(|(snap, _, unit)| (snap, unit))
    }

    /// [`Backend::snapshot`] with the document's wire baseline (none for a big
    /// document, which has no layout to compare).
    pub(super) async fn snapshot_with_baseline(
        &self,
        uri: &Uri,
    ) -> Option<(Arc<Snapshot>, Option<Arc<Baseline>>, ColumnUnit)> {
        // Subscribed before looking, so an analysis installed in between still wakes us.
        let mut analysed = self.analysed.subscribe();
        loop {
            let found = self.with_state("snapshot", |s| {
                let doc = s.docs.get(uri)?;
                if !doc.is_current() {
                    return Some(None);
                }
                let snap = doc.snap.clone();
                let base = s.baselines.get(uri).filter(|_| !documents::is_large(&snap)).cloned();
                Some(Some((snap, base, s.unit)))
            })?;
            match found {
                Some(found) => return Some(found),
                None => analysed.changed().await.ok()?,
            }
        }
    }

    /// Analyses the newest text of `uri` in the background unless an analysis of it is
    /// running (that one is followed by another when it ends).
    pub(super) fn analyse_later(&self, uri: Uri) {
        tokio::spawn(analyse(
            self.client.clone(),
            self.state.clone(),
            self.analysed.clone(),
            uri,
        ));
    }

    /// Loads the wire baseline of the open document `uri` in the background (git runs
    /// on the blocking pool, never under the lock), then republishes its diagnostics
    /// and asks the client to refresh lenses. No baseline (a new file, no git, no
    /// commit) shows nothing; a baseline that cannot be read is logged. Coalesced: while
    /// a load of `uri` runs, further requests only mark it to run once more after it
    /// (the running load's result, already stale, is dropped then).
    pub(super) fn reload_baseline(&self, uri: Uri) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
            return;
        };
        let start = self.with_state("baseline", |s| {
            if !s.docs.contains_key(&uri) {
                return None;
            }
            if s.baseline_running.contains(&uri) {
                s.baseline_pending.insert(uri.clone());
                return None;
            }
            s.baseline_running.insert(uri.clone());
            Some(())
        });
        if start.is_none() {
            return;
        }
        let (client, state, analysed) = (self.client.clone(), self.state.clone(), self.analysed.clone());
        tokio::spawn(async move {
            let lock = || match state.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            let mut woken = analysed.subscribe();
            loop {
                // The open text's analysis is usually the baseline's too: wait for it.
                loop {
                    let current = lock().docs.get(&uri).map(Document::is_current);
                    match current {
                        Some(false) if woken.changed().await.is_ok() => {}
                        _ => break,
                    }
                }
                let started = catch_unwind(AssertUnwindSafe(|| {
                    let mut s = lock();
                    let s = &mut *s;
                    // A big document has no layout to compare: its baseline is not analysed.
                    let order = s.order_for(&uri);
                    let doc = s.docs.get(&uri).filter(|d| d.latest_len() <= LARGE_DOCUMENT_BYTES)?;
                    // Usually the baseline is the text just opened (a file unchanged since
                    // `HEAD`). An edit may have started an analysis since the wait above:
                    // then the snapshot is a placeholder and the baseline is analysed itself.
                    let open = (doc.order == order && doc.is_current()).then(|| doc.snap.clone());
                    let dialect = doc.dialect;
                    let n = s.baseline_loads.entry(uri.clone()).or_default();
                    *n += 1;
                    Some((dialect, order, open, *n, s.project.clone()))
                }))
                .ok()
                .flatten();
                let Some((dialect, order, open, n, project)) = started else {
                    let mut s = lock();
                    s.baseline_running.remove(&uri);
                    s.baseline_pending.remove(&uri);
                    return;
                };
                let path = path.clone();
                let loaded = tokio::task::spawn_blocking(move || {
                    catch_unwind(AssertUnwindSafe(|| {
                        let against = project.against_for(&path);
                        match wirelens_project::baseline::load(&path, &against) {
                            Ok(wirelens_project::baseline::Baseline::Found(source)) => {
                                // Then copying its model takes milliseconds, where analysing the
                                // same text again keeps a core busy for hundreds while the user types.
                                let analysis = match open.filter(|o| o.source.text == source.text) {
                                    Some(open) => open.analysis.model_copy(),
                                    None => wirelens_core::analyze(dialect, &source.text, None, order),
                                };
                                Ok(Some(Baseline::new(baseline_label(&project, &against), analysis)))
                            }
                            Ok(wirelens_project::baseline::Baseline::Missing(_)) => Ok(None),
                            Err(e) => Err(format!("wirelens: no wire baseline for {}: {e}", path.display())),
                        }
                    }))
                    .unwrap_or(Ok(None))
                })
                .await
                .unwrap_or(Ok(None));
                {
                    let mut s = lock();
                    if s.baseline_pending.remove(&uri) && s.docs.contains_key(&uri) {
                        continue; // asked again meanwhile: this result may be stale
                    }
                    s.baseline_running.remove(&uri);
                }
                let loaded = match loaded {
                    Ok(b) => b,
                    Err(message) => {
                        client.log_message(MessageType::WARNING, message).await;
                        None
                    }
                };
                let current = {
                    let mut s = lock();
                    if s.baseline_loads.get(&uri) != Some(&n) || !s.docs.contains_key(&uri) {
                        None // a newer load is under way, or the document was closed
                    } else {
                        // Nothing before and nothing now (no git, a new file): nothing to redo.
                        let changed = match loaded {
                            Some(b) => {
                                s.baselines.insert(uri.clone(), Arc::new(b));
                                true
                            }
                            None => s.baselines.remove(&uri).is_some(),
                        };
                        s.docs
                            .get(&uri)
                            .filter(|_| changed)
                            .map(|d| (d.latest_version(), s.lens_refresh))
                    }
                };
                if let Some((version, lens_refresh)) = current {
                    publish_diagnostics_later(client.clone(), state.clone(), analysed.clone(), uri, version);
                    if lens_refresh {
                        let _ = client.code_lens_refresh().await;
                    }
                }
                return;
            }
        });
    }

    /// Reloads the baselines of every open document (settings, `wirelens.toml` or the
    /// repository changed).
    fn reload_all_baselines(&self) {
        let uris = self
            .with_state("baseline", |s| Some(s.docs.keys().cloned().collect::<Vec<_>>()))
            .unwrap_or_default();
        for uri in uris {
            self.reload_baseline(uri);
        }
    }

    /// Runs a (short) request on the snapshot of `uri`, without the lock; a panic is
    /// caught and logged and the request answers as if there were nothing to show.
    async fn on_snapshot<T>(
        &self,
        what: &str,
        uri: &Uri,
        f: impl FnOnce(&Snapshot, ColumnUnit) -> Option<T>,
    ) -> Option<T> {
        let (snap, unit) = self.snapshot(uri).await?;
        match catch_unwind(AssertUnwindSafe(|| f(&snap, unit))) {
            Ok(v) => v,
            Err(_) => {
                eprintln!("wirelens lsp: internal error while handling {what}; the server continues");
                None
            }
        }
    }

    /// [`Backend::on_snapshot`] for a request over the whole document (symbols, folding,
    /// semantic tokens, lenses: tens of milliseconds to a second on a big schema), run on
    /// the blocking pool. tower-lsp-server polls every handler on one task, so such a
    /// request computed there would hold up every request and notification behind it: the
    /// inlay hints of the visible lines, a keystroke's `didChange`.
    async fn on_snapshot_blocking<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Uri,
        f: impl FnOnce(&Snapshot, ColumnUnit) -> Option<T> + Send + 'static,
    ) -> Option<T> {
        let (snap, unit) = self.snapshot(uri).await?;
        // Cancelled while it waited for the snapshot or a thread: not computed at all.
        blocking(what, move |cancelled| {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            f(&snap, unit)
        })
        .await
    }

    /// Whether the document at `uri` is over [`LARGE_DOCUMENT_BYTES`]: the per-keystroke
    /// features (inlay hints, semantic tokens, code lenses) then answer empty.
    async fn is_large(&self, uri: &Uri) -> bool {
        self.snapshot(uri)
            .await
            .is_some_and(|(snap, _)| documents::is_large(&snap))
    }

    /// Tells the user, once each time a document grows over the limit, that it gets
    /// syntax diagnostics only.
    async fn warn_large(&self, uri: &Uri, bytes: usize) {
        let name = uri.path().as_str().rsplit('/').next().unwrap_or_default().to_string();
        let message = format!(
            "wirelens: {name} is {:.1} MiB, over the {} MiB limit for full analysis: only syntax errors \
             are reported, and inlay hints, semantic tokens and code lenses are off until it is smaller.",
            bytes as f64 / (1024.0 * 1024.0),
            LARGE_DOCUMENT_BYTES / (1024 * 1024),
        );
        self.client.show_message(MessageType::WARNING, message).await;
    }

    /// Once the workspace-symbol index is built, tells the user which schema files it
    /// left out, if any.
    fn tell_left_out(&self, build: Option<tokio::task::JoinHandle<Option<String>>>) {
        let Some(build) = build else { return };
        let client = self.client.clone();
        tokio::spawn(async move {
            if let Ok(Some(left_out)) = build.await {
                client.show_message(MessageType::WARNING, left_out).await;
            }
        });
    }

    /// Asks the client to re-request inlay hints (only when the layout changed).
    fn refresh_hints(&self) {
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.inlay_hint_refresh().await;
        });
    }

    /// Publishes the diagnostics of `uri` once its version has been stable for
    /// [`DEBOUNCE`] (or the client's `diagnostics.delayMs`); always publishes, also an
    /// empty list.
    pub(super) fn schedule_diagnostics(&self, uri: Uri, version: i32) {
        publish_diagnostics_later(
            self.client.clone(),
            self.state.clone(),
            self.analysed.clone(),
            uri,
            version,
        );
    }
}

/// See [`Backend::schedule_diagnostics`].
fn publish_diagnostics_later(
    client: Client,
    state: Arc<Mutex<State>>,
    analysed: Arc<tokio::sync::watch::Sender<u64>>,
    uri: Uri,
    version: i32,
) {
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
        let mut woken = analysed.subscribe();
        let current = loop {
            let current = {
                let s = match state.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                match s.docs.get(&uri) {
                    Some(doc) if doc.latest_version() != version => None, // superseded by a newer edit
                    Some(doc) if !doc.is_current() => Some(None),         // its analysis is still running
                    Some(doc) => Some(Some((
                        doc.snap.clone(),
                        s.unit,
                        s.gen_errors.get(&uri).cloned(),
                        s.baselines.get(&uri).filter(|_| !documents::is_large(doc)).cloned(),
                    ))),
                    None => None, // closed
                }
            };
            match current {
                Some(None) => {
                    if woken.changed().await.is_err() {
                        return;
                    }
                }
                Some(found) => break found,
                None => return,
            }
        };
        let diags = current.and_then(|(snap, unit, gen_error, base)| {
            catch_unwind(AssertUnwindSafe(|| {
                let mut diags = convert::diagnostics(&uri, &snap, unit, gen_error.as_ref());
                if let Some(base) = &base {
                    let warnings = crate::ide::compat::warnings(&snap, base);
                    diags.extend(convert::wire_warnings(&uri, &snap.source, &warnings, unit));
                }
                diags
            }))
            .ok()
        });
        if let Some(diags) = diags {
            client.publish_diagnostics(uri, diags, Some(version)).await;
        }
    });
}

/// See [`Backend::analyse_later`]: runs the document's pending analyses one after the
/// other on the blocking pool, installs each, wakes the requests waiting for it and asks
/// the client to refresh inlay hints when a layout changed.
async fn analyse(client: Client, state: Arc<Mutex<State>>, analysed: Arc<tokio::sync::watch::Sender<u64>>, uri: Uri) {
    let lock = || match state.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    loop {
        let Some(job) = lock().docs.get_mut(&uri).and_then(Document::start) else {
            return; // nothing pending, or an analysis of it is running
        };
        let Ok(done) = tokio::task::spawn_blocking(move || job.run()).await else {
            return; // the runtime is shutting down
        };
        let (layout_changed, more, refresh) = {
            let mut s = lock();
            let refresh = s.inlay_refresh;
            match s.docs.get_mut(&uri).and_then(|doc| doc.finish(done)) {
                Some((changed, more)) => (changed, more, refresh),
                None => return, // closed meanwhile (and maybe opened again: its own task runs)
            }
        };
        analysed.send_modify(|n| *n = n.wrapping_add(1));
        if layout_changed && refresh {
            let _ = client.inlay_hint_refresh().await;
        }
        if !more {
            return;
        }
    }
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
        let lens_refresh = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
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
        let markup = convert::preferred_markup(
            params
                .capabilities
                .text_document
                .as_ref()
                .and_then(|t| t.hover.as_ref())
                .and_then(|h| h.content_format.as_ref()),
        );
        self.index.configure(roots.clone(), unit);
        self.with_state("initialize", |s| {
            s.unit = unit;
            s.markup = markup;
            s.inlay_refresh = refresh;
            s.lens_refresh = lens_refresh;
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
                // Folders added or removed later arrive as `didChangeWorkspaceFolders`.
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![SHOW_LAYOUT.into(), GENERATE.into(), GENERATE_WORKSPACE.into()],
                    work_done_progress_options: Default::default(),
                }),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend: SemanticTokensLegend {
                            token_types: convert::TOKEN_TYPES.to_vec(),
                            token_modifiers: convert::TOKEN_MODIFIERS.to_vec(),
                        },
                        full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                        range: Some(true),
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
        // The workspace-symbol index is built in the background.
        self.tell_left_out(self.index.start_build());
        if self.with_state("initialized", |s| Some(s.watch_files)).unwrap_or(false) {
            // `.git/HEAD` and branch refs move on commit and checkout: the baseline changes.
            let watchers = [
                "**/wirelens.toml",
                "**/*.sdp",
                "**/*.ffi",
                "**/.git/HEAD",
                "**/.git/refs/heads/**",
            ]
            .into_iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.into()),
                kind: None,
            })
            .collect();
            let options = DidChangeWatchedFilesRegistrationOptions { watchers };
            let registration = Registration {
                id: "wirelens-toml".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            };
            let _ = self.client.register_capability(vec![registration]).await;
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let mut toml_changed = false;
        let mut git_changed = false;
        let mut reload = Vec::new();
        for change in &params.changes {
            let path = change.uri.path().as_str();
            if path.ends_with("wirelens.toml") {
                toml_changed = true;
            } else if path.contains("/.git/") {
                git_changed = true;
            } else {
                reload.push(change.uri.clone());
                // Numbered here, in arrival order: a change still being read when its
                // file's deletion arrives is dropped.
                self.index
                    .file_changed(&change.uri, change.typ == FileChangeType::DELETED);
            }
        }
        if toml_changed || git_changed {
            self.reload_all_baselines();
        } else {
            // A `file:` baseline may be the file that changed; reloading is cheap.
            let open: Vec<Uri> = self
                .with_state("didChangeWatchedFiles", |s| {
                    Some(reload.into_iter().filter(|u| s.docs.contains_key(u)).collect())
                })
                .unwrap_or_default();
            for uri in open {
                self.reload_baseline(uri);
            }
        }
        if !toml_changed {
            return;
        }
        // A wirelens.toml changed: forget cached settings and re-check every open file
        // whose settings it changed (a storm of events that change nothing costs no
        // analysis and no publication).
        let updated = self.with_state("didChangeWatchedFiles", |s| {
            s.project.forget_configs();
            let uris: Vec<Uri> = s.docs.keys().cloned().collect();
            let mut out = Vec::new();
            for uri in uris {
                let order = s.order_for(&uri);
                if let Some(doc) = s.docs.get_mut(&uri).filter(|d| d.order != order) {
                    doc.reanalyze(order);
                    out.push((uri, doc.latest_version()));
                }
            }
            Some(out)
        });
        // The analyses refresh the hints when layouts change.
        for (uri, version) in updated.unwrap_or_default() {
            self.analyse_later(uri.clone());
            self.schedule_diagnostics(uri, version);
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
            let doc = Document::open(dialect, version, params.text_document.text, order);
            let large = (doc.latest_len() > LARGE_DOCUMENT_BYTES).then(|| doc.latest_len());
            s.docs.insert(uri.clone(), doc);
            Some(large)
        });
        if let Some(large) = opened {
            self.analyse_later(uri.clone());
            self.schedule_diagnostics(uri.clone(), version);
            self.reload_baseline(uri.clone());
            if let Some(bytes) = large {
                self.warn_large(&uri, bytes).await;
            }
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before the first await: see `documents` on ordering.
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let changed = self.with_state("didChange", |s| {
            let unit = s.unit;
            let order = s.order_for(&uri);
            let doc = s.docs.get_mut(&uri)?;
            let was_large = doc.latest_len() > LARGE_DOCUMENT_BYTES;
            if !doc.change(version, &params.content_changes, unit) {
                return None;
            }
            if doc.order != order {
                doc.reanalyze(order);
            }
            let grew_large = (!was_large && doc.latest_len() > LARGE_DOCUMENT_BYTES).then(|| doc.latest_len());
            Some(grew_large)
        });
        if let Some(grew_large) = changed {
            // The analysis runs off the lock and the message loop; it refreshes the
            // hints when the layout changed.
            self.analyse_later(uri.clone());
            self.schedule_diagnostics(uri.clone(), version);
            if let Some(bytes) = grew_large {
                self.warn_large(&uri, bytes).await;
            }
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.reload_baseline(params.text_document.uri.clone());
        self.generate_on_save(params.text_document.uri).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.with_state("didClose", |s| {
            s.gen_errors.remove(&uri);
            s.baselines.remove(&uri);
            s.baseline_loads.remove(&uri);
            s.tokens.forget(&uri);
            s.docs.remove(&uri).map(|_| ())
        });
        // Clear what was shown for the closed file.
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let Some((snap, base, unit)) = self.snapshot_with_baseline(&p.text_document.uri).await else {
            return Ok(None);
        };
        let (markup, numbers) = self
            .with_state("hover", |s| {
                Some((s.markup.clone(), s.client.number_format.unwrap_or_default()))
            })
            .unwrap_or((MarkupKind::Markdown, Default::default()));
        Ok(caught("hover", || {
            handlers::hover(&snap, base.as_deref(), unit, (&markup, numbers), &p)
        }))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if self.with_state("inlayHint", |s| s.client.inlay_hints) == Some(false)
            || self.is_large(&params.text_document.uri).await
        {
            return Ok(Some(Vec::new()));
        }
        Ok(self
            .on_snapshot("inlayHint", &params.text_document.uri, |snap, unit| {
                Some(handlers::inlay_hints(snap, unit, params.range))
            })
            .await)
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        if self.is_large(&uri).await {
            return Ok(Some(Vec::new()));
        }
        let generatable = self
            .with_state("codeLens", |s| Some(s.can_generate(&uri)))
            .unwrap_or(false);
        let Some((snap, base, unit)) = self.snapshot_with_baseline(&uri).await else {
            return Ok(None);
        };
        // On the blocking pool, as `on_snapshot_blocking`: lenses cover the whole document.
        Ok(blocking("codeLens", move |cancelled| {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            Some(handlers::code_lenses(&snap, base.as_deref(), unit, &uri, generatable))
        })
        .await)
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        Ok(self
            .on_snapshot("definition", &p.text_document.uri, |snap, unit| {
                handlers::definition(snap, unit, &p)
            })
            .await)
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let uri = params.text_document_position.text_document.uri.clone();
        Ok(self
            .on_snapshot("references", &uri, |snap, unit| {
                handlers::references(snap, unit, &params)
            })
            .await)
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        Ok(self
            .on_snapshot_blocking("documentSymbol", &params.text_document.uri, |snap, unit| {
                Some(handlers::document_symbols(snap, unit))
            })
            .await)
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        Ok(self
            .on_snapshot_blocking("foldingRange", &params.text_document.uri, |snap, unit| {
                Some(handlers::folding_ranges(snap, unit))
            })
            .await)
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        // Formatting a large file takes a while: off the message loop, cancellable.
        let Some((snap, unit)) = self.snapshot(&params.text_document.uri).await else {
            return Ok(None);
        };
        Ok(blocking("formatting", move |_| handlers::formatting(&snap, unit)).await)
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
        let svg = params
            .arguments
            .get(2)
            .and_then(|o| o.get("svg"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let numbers = self
            .with_state("executeCommand", |s| s.client.number_format)
            .unwrap_or_default();
        Ok(self
            .on_snapshot("executeCommand", &uri, |snap, _| {
                handlers::show_layout(snap, name, numbers, svg)
            })
            .await)
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let path = |f: &WorkspaceFolder| f.uri.to_file_path().map(|p| p.into_owned());
        let removed: Vec<std::path::PathBuf> = params.event.removed.iter().filter_map(path).collect();
        let added: Vec<std::path::PathBuf> = params.event.added.iter().filter_map(path).collect();
        // Applied before the first await, as edits: a generation requested after this
        // notification sees the new folders (generation may only write inside them).
        let roots = self.with_state("didChangeWorkspaceFolders", |s| {
            s.roots.retain(|r| !removed.contains(r));
            for a in added {
                if !s.roots.contains(&a) {
                    s.roots.push(a);
                }
            }
            s.rebuild_project();
            Some(s.roots.clone())
        });
        let Some(roots) = roots else { return };
        // Baselines may be named relative to a folder (`file:`).
        self.reload_all_baselines();
        self.tell_left_out(Some(self.index.set_roots(roots)));
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
                    .filter_map(|u| s.docs.get(&u).map(|d| (u.clone(), d.latest_version())))
                    .collect::<Vec<_>>(),
            )
        });
        for (uri, version) in updated.unwrap_or_default() {
            self.analyse_later(uri.clone());
            self.schedule_diagnostics(uri, version);
        }
        self.reload_all_baselines();
        if refresh {
            self.refresh_hints();
        }
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        Ok(self
            .on_snapshot("completion", &p.text_document.uri, |snap, unit| {
                Some(handlers::completion(snap, unit, &p))
            })
            .await)
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        Ok(self
            .on_snapshot("prepareRename", &params.text_document.uri, |snap, unit| {
                handlers::prepare_rename(snap, unit, &params)
            })
            .await)
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let uri = params.text_document_position.text_document.uri.clone();
        match self
            .on_snapshot("rename", &uri, |snap, unit| handlers::rename(snap, unit, &params))
            .await
        {
            None => Ok(None),
            Some(Ok(edit)) => Ok(Some(edit)),
            Some(Err(why)) => Err(tower_lsp_server::jsonrpc::Error::invalid_params(why)),
        }
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        let uri = params.text_document.uri;
        if self.is_large(&uri).await {
            // `null`: the client keeps plain (grammar-based) highlighting.
            return Ok(None);
        }
        let Some(cache) = self.with_state("semanticTokens", |s| Some(s.tokens.cache(&uri))) else {
            return Ok(None);
        };
        let Some(tokens) = self
            .on_snapshot_blocking("semanticTokens", &uri, move |snap, unit| {
                Some(handlers::semantic_tokens(snap, unit, &cache))
            })
            .await
        else {
            return Ok(None);
        };
        let tokens = Arc::new(tokens);
        let result_id = self.with_state("semanticTokens", |s| Some(s.tokens.remember(&uri, Arc::clone(&tokens))));
        Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
            result_id,
            data: Arc::unwrap_or_clone(tokens),
        })))
    }

    /// The edit from the tokens last sent (`previousResultId`) to the current ones; the
    /// full tokens when that set is not the last one sent for the document.
    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = params.text_document.uri;
        if self.is_large(&uri).await {
            return Ok(None);
        }
        let Some((sent, cache)) = self.with_state("semanticTokens/delta", |s| {
            Some((s.tokens.sent(&uri, &params.previous_result_id), s.tokens.cache(&uri)))
        }) else {
            return Ok(None);
        };
        let Some((tokens, edits)) = self
            .on_snapshot_blocking("semanticTokens/delta", &uri, move |snap, unit| {
                let tokens = handlers::semantic_tokens(snap, unit, &cache);
                let edits = sent.map(|old| semantic_tokens::edits(&old, &tokens));
                Some((tokens, edits))
            })
            .await
        else {
            return Ok(None);
        };
        let tokens = Arc::new(tokens);
        let result_id = self.with_state("semanticTokens/delta", |s| {
            Some(s.tokens.remember(&uri, Arc::clone(&tokens)))
        });
        Ok(Some(match edits {
            Some(edits) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id, edits }),
            None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens {
                result_id,
                data: Arc::unwrap_or_clone(tokens),
            }),
        }))
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        if self.is_large(&params.text_document.uri).await {
            return Ok(None);
        }
        Ok(self
            .on_snapshot("semanticTokens/range", &params.text_document.uri, |snap, unit| {
                Some(handlers::semantic_tokens_range(snap, unit, params.range))
            })
            .await)
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = &params.text_document.uri;
        let generatable = self
            .with_state("codeAction", |s| Some(s.can_generate(uri)))
            .unwrap_or(false);
        let Some((snap, base, unit)) = self.snapshot_with_baseline(uri).await else {
            return Ok(None);
        };
        Ok(caught("codeAction", || {
            Some(handlers::code_actions(
                &snap,
                base.as_deref(),
                unit,
                &params,
                generatable,
            ))
        }))
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let query = params.query.to_lowercase();
        // Open documents from their analyses (a few: ~1 ms for 5,000 types), each once it
        // is current (while an analysis runs, the document holds a placeholder).
        let Some(open) = self.with_state("workspace/symbol", |s| {
            Some(s.docs.keys().cloned().collect::<Vec<Uri>>())
        }) else {
            return Ok(None);
        };
        let mut found = Vec::new();
        for uri in &open {
            if let Some((snap, unit)) = self.snapshot(uri).await {
                found.extend(handlers::workspace_symbols(uri, &snap, unit, &query));
            }
        }
        let index = self.index.clone();
        // The rest from the cached index (built in the background, kept fresh by file
        // events); off the message loop and off the document store's lock, and given up
        // when the client cancels.
        let found = blocking("workspace/symbol", move |cancelled| {
            let skip: std::collections::HashSet<&Uri> = open.iter().collect();
            index.query(&query, &skip, cancelled, &mut found)?;
            Some(found)
        })
        .await;
        Ok(found.map(WorkspaceSymbolResponse::Flat))
    }
}

impl Backend {
    /// `wirelens/inspect` (see [`super::inspect`]): decodes the given bytes against the
    /// open document's current text, on the blocking pool.
    pub async fn inspect(&self, params: serde_json::Value) -> Result<serde_json::Value> {
        let p: super::inspect::InspectParams = serde_json::from_value(params)
            .map_err(|e| tower_lsp_server::jsonrpc::Error::invalid_params(format!("wirelens/inspect: {e}")))?;
        let uri = p
            .uri
            .parse::<Uri>()
            .map_err(|_| tower_lsp_server::jsonrpc::Error::invalid_params("wirelens/inspect: bad uri"))?;
        let Some((snap, unit)) = self.snapshot(&uri).await else {
            return Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                "wirelens/inspect: {} is not an open schema document",
                uri.as_str()
            )));
        };
        let answer = blocking("wirelens/inspect", move |_| {
            Some(super::inspect::read_input(&p).and_then(|bytes| super::inspect::inspect(&snap, unit, &p, &bytes)))
        })
        .await;
        match answer {
            Some(Ok(v)) => Ok(v),
            Some(Err(message)) => Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                "wirelens/inspect: {message}"
            ))),
            None => Err(internal_error("wirelens/inspect: internal error".into())),
        }
    }
}

/// `HEAD`, or a `file:` baseline relative to its workspace folder (lens titles stay short).
fn baseline_label(
    project: &wirelens_project::project::Project,
    against: &wirelens_project::baseline::Against,
) -> String {
    if let wirelens_project::baseline::Against::File(path) = against {
        if let Some(rel) = project.roots().iter().find_map(|r| path.strip_prefix(r).ok()) {
            return format!("file:{}", rel.display());
        }
    }
    against.label()
}

/// Runs `f`, catching a panic: logged, and the request answers as if there were nothing
/// to show.
fn caught<T>(what: &str, f: impl FnOnce() -> Option<T>) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            eprintln!("wirelens lsp: internal error while handling {what}; the server continues");
            None
        }
    }
}

/// Runs `f` on the blocking pool. `f` gets a flag that turns true when the request's
/// future is dropped (tower-lsp-server drops it on `$/cancelRequest` and answers
/// `RequestCancelled`), so long work can stop early. A panic is logged; the server
/// continues.
pub(super) async fn blocking<T: Send + 'static>(
    what: &'static str,
    f: impl FnOnce(&AtomicBool) -> Option<T> + Send + 'static,
) -> Option<T> {
    struct CancelOnDrop(Arc<AtomicBool>);
    impl Drop for CancelOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let flag = Arc::new(AtomicBool::new(false));
    let guard = CancelOnDrop(flag.clone());
    let result = tokio::task::spawn_blocking(move || catch_unwind(AssertUnwindSafe(|| f(&flag))).ok().flatten()).await;
    drop(guard);
    match result {
        Ok(v) => v,
        Err(_) => {
            eprintln!("wirelens lsp: internal error while handling {what}; the server continues");
            None
        }
    }
}
