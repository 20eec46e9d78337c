//! Code generation from the editor: `wirelens.generate`, `wirelens.generateWorkspace`,
//! the generate lenses and actions.

use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::backend::{internal_error, workspace_schemas, Backend, State, GENERATE};
use super::settings::{self, GenRequest};

impl State {
    /// Everything generation needs, computed under the lock: the output directory and
    /// the files in memory. Open documents are generated from their current text.
    pub(super) fn prepare_generation(&self, uri: &Uri, request: &GenRequest) -> std::result::Result<Prepared, String> {
        let path = uri
            .to_file_path()
            .ok_or_else(|| format!("{}: not a file on disk", uri.as_str()))?
            .into_owned();
        let plan = settings::plan(&path, &self.roots, &self.client, request)?;
        let name = codegen::generate::file_name(&path);
        let loaded;
        let (source, analysis) = match self.docs.get(uri) {
            Some(doc) => (&doc.source, &doc.analysis),
            None => {
                loaded = codegen::project::load(&path, self.client.order).map_err(|e| e.to_string())?;
                (&loaded.source, &loaded.analysis)
            }
        };
        let errors = codegen::generate::schema_errors(source, analysis);
        if let Some(first) = errors.first() {
            let (line, col) = first.line_col.unwrap_or((1, 1));
            return Err(format!(
                "{name} has {} error(s); fix them first (the first, at {line}:{col}: {})",
                errors.len(),
                first.message
            ));
        }
        let files = codegen::generate::generate_files(analysis, &name, &plan.langs).map_err(|e| e.0)?;
        Ok(Prepared {
            out_dir: plan.out_dir,
            files,
        })
    }
}

pub(super) struct Prepared {
    out_dir: std::path::PathBuf,
    files: Vec<codegen::emit::OutputFile>,
}

/// `[{uri, languages?, outDir?}]` or `[uri, languages?]`.
pub(super) fn generate_arguments(args: &[LSPAny]) -> Result<(Uri, GenRequest)> {
    let bad = || tower_lsp_server::jsonrpc::Error::invalid_params("expected [{uri, languages?, outDir?}]");
    let first = args.first().ok_or_else(bad)?;
    let (uri, request) = match first {
        serde_json::Value::String(uri) => (
            uri.as_str(),
            GenRequest {
                languages: args.get(1).and_then(settings::languages),
                out_dir: None,
            },
        ),
        obj => (
            obj.get("uri").and_then(|u| u.as_str()).ok_or_else(bad)?,
            generate_request(obj),
        ),
    };
    Ok((uri.parse::<Uri>().map_err(|_| bad())?, request))
}

pub(super) fn generate_request(v: &LSPAny) -> GenRequest {
    GenRequest {
        languages: v.get("languages").and_then(settings::languages),
        out_dir: v
            .get("outDir")
            .and_then(|d| d.as_str())
            .filter(|d| !d.trim().is_empty())
            .map(|d| d.trim().to_string()),
    }
}

/// What a code action or lens runs to generate `langs` for `uri`.
pub(super) fn generate_command(title: &str, uri: &Uri, langs: &[codegen::emit::Lang]) -> Command {
    let langs: Vec<&str> = langs.iter().map(|l| l.as_str()).collect();
    Command {
        title: title.into(),
        command: GENERATE.into(),
        arguments: Some(vec![serde_json::json!({"uri": uri.as_str(), "languages": langs})]),
    }
}

pub(super) fn lang_label(lang: codegen::emit::Lang) -> &'static str {
    match lang {
        codegen::emit::Lang::C => "C",
        codegen::emit::Lang::Cpp => "C++",
        codegen::emit::Lang::Rust => "Rust",
    }
}

impl Backend {
    /// A progress reporter on the client's token, or on one we create if the client
    /// shows server-initiated progress; `None` if neither.
    async fn progress(
        &self,
        token: Option<ProgressToken>,
        title: &str,
    ) -> Option<tower_lsp_server::OngoingProgress<tower_lsp_server::Bounded, tower_lsp_server::NotCancellable>> {
        let token = match token {
            Some(t) => t,
            None => {
                if !self.with_state("progress", |s| Some(s.progress)).unwrap_or(false) {
                    return None;
                }
                static NEXT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);
                let t = ProgressToken::String(format!(
                    "wirelens-generate-{}",
                    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                ));
                // A client that never answers must not stall generation.
                let created =
                    tokio::time::timeout(Duration::from_secs(2), self.client.create_work_done_progress(t.clone()));
                created.await.ok()?.ok()?;
                t
            }
        };
        Some(self.client.progress(token, title).with_percentage(0).begin().await)
    }

    /// Generates one schema and writes its files; a failure is also shown as a
    /// diagnostic on the schema until a later generation succeeds.
    pub(super) async fn generate_one(
        &self,
        uri: Uri,
        request: GenRequest,
        token: Option<ProgressToken>,
    ) -> Result<LSPAny> {
        let progress = self.progress(token, "wirelens: generating").await;
        let result = self.generate_quietly(&uri, &request).await;
        if let Some(p) = progress {
            match &result {
                Ok(v) => {
                    let n = v["written"].as_array().map_or(0, Vec::len);
                    p.finish_with_message(format!("{n} file(s) written")).await
                }
                Err(e) => p.finish_with_message(format!("failed: {e}")).await,
            }
        }
        result.map_err(internal_error)
    }

    pub(super) async fn generate_quietly(
        &self,
        uri: &Uri,
        request: &GenRequest,
    ) -> std::result::Result<LSPAny, String> {
        let prepared = self
            .with_state("generate", |s| Some(s.prepare_generation(uri, request)))
            .unwrap_or_else(|| Err("internal error while generating".into()));
        let result = match prepared {
            Ok(Prepared { out_dir, files }) => tokio::task::spawn_blocking(move || {
                let report = codegen::generate::write_files(&out_dir, &files).map_err(|e| e.to_string())?;
                let paths =
                    |v: &[std::path::PathBuf]| -> Vec<String> { v.iter().map(|p| p.display().to_string()).collect() };
                Ok(serde_json::json!({
                    "outDir": out_dir.display().to_string(),
                    "written": paths(&report.written),
                    "unchanged": paths(&report.unchanged),
                }))
            })
            .await
            .unwrap_or_else(|e| Err(format!("internal error while writing: {e}"))),
            Err(e) => Err(e),
        };
        self.record_generation(uri, result.as_ref().err());
        result
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
            let version = s.docs.get(uri)?.version;
            (before.as_ref() != error).then_some(version)
        });
        if let Some(version) = changed {
            self.schedule_diagnostics(uri.clone(), version);
        }
    }

    /// Every schema under the workspace folders, with progress per file.
    pub(super) async fn generate_workspace(&self, request: GenRequest, token: Option<ProgressToken>) -> Result<LSPAny> {
        let roots = self
            .with_state("generate", |s| Some(s.roots.clone()))
            .unwrap_or_default();
        let files = workspace_schemas(&roots);
        let progress = self.progress(token, "wirelens: generating the workspace").await;
        let mut written = 0usize;
        let mut failures = Vec::new();
        for (i, path) in files.iter().enumerate() {
            let Some(uri) = Uri::from_file_path(path) else { continue };
            if let Some(p) = &progress {
                let percent = (i * 100 / files.len().max(1)) as u32;
                p.report_with_message(codegen::generate::file_name(path), percent).await;
            }
            match self.generate_quietly(&uri, &request).await {
                Ok(v) => written += v["written"].as_array().map_or(0, Vec::len),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
        let summary = format!(
            "{} schema(s), {written} file(s) written, {} failed",
            files.len(),
            failures.len()
        );
        if let Some(p) = progress {
            p.finish_with_message(summary.clone()).await;
        }
        Ok(serde_json::json!({"schemas": files.len(), "written": written, "failures": failures, "summary": summary}))
    }
}
