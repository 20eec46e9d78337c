//! The symbols of the workspace's schema files, for `workspace/symbol`: read from disk
//! once (in the background after `initialized`), then kept fresh from
//! `workspace/didChangeWatchedFiles` events instead of being re-read per query.
//!
//! Cheap to hold and to build: a file is only parsed and lowered (no checks, no
//! layout), and only each type's name, kind and range are kept. Neither the build nor
//! a query holds a lock while it reads files or filters symbols: the built index is an
//! immutable map behind an `Arc`, swapped whole; a query waits for the first build
//! (giving up when cancelled) and then filters its own reference, checking for
//! cancellation between files.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use codegen::source::ColumnUnit;
use codegen::{Dialect, OrderChoice, SourceFile};
use tower_lsp_server::ls_types::{Location, Range, SymbolInformation, SymbolKind, Uri};

use super::convert;
use super::documents::LARGE_DOCUMENT_BYTES;

/// One type of an indexed file.
struct Symbol {
    name: String,
    kind: SymbolKind,
    range: Range,
}

type Files = Arc<HashMap<Uri, Arc<[Symbol]>>>;

#[derive(Default)]
pub struct WorkspaceIndex {
    inner: Mutex<Inner>,
    /// Signalled when the first build has finished.
    built: Condvar,
    /// A build has been started (only one ever walks the workspace).
    started: AtomicBool,
}

#[derive(Default)]
struct Inner {
    roots: Vec<PathBuf>,
    unit: Option<ColumnUnit>,
    /// `None` until the first build has finished.
    files: Option<Files>,
    /// File events that arrived during the first build, applied after it.
    early: Vec<(Uri, Option<Arc<[Symbol]>>)>,
}

/// The types of one schema file: parsed and lowered only. `None` for a file that is not
/// a schema, cannot be read, or is over [`LARGE_DOCUMENT_BYTES`] (as open documents
/// that big, it is not analysed).
fn read_symbols(path: &Path, unit: ColumnUnit) -> Option<Arc<[Symbol]>> {
    let dialect = Dialect::from_path(path)?;
    let source = SourceFile::load(path).ok()?;
    if source.text.len() > LARGE_DOCUMENT_BYTES {
        return None;
    }
    let tree = codegen::syntax::parse(dialect, &source.text, None)?;
    let (schema, _) = codegen::lower::lower(dialect, &source.text, &tree, OrderChoice::default());
    drop(tree);
    let symbols: Vec<Symbol> = schema
        .types
        .into_iter()
        .map(|def| Symbol {
            kind: convert::symbol_kind(if def.is_struct() {
                crate::ide::SymbolKind::Struct
            } else {
                crate::ide::SymbolKind::Alias
            }),
            range: convert::range_to_lsp(&source, &def.name_range, unit),
            name: def.name,
        })
        .collect();
    Some(symbols.into())
}

impl WorkspaceIndex {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn configure(&self, roots: Vec<PathBuf>, unit: ColumnUnit) {
        let mut inner = self.lock();
        inner.roots = roots;
        inner.unit = Some(unit);
    }

    /// Starts the build on the blocking pool, unless one has started already.
    pub fn start_build(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let index = self.clone();
        tokio::task::spawn_blocking(move || index.run_build());
    }

    /// Walks the roots and reads every schema, without holding the lock; then publishes
    /// the map and wakes the queries waiting for it. A panic leaves an empty index
    /// (logged) rather than queries that wait forever.
    fn run_build(&self) {
        let (roots, unit) = {
            let inner = self.lock();
            (inner.roots.clone(), inner.unit.unwrap_or(ColumnUnit::Utf16))
        };
        let built = catch_unwind(AssertUnwindSafe(|| {
            let mut files = HashMap::new();
            for path in super::backend::workspace_schemas(&roots) {
                let Some(uri) = Uri::from_file_path(&path) else {
                    continue;
                };
                if let Some(symbols) = read_symbols(&path, unit) {
                    files.insert(uri, symbols);
                }
            }
            files
        }));
        let mut files = built.unwrap_or_else(|_| {
            eprintln!("wirelens lsp: internal error while indexing the workspace; workspace symbols are incomplete");
            HashMap::new()
        });
        let mut inner = self.lock();
        for (uri, symbols) in inner.early.drain(..) {
            match symbols {
                Some(s) => files.insert(uri, s),
                None => files.remove(&uri),
            };
        }
        inner.files = Some(Arc::new(files));
        drop(inner);
        self.built.notify_all();
    }

    /// A schema file was created, changed or deleted on disk.
    pub fn file_changed(&self, uri: &Uri, deleted: bool) {
        let Some(path) = uri.to_file_path() else { return };
        if Dialect::from_path(&path).is_none() {
            return;
        }
        let unit = self.lock().unit.unwrap_or(ColumnUnit::Utf16);
        // Read without the lock; then swap the entry in (copying the map only if a
        // query is filtering the current one).
        let symbols = if deleted { None } else { read_symbols(&path, unit) };
        let mut inner = self.lock();
        match inner.files.as_mut() {
            Some(files) => {
                let files = Arc::make_mut(files);
                match symbols {
                    Some(s) => files.insert(uri.clone(), s),
                    None => files.remove(uri),
                };
            }
            None => inner.early.push((uri.clone(), symbols)),
        }
    }

    /// The built index; waits for the first build (starting it here if nobody has),
    /// `None` if cancelled meanwhile.
    fn files(&self, cancelled: &AtomicBool) -> Option<Files> {
        if !self.started.swap(true, Ordering::SeqCst) {
            self.run_build();
        }
        let mut inner = self.lock();
        loop {
            if let Some(files) = &inner.files {
                return Some(files.clone());
            }
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            inner = match self.built.wait_timeout(inner, Duration::from_millis(10)) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }

    /// Appends the indexed symbols matching `query` (lower case) of files not in
    /// `skip`, files in URI order; `None` if cancelled.
    pub fn query(
        &self,
        query: &str,
        skip: &HashSet<&Uri>,
        cancelled: &AtomicBool,
        out: &mut Vec<SymbolInformation>,
    ) -> Option<()> {
        let files = self.files(cancelled)?;
        let mut sorted: Vec<(&Uri, &Arc<[Symbol]>)> = files.iter().filter(|(u, _)| !skip.contains(u)).collect();
        sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        for (uri, symbols) in sorted {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            #[allow(deprecated)] // `deprecated` is a required field of the LSP type
            out.extend(
                symbols
                    .iter()
                    .filter(|s| query.is_empty() || s.name.to_lowercase().contains(query))
                    .map(|s| SymbolInformation {
                        name: s.name.clone(),
                        kind: s.kind,
                        tags: None,
                        deprecated: None,
                        location: Location {
                            uri: uri.clone(),
                            range: s.range,
                        },
                        container_name: None,
                    }),
            );
        }
        Some(())
    }
}
