//! The symbols of the workspace's schema files, for `workspace/symbol`: read from disk
//! once (in the background after `initialized`, or by the first query if that comes
//! sooner), then kept fresh from `workspace/didChangeWatchedFiles` events instead of
//! being re-read per query. Has its own lock; the document store's lock is never held
//! while files are read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use codegen::source::ColumnUnit;
use codegen::{Dialect, OrderChoice, SourceFile};
use tower_lsp_server::ls_types::{SymbolInformation, Uri};

use super::handlers;
use crate::ide::Snapshot;

#[derive(Default)]
pub struct WorkspaceIndex {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    roots: Vec<PathBuf>,
    unit: Option<ColumnUnit>,
    /// `None` until the first full walk has finished.
    files: Option<HashMap<Uri, Vec<SymbolInformation>>>,
}

/// The symbols of one schema file (all of them; queries filter).
fn read_symbols(path: &Path, uri: &Uri, unit: ColumnUnit) -> Option<Vec<SymbolInformation>> {
    let dialect = Dialect::from_path(path)?;
    let source = SourceFile::load(path).ok()?;
    let analysis = codegen::analyze(dialect, &source.text, None, OrderChoice::default());
    let snap = Snapshot::new(dialect, 0, source, analysis);
    Some(handlers::workspace_symbols(uri, &snap, unit, ""))
}

impl WorkspaceIndex {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn configure(&self, roots: Vec<PathBuf>, unit: ColumnUnit) {
        let mut inner = self.lock();
        inner.roots = roots;
        inner.unit = Some(unit);
    }

    /// Walks the roots and reads every schema, unless done already. Holds the index's
    /// lock meanwhile, so a query waits for the walk instead of starting its own.
    /// Returns `false` if cancelled (nothing is kept then).
    pub fn build(&self, cancelled: &AtomicBool) -> bool {
        let mut inner = self.lock();
        if inner.files.is_some() {
            return true;
        }
        let unit = inner.unit.unwrap_or(ColumnUnit::Utf16);
        let mut files = HashMap::new();
        for path in super::backend::workspace_schemas(&inner.roots) {
            if cancelled.load(Ordering::Relaxed) {
                return false;
            }
            let Some(uri) = Uri::from_file_path(&path) else {
                continue;
            };
            if let Some(symbols) = read_symbols(&path, &uri, unit) {
                files.insert(uri, symbols);
            }
        }
        inner.files = Some(files);
        true
    }

    /// A schema file was created, changed or deleted on disk.
    pub fn file_changed(&self, uri: &Uri, deleted: bool) {
        let Some(path) = uri.to_file_path() else { return };
        if Dialect::from_path(&path).is_none() {
            return;
        }
        let unit = self.lock().unit.unwrap_or(ColumnUnit::Utf16);
        // Read without the lock; then swap the entry in.
        let symbols = if deleted { None } else { read_symbols(&path, uri, unit) };
        let mut inner = self.lock();
        let Some(files) = inner.files.as_mut() else { return };
        match symbols {
            Some(s) => files.insert(uri.clone(), s),
            None => files.remove(uri),
        };
    }

    /// Appends the indexed symbols matching `query` (lower case) of files not in
    /// `skip`; `None` if cancelled.
    pub fn query(
        &self,
        query: &str,
        skip: &HashSet<&Uri>,
        cancelled: &AtomicBool,
        out: &mut Vec<SymbolInformation>,
    ) -> Option<()> {
        if !self.build(cancelled) {
            return None;
        }
        let inner = self.lock();
        let mut files: Vec<(&Uri, &Vec<SymbolInformation>)> = inner
            .files
            .iter()
            .flatten()
            .filter(|(u, _)| !skip.contains(u))
            .collect();
        files.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        for (_, symbols) in files {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            out.extend(
                symbols
                    .iter()
                    .filter(|s| query.is_empty() || s.name.to_lowercase().contains(query))
                    .cloned(),
            );
        }
        Some(())
    }
}
