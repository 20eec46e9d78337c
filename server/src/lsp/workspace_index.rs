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

use tower_lsp_server::ls_types::{Location, Range, SymbolInformation, SymbolKind, Uri};
use wirelens_core::source::ColumnUnit;
use wirelens_core::{Dialect, OrderChoice};
use wirelens_project::project::WorkspaceSchemas;

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
    /// Signalled when a build has finished.
    built: Condvar,
    /// A build has been started.
    started: AtomicBool,
}

#[derive(Default)]
struct Inner {
    roots: Vec<PathBuf>,
    unit: Option<ColumnUnit>,
    /// `None` until the first build has finished.
    files: Option<Files>,
    /// The number of the latest build started (one per change of the workspace
    /// folders): an older build finishing late is dropped.
    build: u64,
    /// A build is running: the events applied meanwhile are kept in `since_build`.
    building: bool,
    /// The outcome of every file event applied since the running build started (it may
    /// have read those files before they changed): applied again over its result.
    since_build: HashMap<Uri, Option<Arc<[Symbol]>>>,
    /// Numbers file events, in arrival order.
    events: u64,
    /// Per file, the number of its latest event whose read is still running: a read
    /// that finishes after a later event of its file (a `deleted`, or another change)
    /// is dropped, so events take effect in the order they arrived.
    reading: HashMap<Uri, u64>,
    /// What the latest build left out (the index holds at most [`MAX_INDEXED_FILES`]).
    found: WorkspaceSchemas,
}

/// The workspace-symbol index covers at most this many schema files: the first ones in
/// path order; the user is told which were left out.
pub const MAX_INDEXED_FILES: usize = 5000;

impl Inner {
    /// Sets the symbols of `uri` (`None`: it is gone).
    fn apply(&mut self, uri: Uri, symbols: Option<Arc<[Symbol]>>) {
        if self.building {
            self.since_build.insert(uri.clone(), symbols.clone());
        }
        if let Some(files) = self.files.as_mut() {
            // Copies the map only if a query is filtering the current one.
            let files = Arc::make_mut(files);
            match symbols {
                Some(s) => files.insert(uri, s),
                None => files.remove(&uri),
            };
        }
    }

    /// Whether a file event for `path` concerns the index: a schema inside a workspace
    /// folder, and not among the files a build had to leave out.
    fn covers(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r)) && !self.found.leaves_out(path)
    }
}

/// The types of one schema file: parsed and lowered only. `None` for a file that is not
/// a schema, cannot be read, or is over [`LARGE_DOCUMENT_BYTES`] (as open documents
/// that big, it is not analysed).
fn read_symbols(path: &Path, unit: ColumnUnit) -> Option<Arc<[Symbol]>> {
    let dialect = Dialect::from_path(path)?;
    let source = wirelens_project::files::read_source(path).ok()?;
    if source.text.len() > LARGE_DOCUMENT_BYTES {
        return None;
    }
    let tree = wirelens_core::syntax::parse(dialect, &source.text, None)?;
    let (schema, _) = wirelens_core::lower::lower(dialect, &source.text, &tree, OrderChoice::default());
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

    /// Starts the first build on the blocking pool, unless one has started already; it
    /// answers what it had to leave out (`None` if nothing).
    pub fn start_build(self: &Arc<Self>) -> Option<tokio::task::JoinHandle<Option<String>>> {
        if self.started.swap(true, Ordering::SeqCst) {
            return None;
        }
        let index = self.clone();
        Some(tokio::task::spawn_blocking(move || index.run_build()))
    }

    /// The workspace folders changed: file events are filtered by the new folders at
    /// once, and they are indexed afresh in the background (queries answer from the
    /// previous index until then); the build answers what it left out.
    pub fn set_roots(self: &Arc<Self>, roots: Vec<PathBuf>) -> tokio::task::JoinHandle<Option<String>> {
        self.lock().roots = roots;
        self.started.store(true, Ordering::SeqCst);
        let index = self.clone();
        tokio::task::spawn_blocking(move || index.run_build())
    }

    /// Walks the roots and reads every schema, without holding the lock; then publishes
    /// the map and wakes the queries waiting for it. A panic leaves an empty index
    /// (logged) rather than queries that wait forever. Answers the message telling what
    /// was left out, if anything was.
    fn run_build(&self) -> Option<String> {
        let (roots, unit, build) = {
            let mut inner = self.lock();
            inner.build += 1;
            inner.building = true;
            inner.since_build.clear();
            (
                inner.roots.clone(),
                inner.unit.unwrap_or(ColumnUnit::Utf16),
                inner.build,
            )
        };
        let built = catch_unwind(AssertUnwindSafe(|| {
            let found = wirelens_project::project::workspace_schemas(&roots, MAX_INDEXED_FILES);
            let mut files = HashMap::new();
            for path in &found.files {
                let Some(uri) = Uri::from_file_path(path) else {
                    continue;
                };
                if let Some(symbols) = read_symbols(path, unit) {
                    files.insert(uri, symbols);
                }
            }
            (files, found)
        }));
        let (mut files, found) = built.unwrap_or_else(|_| {
            eprintln!("wirelens lsp: internal error while indexing the workspace; workspace symbols are incomplete");
            (HashMap::new(), WorkspaceSchemas::default())
        });
        let mut inner = self.lock();
        if inner.build != build {
            return None; // the folders changed meanwhile: a newer build is running
        }
        inner.building = false;
        for (uri, symbols) in std::mem::take(&mut inner.since_build) {
            match symbols {
                Some(s) => files.insert(uri, s),
                None => files.remove(&uri),
            };
        }
        let message = found.left_out_message("wirelens: workspace symbols");
        if let Some(m) = &message {
            eprintln!("{m}");
        }
        inner.found = found;
        inner.files = Some(Arc::new(files));
        drop(inner);
        self.built.notify_all();
        message
    }

    /// A schema file was created, changed or deleted on disk. Called in the order the
    /// events arrived: a deletion applies at once, a change once its file is read (on
    /// the blocking pool), unless a later event of the same file came meanwhile.
    pub fn file_changed(self: &Arc<Self>, uri: &Uri, deleted: bool) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
            return;
        };
        if Dialect::from_path(&path).is_none() {
            return;
        }
        let mut inner = self.lock();
        inner.events += 1;
        let event = inner.events;
        if deleted {
            inner.reading.remove(uri);
            inner.apply(uri.clone(), None);
            return;
        }
        if !inner.covers(&path) {
            return;
        }
        inner.reading.insert(uri.clone(), event);
        let unit = inner.unit.unwrap_or(ColumnUnit::Utf16);
        drop(inner);
        let (index, uri) = (self.clone(), uri.clone());
        // Read without the lock; then swap the entry in if no later event of this file
        // has arrived meanwhile.
        tokio::task::spawn_blocking(move || {
            let symbols = catch_unwind(AssertUnwindSafe(|| read_symbols(&path, unit))).unwrap_or(None);
            let mut inner = index.lock();
            if inner.reading.get(&uri) == Some(&event) {
                inner.reading.remove(&uri);
                inner.apply(uri, symbols);
            }
        });
    }

    /// The built index; waits for the first build (starting it here if nobody has),
    /// `None` if cancelled meanwhile.
    fn files(&self, cancelled: &AtomicBool) -> Option<Files> {
        if !self.started.swap(true, Ordering::SeqCst) {
            let _ = self.run_build();
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
