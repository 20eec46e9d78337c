//! Open documents: text, version and analysis, with incremental reparsing.
//!
//! Ordering: tower-lsp-server runs handlers concurrently, but it creates and first polls
//! their futures in arrival order. The server therefore applies a change synchronously,
//! under the store's lock, before its handler first awaits — so edits land in the order
//! the client sent them — and drops any change whose version is not newer than the
//! document's.

use codegen::layout::Layout;
use codegen::source::{ColumnUnit, Position};
use codegen::{analyze, analyze_reusing, Analysis, Dialect, OrderChoice, SourceFile};
use tower_lsp_server::ls_types::{self as lsp, TextDocumentContentChangeEvent};

pub struct Document {
    pub dialect: Dialect,
    pub version: i32,
    pub source: SourceFile,
    pub analysis: Analysis,
}

impl Document {
    pub fn open(dialect: Dialect, version: i32, text: String, order: OrderChoice) -> Document {
        let analysis = analyze(dialect, &text, None, order);
        Document {
            dialect,
            version,
            source: SourceFile::new("", text),
            analysis,
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
        if version <= self.version {
            return None; // stale or duplicate
        }
        let mut tree = self.analysis.tree.take();
        for change in changes {
            self.apply(change, unit, tree.as_mut());
        }
        self.version = version;
        let shape = |l: &Layout| -> Vec<(bool, bool)> {
            l.types
                .iter()
                .map(|t| (t.is_some(), t.as_ref().is_some_and(|t| t.root)))
                .collect()
        };
        let old_fingerprints = self.analysis.layout.fingerprints.clone();
        let old_shape = shape(&self.analysis.layout);
        let previous = std::mem::replace(&mut self.analysis, Analysis::placeholder(self.dialect));
        self.analysis = analyze_reusing(self.dialect, &self.source.text, tree.as_ref(), order, Some(previous));
        Some(old_fingerprints != self.analysis.layout.fingerprints || old_shape != shape(&self.analysis.layout))
    }

    /// Re-runs the analysis (settings changed); the tree is reused as is.
    pub fn reanalyze(&mut self, order: OrderChoice) {
        self.analysis = analyze(self.dialect, &self.source.text, None, order);
    }

    fn apply(
        &mut self,
        change: &TextDocumentContentChangeEvent,
        unit: ColumnUnit,
        tree: Option<&mut tree_sitter::Tree>,
    ) {
        let range = change.range.map(|range| {
            let start = self.source.offset(from_lsp(range.start), unit);
            let end = self.source.offset(from_lsp(range.end), unit).max(start);
            start..end
        });
        codegen::syntax::apply_edit(&mut self.source, range, &change.text, tree);
    }
}

pub fn from_lsp(p: lsp::Position) -> Position {
    Position {
        line: p.line,
        column: p.character,
    }
}

pub fn to_lsp(p: Position) -> lsp::Position {
    lsp::Position {
        line: p.line,
        character: p.column,
    }
}

pub fn range_to_lsp(source: &SourceFile, range: &std::ops::Range<usize>, unit: ColumnUnit) -> lsp::Range {
    let (s, e) = source.range_positions(range, unit);
    lsp::Range {
        start: to_lsp(s),
        end: to_lsp(e),
    }
}
