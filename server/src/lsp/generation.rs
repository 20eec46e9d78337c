//! Code generation from the editor: `wirelens.generate`, `wirelens.generateWorkspace`,
//! generation on save, the generate lenses and actions. Settings, loading, collision
//! checks and writing are the project service's (`wirelens_project::project`), as for the CLI;
//! it runs off the state lock and off the async runtime (on the blocking pool).
//!
//! Cancellation: when the client cancels `wirelens.generate(Workspace)`, tower-lsp-server
//! drops the request's future and answers `RequestCancelled`; dropping it raises the
//! flag the generation checks before each schema and each language, so it stops
//! without writing anything. Writing itself is never interrupted: an output set is
//! written whole (`write_prepared`) or not at all.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use wirelens_project::project::{
    write_prepared, FileError, Flags, Project, Ticket, Written, CANCELLED, MAX_WALK_FILES,
};

use super::backend::{blocking, internal_error, Backend, State};

impl State {
    /// A new project service for the current workspace folders and client settings
    /// (its `wirelens.toml` cache starts empty).
    pub(super) fn rebuild_project(&mut self) {
        self.project = Arc::new(Project::workspace(self.roots.clone(), self.client.project.clone()));
    }

    /// Whether `uri` can be generated at all: a file on disk inside a workspace folder.
    /// Lenses and code actions to generate are offered only then.
    /// Decided from the URI and the workspace folders alone: no disk access under the lock.
    pub(super) fn can_generate(&self, uri: &Uri) -> bool {
        schema_path(uri).is_ok_and(|p| self.project.may_generate(&p))
    }

    /// What generation reads from the state: the project service and the unsaved text of
    /// every open schema (so a schema gives the same bytes open or closed).
    /// The ticket is taken with the texts: of concurrent generations, the one that saw
    /// the newest texts wins.
    fn generation_inputs(&self) -> (Arc<Project>, Ticket, HashMap<PathBuf, String>) {
        let texts = self
            .docs
            .iter()
            .filter_map(|(uri, doc)| Some((uri.to_file_path()?.into_owned(), doc.latest_text().to_owned())))
            .collect();
        (self.project.clone(), Ticket::now(), texts)
    }
}

/// The file behind `uri`, or why code cannot be generated for it.
fn schema_path(uri: &Uri) -> std::result::Result<PathBuf, String> {
    match uri.to_file_path() {
        Some(p) if uri.as_str().get(..5).is_some_and(|s| s.eq_ignore_ascii_case("file:")) => Ok(p.into_owned()),
        _ => Err(format!(
            "{}: not a file on disk; save it inside a workspace folder to generate code",
            uri.as_str()
        )),
    }
}

/// One message for the problems of a generation: a schema with errors is summed up by
/// its first error, anything else is listed.
fn describe(errors: &[FileError]) -> String {
    let schema: Vec<&FileError> = errors.iter().filter(|e| e.code == "schema").collect();
    if let Some(first) = schema.first() {
        let (line, col) = first.line_col.unwrap_or((1, 1));
        return format!(
            "{} has {} error(s); fix them first (the first, at {line}:{col}: {})",
            wirelens_project::generate::file_name(&first.path),
            schema.len(),
            first.message
        );
    }
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// A generation that could not be done, answered as LSP's `RequestFailed` (-32803:
/// the request was valid, the operation failed) with one line a client can show as
/// is, instead of a raw internal error (-32603).
pub(super) fn generation_failed(message: String) -> tower_lsp_server::jsonrpc::Error {
    let first = message.lines().next().unwrap_or_default().trim();
    tower_lsp_server::jsonrpc::Error {
        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
        message: format!("wirelens: code generation failed: {first}").into(),
        data: None,
    }
}

type Generated = std::result::Result<(Vec<Written>, usize), Vec<FileError>>;

/// Prepares and writes `schemas` through the project service (off the async runtime:
/// it reads and writes files): `{outDir, written, unchanged}`. Stops before writing
/// anything once `cancelled` is raised (an error of code [`CANCELLED`]).
fn run_generation(
    (project, ticket, texts): &(Arc<Project>, Ticket, HashMap<PathBuf, String>),
    schemas: &[PathBuf],
    flags: &Flags,
    cancelled: &AtomicBool,
) -> Generated {
    let is_cancelled = || cancelled.load(Ordering::Relaxed);
    let prepared = project.prepare_cancellable(*ticket, schemas, flags, texts, &is_cancelled)?;
    if is_cancelled() {
        return Err(vec![FileError::new("", CANCELLED, "generation cancelled")]);
    }
    let written = write_prepared(&prepared).map_err(|e| vec![e])?;
    Ok((written, schemas.len()))
}

fn written_json(written: &[Written]) -> LSPAny {
    let paths = |f: fn(&Written) -> &Vec<PathBuf>| -> Vec<String> {
        written
            .iter()
            .flat_map(|w| f(w).iter().map(|p| p.display().to_string()))
            .collect()
    };
    serde_json::json!({
        "outDir": written.first().map(|w| w.out_dir.display().to_string()),
        "written": paths(|w| &w.report.written),
        "unchanged": paths(|w| &w.report.unchanged),
        "superseded": written.iter().any(|w| w.superseded),
    })
}

type Progress = tower_lsp_server::OngoingProgress<tower_lsp_server::Bounded, tower_lsp_server::NotCancellable>;

/// A progress report that ends when dropped, also when the request is cancelled (its
/// future dropped mid-way): the client's progress bar never stays open.
struct ProgressGuard(Option<Progress>);

impl ProgressGuard {
    async fn finish(mut self, message: String) {
        if let Some(p) = self.0.take() {
            p.finish_with_message(message).await;
        }
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(p.finish_with_message("cancelled".to_string()));
            }
        }
    }
}

/// Whether a generation stopped because it was cancelled.
fn was_cancelled(errors: &[FileError]) -> bool {
    errors.iter().any(|e| e.code == CANCELLED)
}

impl Backend {
    /// A progress reporter on the client's token, or on one we create if the client
    /// shows server-initiated progress; `None` if neither.
    async fn progress(&self, token: Option<ProgressToken>, title: &str) -> ProgressGuard {
        let token = match token {
            Some(t) => t,
            None => {
                if !self.with_state("progress", |s| Some(s.progress)).unwrap_or(false) {
                    return ProgressGuard(None);
                }
                static NEXT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);
                let t = ProgressToken::String(format!(
                    "wirelens-generate-{}",
                    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                ));
                // A client that never answers must not stall generation.
                let created =
                    tokio::time::timeout(Duration::from_secs(2), self.client.create_work_done_progress(t.clone()));
                if !matches!(created.await, Ok(Ok(()))) {
                    return ProgressGuard(None);
                }
                t
            }
        };
        ProgressGuard(Some(
            self.client.progress(token, title).with_percentage(0).begin().await,
        ))
    }

    /// Generates one schema and writes its files; a failure is also shown as a
    /// diagnostic on the schema until a later generation succeeds.
    pub(super) async fn generate_one(&self, uri: Uri, request: Flags, token: Option<ProgressToken>) -> Result<LSPAny> {
        let progress = self.progress(token, "wirelens: generating").await;
        let result = self.generate_quietly(&uri, &request).await;
        let message = match &result {
            Ok(v) => format!("{} file(s) written", v["written"].as_array().map_or(0, Vec::len)),
            Err(e) => format!("failed: {e}"),
        };
        progress.finish(message).await;
        result.map_err(generation_failed)
    }

    pub(super) async fn generate_quietly(&self, uri: &Uri, request: &Flags) -> std::result::Result<LSPAny, String> {
        let result = match schema_path(uri) {
            Err(e) => Err(e),
            Ok(path) => {
                let inputs = self.with_state("generate", |s| Some(s.generation_inputs()));
                let Some(inputs) = inputs else {
                    return Err("internal error while generating".into());
                };
                let flags = request.clone();
                let generated = blocking("generate", move |cancelled| {
                    Some(run_generation(&inputs, &[path], &flags, cancelled))
                })
                .await;
                match generated {
                    // Cancelled: the request's future is gone by now; show nothing.
                    Some(Err(errors)) if was_cancelled(&errors) => return Err("cancelled".into()),
                    Some(g) => g
                        .map(|(written, _)| written_json(&written))
                        .map_err(|errors| describe(&errors)),
                    None => Err("internal error while generating".into()),
                }
            }
        };
        self.record_generation(uri, result.as_ref().err());
        result
    }

    /// Generation on save, if the schema's settings ask for it.
    pub(super) async fn generate_on_save(&self, uri: Uri) {
        let Ok(path) = schema_path(&uri) else { return };
        let project = self.with_state("didSave", |s| {
            s.docs.get(&uri)?;
            Some(s.project.clone())
        });
        let Some(project) = project else { return };
        let settings = tokio::task::spawn_blocking(move || project.settings(&path, &Flags::default()))
            .await
            .unwrap_or_else(|e| Err(FileError::new("", "internal", e.to_string())));
        match settings {
            Ok(s) if s.on_save => {
                if let Err(e) = self.generate_one(uri, Flags::default(), None).await {
                    self.client
                        .log_message(
                            MessageType::WARNING,
                            format!("wirelens: generation on save failed: {}", e.message),
                        )
                        .await;
                }
            }
            Ok(_) => {}
            // Outside every workspace folder nothing is generated on save, silently.
            Err(e) if e.code == "not-in-workspace" => {}
            Err(e) => self.record_generation(&uri, Some(&e.to_string())),
        }
    }

    /// Remembers (or forgets) a generation failure and republishes the diagnostics if
    /// that changed what the schema shows.
    pub(super) fn record_generation(&self, uri: &Uri, error: Option<&String>) {
        let changed = self.with_state("generate", |s| {
            let before = s.gen_errors.get(uri).cloned();
            match error {
                Some(e) => s.gen_errors.insert(uri.clone(), e.clone()),
                None => s.gen_errors.remove(uri),
            };
            let version = s.docs.get(uri)?.latest_version();
            (before.as_ref() != error).then_some(version)
        });
        if let Some(version) = changed {
            self.schedule_diagnostics(uri.clone(), version);
        }
    }

    /// Every schema under the workspace folders, as one generation: outputs that
    /// collide in a shared output folder are refused, and nothing is written if any
    /// schema fails (as `wirelens gen`).
    pub(super) async fn generate_workspace(&self, request: Flags, token: Option<ProgressToken>) -> Result<LSPAny> {
        let inputs = self.with_state("generate", |s| Some((s.roots.clone(), s.generation_inputs())));
        let Some((roots, inputs)) = inputs else {
            return Err(internal_error("internal error while generating".into()));
        };
        let progress = self.progress(token, "wirelens: generating the workspace").await;
        let result = blocking("generateWorkspace", move |cancelled| {
            // Every schema of the workspace, as `wirelens gen` on its folders: up to the
            // same bound, and beyond it none at all (saying so), never some of them.
            let found = wirelens_project::project::workspace_schemas(&roots, MAX_WALK_FILES);
            if let Some(first) = &found.first_left_out {
                let message = format!(
                    "the workspace holds {}{} schema files, over the limit of {MAX_WALK_FILES} for one generation \
                     ({}{} from {} on are beyond it): nothing was generated; generate narrower folders with `wirelens gen`",
                    if found.more { "more than " } else { "" },
                    found.files.len() + found.left_out,
                    if found.more { "at least " } else { "" },
                    found.left_out,
                    first.display()
                );
                return Some((found, Err(vec![FileError::new("", "too-many-files", message)])));
            }
            let result = run_generation(&inputs, &found.files, &request, cancelled);
            Some((found, result))
        })
        .await;
        let (found, result) = result.ok_or_else(|| internal_error("internal error while generating".into()))?;
        let files = &found.files;
        if found.first_left_out.is_some() {
            if let Err(errors) = &result {
                let message = errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ");
                self.client
                    .show_message(MessageType::ERROR, format!("wirelens: {message}"))
                    .await;
            }
        }
        if matches!(&result, Err(errors) if was_cancelled(errors)) {
            return Err(tower_lsp_server::jsonrpc::Error::request_cancelled());
        }
        let (written, failures) = match result {
            Ok((written, _)) => (
                written.iter().map(|w| w.report.written.len()).sum::<usize>(),
                Vec::new(),
            ),
            Err(errors) => (0, errors),
        };
        let failures: Vec<String> = failures.iter().map(ToString::to_string).collect();
        let summary = if failures.is_empty() {
            format!("{} schema(s), {written} file(s) written", files.len())
        } else {
            format!(
                "{} schema(s), nothing written: {} problem(s), the first: {}",
                files.len(),
                failures.len(),
                failures[0]
            )
        };
        progress.finish(summary.clone()).await;
        Ok(serde_json::json!({
            "schemas": files.len(),
            "written": written,
            "failures": failures,
            "summary": summary,
            "leftOut": found.left_out,
            "firstLeftOut": found.first_left_out.as_ref().map(|p| p.display().to_string()),
        }))
    }
}
