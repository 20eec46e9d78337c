//! Open documents: each holds an immutable analysed [`Snapshot`] behind an `Arc`;
//! requests clone the `Arc` and compute without the store's lock.
//!
//! Ordering: tower-lsp-server runs handlers concurrently, but it creates and first polls
//! their futures in arrival order. The server therefore applies a change synchronously,
//! under the store's lock, before its handler first awaits — so edits land in the order
//! the client sent them — and drops any change whose version is not newer than the
//! document's.

use std::sync::Arc;

use codegen::layout::Layout;
use codegen::source::ColumnUnit;
use codegen::{analyze, analyze_reusing, Analysis, Dialect, OrderChoice, SourceFile};
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

use super::convert;
use crate::ide::Snapshot;

#[derive(Clone)]
pub struct Document {
    pub snap: Arc<Snapshot>,
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
        let analysis = analyze(dialect, &text, None, order);
        Document {
            snap: Arc::new(Snapshot::new(dialect, version, SourceFile::new("", text), analysis)),
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
        // The store normally holds the only reference; if a request is still computing
        // from the old snapshot, copy its text and tree and analyse afresh.
        let (mut source, mut previous) = match Arc::try_unwrap(std::mem::replace(&mut self.snap, placeholder)) {
            Ok(s) => (s.source, s.analysis),
            Err(shared) => {
                let mut fresh = Analysis::placeholder(dialect);
                fresh.tree = shared.analysis.tree.clone();
                (SourceFile::new("", shared.source.text.clone()), fresh)
            }
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
        let analysis = analyze_reusing(dialect, &source.text, tree.as_ref(), order, Some(previous));
        let changed = old_fingerprints != analysis.layout.fingerprints || old_shape != shape(&analysis.layout);
        self.snap = Arc::new(Snapshot::new(dialect, version, source, analysis));
        Some(changed)
    }

    /// Re-runs the analysis (settings changed).
    pub fn reanalyze(&mut self, order: OrderChoice) {
        let s = &self.snap;
        let analysis = analyze(s.dialect, &s.source.text, None, order);
        self.snap = Arc::new(Snapshot::new(
            s.dialect,
            s.version,
            SourceFile::new("", s.source.text.clone()),
            analysis,
        ));
    }
}
