//! Open documents: each holds an immutable analysed [`Snapshot`] behind an `Arc`;
//! requests clone the `Arc` and compute without the store's lock.
//!
//! Ordering: tower-lsp-server runs handlers concurrently, but it creates and first polls
//! their futures in arrival order. The server therefore applies a change synchronously,
//! under the store's lock, before its handler first awaits — so edits land in the order
//! the client sent them — and drops any change whose version is not newer than the
//! document's.
//!
//! Big documents: above [`LARGE_DOCUMENT_BYTES`] a document is only parsed (tree-sitter
//! reparses incrementally) and checked for syntax errors. The full analysis — lowering,
//! checks, layout — walks the whole schema on every keystroke and costs about 0.5 s per
//! MiB (BENCHMARKS.md, "Big documents"), so beyond the limit it would stall the editor.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;
use tree_sitter::Tree;
use wirelens_core::layout::Layout;
use wirelens_core::source::ColumnUnit;
use wirelens_core::{analyze_reusing, Analysis, Dialect, OrderChoice, SourceFile};

use super::convert;
use crate::ide::Snapshot;

/// Documents larger than this (in bytes of UTF-8) get syntax diagnostics only, and no
/// inlay hints, semantic tokens or code lenses, until they shrink below it again.
pub const LARGE_DOCUMENT_BYTES: usize = 2 * 1024 * 1024;

/// Whether `snap` is over [`LARGE_DOCUMENT_BYTES`] (and so analysed for syntax only).
pub fn is_large(snap: &Snapshot) -> bool {
    snap.source.text.len() > LARGE_DOCUMENT_BYTES
}

/// An empty snapshot: what a document holds before its first analysis and while one runs.
fn placeholder(dialect: Dialect, version: i32) -> Arc<Snapshot> {
    Arc::new(Snapshot::new(
        dialect,
        version,
        SourceFile::new("", ""),
        Analysis::placeholder(dialect),
    ))
}

/// The analysis of a big document: its (incrementally reparsed) tree and its syntax
/// errors; no model, no layout.
fn syntax_only(dialect: Dialect, text: &str, old: Option<&Tree>) -> Analysis {
    let mut analysis = Analysis::placeholder(dialect);
    analysis.tree = wirelens_core::syntax::parse(dialect, text, old);
    if let Some(tree) = &analysis.tree {
        analysis.diagnostics = wirelens_core::syntax::syntax_errors(dialect, tree, text);
    }
    analysis
}

/// Drops `garbage` on tokio's blocking pool when there is a runtime: freeing the
/// previous tree of a 5,000-struct file is ~4 M instructions that the edit's
/// diagnostics need not wait for.
fn drop_later<T: Send + 'static>(garbage: T) {
    match tokio::runtime::Handle::try_current() {
        Ok(rt) => drop(rt.spawn_blocking(move || drop(garbage))),
        Err(_) => drop(garbage),
    }
}

/// An open document: the latest analysed snapshot, and the text typed since, which an
/// analysis on the blocking pool catches up with (see [`Document::start`]).
pub struct Document {
    /// The latest analysed snapshot. Requests wait until it is [`Document::is_current`].
    pub snap: Arc<Snapshot>,
    /// The field order the snapshot's analysis was made with.
    pub order: OrderChoice,
    /// [`LayoutKey`] of the last analysis installed (the snapshot itself is handed to the
    /// next analysis while it runs).
    layout: LayoutKey,
    /// Text (or settings) newer than `snap`, not analysed yet.
    pending: Option<Pending>,
    /// An analysis of this document is running (at most one at a time).
    analysing: bool,
    /// Counts every change of text or settings; `snap_rev` is the count `snap` reflects.
    rev: u64,
    snap_rev: u64,
    /// Tells this document from one opened again under the same URI after a close
    /// (an analysis of the closed one may still be running).
    id: u64,
}

/// What of a layout decides whether inlay hints need a refresh: each type's fingerprint,
/// whether it has a layout, whether it is a root.
#[derive(Default, PartialEq)]
struct LayoutKey {
    fingerprints: Vec<u64>,
    shape: Vec<(bool, bool)>,
}

impl LayoutKey {
    fn of(l: &Layout) -> LayoutKey {
        LayoutKey {
            fingerprints: l.fingerprints.clone(),
            shape: l
                .types
                .iter()
                .map(|t| (t.is_some(), t.as_ref().is_some_and(|t| t.root)))
                .collect(),
        }
    }
}

/// The newest text of a document whose analysis has not caught up: its tree is the
/// snapshot's tree with every edit since applied, so the next parse is incremental.
struct Pending {
    version: i32,
    source: SourceFile,
    tree: Option<Tree>,
    order: OrderChoice,
    /// Settings changed: analyse afresh, reusing nothing.
    afresh: bool,
}

/// One analysis to run off the store's lock: the text of revision `rev`.
pub struct Job {
    dialect: Dialect,
    version: i32,
    source: SourceFile,
    tree: Option<Tree>,
    order: OrderChoice,
    previous: Option<Arc<Snapshot>>,
    rev: u64,
    id: u64,
}

/// A finished [`Job`], to be installed with [`Document::finish`].
pub struct Analysed {
    snap: Arc<Snapshot>,
    order: OrderChoice,
    rev: u64,
    id: u64,
}

/// `doc.source`, `doc.analysis`, `doc.version` read the latest analysed snapshot.
impl std::ops::Deref for Document {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.snap
    }
}

impl Document {
    /// A document whose text is yet to be analysed ([`Document::start`]): opening a big
    /// file costs the store's lock no analysis.
    pub fn open(dialect: Dialect, version: i32, text: String, order: OrderChoice) -> Document {
        static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Document {
            snap: placeholder(dialect, version),
            order,
            layout: LayoutKey::default(),
            pending: Some(Pending {
                version,
                source: SourceFile::new("", text),
                tree: None,
                order,
                afresh: true,
            }),
            analysing: false,
            rev: 1,
            snap_rev: 0,
            id: OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Whether the snapshot reflects the latest text and settings.
    pub fn is_current(&self) -> bool {
        self.snap_rev == self.rev
    }

    /// The version of the newest text (analysed or not).
    pub fn latest_version(&self) -> i32 {
        self.pending.as_ref().map_or(self.snap.version, |p| p.version)
    }

    /// The newest text (analysed or not).
    pub fn latest_text(&self) -> &str {
        self.pending.as_ref().map_or(&self.snap.source.text, |p| &p.source.text)
    }

    /// The newest text's length in bytes (analysed or not).
    pub fn latest_len(&self) -> usize {
        self.latest_text().len()
    }

    /// The newest text, starting from the snapshot's when nothing is pending.
    fn pending_mut(&mut self) -> &mut Pending {
        let snap = &self.snap;
        let order = self.order;
        self.pending.get_or_insert_with(|| Pending {
            version: snap.version,
            source: SourceFile::new("", snap.source.text.clone()),
            tree: snap.analysis.tree.clone(),
            order,
            afresh: false,
        })
    }

    /// Applies the changes of `version` to the newest text (cheap: the text and the
    /// tree's byte ranges; the analysis runs later, off the lock). `false` if the change
    /// was stale or a duplicate.
    pub fn change(&mut self, version: i32, changes: &[TextDocumentContentChangeEvent], unit: ColumnUnit) -> bool {
        if version <= self.latest_version() {
            return false;
        }
        let pending = self.pending_mut();
        for change in changes {
            let range = change.range.map(|r| convert::range_from_lsp(&pending.source, r, unit));
            wirelens_core::syntax::apply_edit(&mut pending.source, range, &change.text, pending.tree.as_mut());
        }
        pending.version = version;
        self.rev += 1;
        true
    }

    /// Asks for the text to be analysed again with `order` (settings changed).
    pub fn reanalyze(&mut self, order: OrderChoice) {
        let pending = self.pending_mut();
        pending.order = order;
        pending.afresh = true;
        pending.tree = None;
        self.rev += 1;
    }

    /// The analysis to run next, unless one is running (it is followed by another when
    /// it ends, so edits meanwhile coalesce into one analysis) or nothing is pending.
    pub fn start(&mut self) -> Option<Job> {
        if self.analysing {
            return None;
        }
        let pending = self.pending.as_ref()?;
        self.analysing = true;
        let dialect = self.snap.dialect;
        // The job takes the snapshot rather than a second reference to it, so that it can
        // reuse the analysis in place: copying it cost a quarter of an edit's instructions
        // on the 5,000-struct schema (BENCHMARKS.md, "Language server"). Until the job is
        // installed the document is not current: requests wait for it and read nothing of
        // the placeholder.
        let version = self.snap.version;
        let previous = (!pending.afresh).then(|| std::mem::replace(&mut self.snap, placeholder(dialect, version)));
        Some(Job {
            dialect,
            version: pending.version,
            source: SourceFile::new("", pending.source.text.clone()),
            tree: pending.tree.clone(),
            order: pending.order,
            previous,
            rev: self.rev,
            id: self.id,
        })
    }

    /// Installs a finished analysis (always newer than the snapshot: one runs at a
    /// time). Returns whether the layout changed (inlay hints need a refresh) and
    /// whether newer text is still waiting for an analysis; `None` if `done` belongs to
    /// a document closed since (this one was opened again under its URI).
    pub fn finish(&mut self, done: Analysed) -> Option<(bool, bool)> {
        if done.id != self.id {
            return None;
        }
        let layout = LayoutKey::of(&done.snap.analysis.layout);
        let changed = layout != self.layout;
        self.layout = layout;
        self.analysing = false;
        drop_later(std::mem::replace(&mut self.snap, done.snap));
        self.order = done.order;
        self.snap_rev = done.rev;
        if done.rev == self.rev {
            self.pending = None;
        }
        Some((changed, self.pending.is_some()))
    }
}

impl Job {
    /// Analyses the job's text: incrementally (tree-sitter reparses only what changed;
    /// declarations and layouts the edits left alone are reused) unless settings
    /// changed. A panic inside becomes an empty analysis of the same text, so waiting
    /// requests still get an answer.
    pub fn run(self) -> Analysed {
        let Job {
            dialect,
            version,
            source,
            tree,
            order,
            previous,
            rev,
            id,
        } = self;
        let text = &source.text;
        let analysis = catch_unwind(AssertUnwindSafe(|| {
            if text.len() > LARGE_DOCUMENT_BYTES {
                return syntax_only(dialect, text, tree.as_ref());
            }
            // Usually a request still holds the previous snapshot only briefly; if it
            // does, copy its analysis (milliseconds; everything the edit left alone is
            // still reused).
            let previous = previous.map(|p| match Arc::try_unwrap(p) {
                Ok(s) => s.analysis,
                Err(shared) => shared.analysis.clone(),
            });
            // Also right after a big document shrank: `previous` (syntax only) then
            // carries nothing to reuse, and everything is analysed afresh.
            analyze_reusing(dialect, text, tree.as_ref(), order, previous)
        }))
        .unwrap_or_else(|_| {
            eprintln!("wirelens lsp: internal error while analysing a document; the server continues");
            Analysis::placeholder(dialect)
        });
        drop_later(tree);
        Analysed {
            snap: Arc::new(Snapshot::new(dialect, version, source, analysis)),
            order,
            rev,
            id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::{Position, Range};

    /// Runs the pending analyses of `doc` as the server's background task does.
    fn settle(doc: &mut Document) -> bool {
        let mut layout_changed = false;
        while let Some(job) = doc.start() {
            let (changed, more) = doc.finish(job.run()).expect("the same document");
            layout_changed |= changed;
            if !more {
                break;
            }
        }
        assert!(doc.is_current());
        layout_changed
    }

    fn edit(line: u32, character: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(
                Position::new(line, character),
                Position::new(line, character),
            )),
            range_length: None,
            text: text.into(),
        }
    }

    /// An edit while someone else still reads the snapshot (a request in flight, a
    /// baseline load) starts from a copy of the analysis: the result is the same as
    /// without the reader, and as analysing the edited text from scratch.
    #[test]
    fn an_edit_while_the_snapshot_is_shared_gives_the_same_analysis() {
        let text = "struct A {\n    x: u32,\n}\n\nstruct B {\n    a: A,\n    s: str,\n}\n";
        let change = edit(1, 11, ",\n    y: u64,\n    z: Missing");
        let order = OrderChoice::default();
        let mut alone = Document::open(Dialect::Sdp, 1, text.into(), order);
        let mut shared = Document::open(Dialect::Sdp, 1, text.into(), order);
        settle(&mut alone);
        settle(&mut shared);
        let reader = shared.snap.clone();
        for doc in [&mut alone, &mut shared] {
            assert!(doc.change(2, std::slice::from_ref(&change), ColumnUnit::Utf16));
            assert!(!doc.is_current(), "the edit waits for its analysis");
            assert!(settle(doc), "the layout changed");
        }
        assert_eq!(reader.version, 1, "the reader keeps its snapshot");
        let fresh = wirelens_core::analyze(Dialect::Sdp, &alone.source.text, None, order);
        assert_eq!(shared.source.text, alone.source.text);
        for doc in [&alone, &shared] {
            assert_eq!(doc.version, 2);
            assert_eq!(doc.analysis.schema, fresh.schema);
            assert_eq!(doc.analysis.layout, fresh.layout);
            assert_eq!(doc.analysis.diagnostics, fresh.diagnostics);
        }
        assert!(fresh.diagnostics.iter().any(|d| d.message.contains("Missing")));
    }

    /// The analysis of an edit gets the previous snapshot as its only holder, so it reuses
    /// that analysis in place; the document held a second reference, and every edit copied
    /// the whole analysis (and freed the old one): 40 M of 148 M instructions per edit on
    /// the 5,000-struct schema. A layout change is still told apart from none.
    #[test]
    fn an_edit_takes_the_previous_analysis_without_a_copy() {
        let text = "struct A {\n    x: u32,\n}\n";
        let mut doc = Document::open(Dialect::Sdp, 1, text.into(), OrderChoice::default());
        assert!(settle(&mut doc), "the first analysis is a layout change");
        assert!(doc.change(2, &[edit(1, 11, "\n    y: u8,")], ColumnUnit::Utf16));
        let job = doc.start().expect("an analysis starts");
        let previous = job
            .previous
            .as_ref()
            .expect("incremental: it reuses the previous analysis");
        assert_eq!(Arc::strong_count(previous), 1, "the document keeps no second reference");
        assert_eq!(previous.version, 1);
        assert!(
            !doc.is_current(),
            "requests wait for the analysis, not read the placeholder"
        );
        let (changed, more) = doc.finish(job.run()).expect("the same document");
        assert!(changed && !more && doc.is_current());
        assert_eq!(doc.analysis.schema.types[0].fields().len(), 2);
        // A comment changes no layout: no refresh of the hints.
        assert!(doc.change(3, &[edit(0, 0, "// c\n")], ColumnUnit::Utf16));
        assert!(!settle(&mut doc), "same layout");
    }

    /// Edits that arrive while an analysis runs coalesce: the running one is installed
    /// (requests still wait, it is not current), then one analysis of the newest text
    /// follows, incremental over the edits of both, and equals a fresh analysis.
    #[test]
    fn edits_during_an_analysis_coalesce_into_one_more() {
        let text = "struct A {\n    x: u32,\n}\n";
        let order = OrderChoice::default();
        let mut doc = Document::open(Dialect::Sdp, 1, text.into(), order);
        settle(&mut doc);
        assert!(doc.change(2, &[edit(1, 11, "\n    y: u8,")], ColumnUnit::Utf16));
        let running = doc.start().expect("an analysis starts");
        assert!(doc.start().is_none(), "one analysis at a time");
        assert!(doc.change(3, &[edit(2, 10, "\n    z: str")], ColumnUnit::Utf16));
        assert!(doc.change(4, &[edit(0, 8, "B")], ColumnUnit::Utf16));
        assert!(
            !doc.change(4, &[edit(0, 0, "x")], ColumnUnit::Utf16),
            "a duplicate version is dropped"
        );
        let (_, more) = doc.finish(running.run()).expect("the same document");
        assert!(more, "newer text waits");
        assert_eq!(doc.version, 2);
        assert!(!doc.is_current());
        let next = doc.start().expect("the newest text is analysed next");
        let (_, more) = doc.finish(next.run()).expect("the same document");
        assert!(!more);
        assert!(doc.is_current());
        assert_eq!(doc.version, 4);
        assert_eq!(doc.source.text, "struct AB {\n    x: u32,\n    y: u8,\n    z: str\n}\n");
        let fresh = wirelens_core::analyze(Dialect::Sdp, &doc.source.text, None, order);
        assert_eq!(doc.analysis.schema, fresh.schema);
        assert_eq!(doc.analysis.layout, fresh.layout);
        assert_eq!(doc.analysis.diagnostics, fresh.diagnostics);
    }
}
