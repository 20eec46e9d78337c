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

use std::sync::Arc;

use codegen::layout::Layout;
use codegen::source::ColumnUnit;
use codegen::{analyze, analyze_reusing, Analysis, Dialect, OrderChoice, SourceFile};
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;
use tree_sitter::Tree;

use super::convert;
use crate::ide::Snapshot;

/// Documents larger than this (in bytes of UTF-8) get syntax diagnostics only, and no
/// inlay hints, semantic tokens or code lenses, until they shrink below it again.
pub const LARGE_DOCUMENT_BYTES: usize = 2 * 1024 * 1024;

/// Whether `snap` is over [`LARGE_DOCUMENT_BYTES`] (and so analysed for syntax only).
pub fn is_large(snap: &Snapshot) -> bool {
    snap.source.text.len() > LARGE_DOCUMENT_BYTES
}

/// The analysis of a big document: its (incrementally reparsed) tree and its syntax
/// errors; no model, no layout.
fn syntax_only(dialect: Dialect, text: &str, old: Option<&Tree>) -> Analysis {
    let mut analysis = Analysis::placeholder(dialect);
    analysis.tree = codegen::syntax::parse(dialect, text, old);
    if let Some(tree) = &analysis.tree {
        analysis.diagnostics = codegen::syntax::syntax_errors(dialect, tree, text);
    }
    analysis
}

/// Full analysis, or syntax only for a big document.
fn analyze_sized(dialect: Dialect, text: &str, old: Option<&Tree>, order: OrderChoice) -> Analysis {
    if text.len() > LARGE_DOCUMENT_BYTES {
        syntax_only(dialect, text, old)
    } else {
        analyze(dialect, text, old, order)
    }
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

#[derive(Clone)]
pub struct Document {
    pub snap: Arc<Snapshot>,
    /// The field order the snapshot's analysis was made with.
    pub order: OrderChoice,
}

/// `doc.source`, `doc.analysis`, `doc.version` read the current snapshot.
impl std::ops::Deref for Document {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.snap
    }
}

impl Document {
    pub fn open(dialect: Dialect, version: i32, text: String, order: OrderChoice) -> Document {
        let analysis = analyze_sized(dialect, &text, None, order);
        Document {
            snap: Arc::new(Snapshot::new(dialect, version, SourceFile::new("", text), analysis)),
            order,
        }
    }

    /// Applies the changes of `version` and reanalyses incrementally (tree-sitter reparses
    /// only what changed; layouts of untouched types are reused). Returns `None` if the
    /// change was stale, else whether the layout changed (inlay hints need a refresh).
    pub fn change(
        &mut self,
        version: i32,
        changes: &[TextDocumentContentChangeEvent],
        unit: ColumnUnit,
        order: OrderChoice,
    ) -> Option<bool> {
        if version <= self.snap.version {
            return None; // stale or duplicate
        }
        let dialect = self.snap.dialect;
        let placeholder = Arc::new(Snapshot::new(
            dialect,
            self.snap.version,
            SourceFile::new("", ""),
            Analysis::placeholder(dialect),
        ));
        // The store normally holds the only reference; if a request (or a baseline load)
        // still reads the old snapshot, copy its text and analysis (milliseconds; the
        // analysis still reuses everything the edit left alone).
        let (mut source, mut previous) = match Arc::try_unwrap(std::mem::replace(&mut self.snap, placeholder)) {
            Ok(s) => (s.source, s.analysis),
            Err(shared) => (SourceFile::new("", shared.source.text.clone()), shared.analysis.clone()),
        };
        let mut tree = previous.tree.take();
        for change in changes {
            let range = change.range.map(|r| convert::range_from_lsp(&source, r, unit));
            codegen::syntax::apply_edit(&mut source, range, &change.text, tree.as_mut());
        }
        let shape = |l: &Layout| -> Vec<(bool, bool)> {
            l.types
                .iter()
                .map(|t| (t.is_some(), t.as_ref().is_some_and(|t| t.root)))
                .collect()
        };
        let old_fingerprints = previous.layout.fingerprints.clone();
        let old_shape = shape(&previous.layout);
        let analysis = if source.text.len() > LARGE_DOCUMENT_BYTES {
            syntax_only(dialect, &source.text, tree.as_ref())
        } else {
            // Also right after a big document shrank: `previous` (syntax only) then
            // carries nothing to reuse, and everything is analysed afresh.
            analyze_reusing(dialect, &source.text, tree.as_ref(), order, Some(previous))
        };
        let changed = old_fingerprints != analysis.layout.fingerprints || old_shape != shape(&analysis.layout);
        self.snap = Arc::new(Snapshot::new(dialect, version, source, analysis));
        self.order = order;
        drop_later(tree);
        Some(changed)
    }

    /// Re-runs the analysis (settings changed).
    pub fn reanalyze(&mut self, order: OrderChoice) {
        let s = &self.snap;
        let analysis = analyze_sized(s.dialect, &s.source.text, None, order);
        self.order = order;
        self.snap = Arc::new(Snapshot::new(
            s.dialect,
            s.version,
            SourceFile::new("", s.source.text.clone()),
            analysis,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::{Position, Range};

    /// An edit while someone else still reads the snapshot (a request in flight, a
    /// baseline load) starts from a copy of the analysis: the result is the same as
    /// without the reader, and as analysing the edited text from scratch.
    #[test]
    fn an_edit_while_the_snapshot_is_shared_gives_the_same_analysis() {
        let text = "struct A {\n    x: u32,\n}\n\nstruct B {\n    a: A,\n    s: str,\n}\n";
        let edit = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(1, 11), Position::new(1, 11))),
            range_length: None,
            text: ",\n    y: u64,\n    z: Missing".into(),
        };
        let order = OrderChoice::default();
        let mut alone = Document::open(Dialect::Sdp, 1, text.into(), order);
        let mut shared = Document::open(Dialect::Sdp, 1, text.into(), order);
        let reader = shared.snap.clone();
        for doc in [&mut alone, &mut shared] {
            assert_eq!(
                doc.change(2, std::slice::from_ref(&edit), ColumnUnit::Utf16, order),
                Some(true)
            );
        }
        assert_eq!(reader.version, 1, "the reader keeps its snapshot");
        let fresh = analyze(Dialect::Sdp, &alone.source.text, None, order);
        assert_eq!(shared.source.text, alone.source.text);
        for doc in [&alone, &shared] {
            assert_eq!(doc.analysis.schema, fresh.schema);
            assert_eq!(doc.analysis.layout, fresh.layout);
            assert_eq!(doc.analysis.diagnostics, fresh.diagnostics);
        }
        assert!(fresh.diagnostics.iter().any(|d| d.message.contains("Missing")));
    }
}
