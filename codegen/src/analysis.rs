//! One schema file, analysed: the tree, the model, every diagnostic, and the layout.

use tree_sitter::Tree;

use crate::check;
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::layout::Layout;
use crate::lower::{self, OrderChoice};
use crate::model::Schema;
use crate::reuse::{Item, Memo};
use crate::syntax;

pub struct Analysis {
    pub tree: Option<Tree>,
    pub schema: Schema,
    pub layout: Layout,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The analysed text and its declarations, for [`analyze_reusing`] after an edit.
    reuse: Option<(String, Vec<Item>)>,
}

impl Analysis {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == crate::Severity::Error)
    }

    pub fn has_syntax_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.code == "SYNTAX")
    }
}

/// Parses (incrementally when `old` is an edited previous tree), lowers, checks and
/// lays out one schema.
pub fn analyze(dialect: Dialect, text: &str, old: Option<&Tree>, order: OrderChoice) -> Analysis {
    analyze_reusing(dialect, text, old, order, None)
}

/// [`analyze`] after an edit, given the analysis before it: every declaration whose
/// text the edit left alone keeps its lowered types and its own diagnostics (see
/// [`crate::reuse`]), and every type whose layout fingerprint is unchanged keeps its
/// layout (see [`Layout::compute_reusing`]). Same result, far less work.
pub fn analyze_reusing(
    dialect: Dialect,
    text: &str,
    old: Option<&Tree>,
    order: OrderChoice,
    previous: Option<Analysis>,
) -> Analysis {
    let tree = syntax::parse(dialect, text, old);
    let (previous_layout, mut memo) = match previous.filter(|p| p.schema.dialect == dialect) {
        Some(p) => (
            Some(p.layout),
            p.reuse.map(|(text, items)| Memo::new(text, items, p.schema.types)),
        ),
        None => (None, None),
    };
    let mut diagnostics = Vec::new();
    let (schema, file_diags, mut items) = match &tree {
        Some(tree) => {
            diagnostics.extend(syntax::syntax_errors(dialect, tree, text));
            lower::lower_reusing(dialect, text, tree, order, memo.as_mut())
        }
        None => {
            diagnostics.push(Diagnostic::error(
                "SYNTAX",
                0..0,
                "internal error: the parser could not run",
            ));
            let empty = syntax::parse(dialect, "", None);
            match empty {
                Some(t) => lower::lower_reusing(dialect, "", &t, order, None),
                None => return Analysis::empty(dialect, diagnostics),
            }
        }
    };
    drop(memo);
    diagnostics.extend(file_diags);
    let graph = Graph::new(&schema);
    diagnostics.extend(check::check_schema(&schema, &graph, text.trim().is_empty()));
    let layout = Layout::compute_reusing(&schema, &graph, previous_layout);
    for item in &mut items {
        if !item.checked {
            for def in &schema.types[item.types.clone()] {
                item.diags.extend(check::check_type(dialect, def));
            }
            item.checked = true;
        }
        // Layout lints hold while the types' fingerprints do.
        let fingerprints = &layout.fingerprints[item.types.clone()];
        if item.lints.as_ref().is_none_or(|(fps, _)| fps != fingerprints) {
            let lints = item
                .types
                .clone()
                .filter_map(|id| check::layout_lint(&schema, &layout, id));
            item.lints = Some((fingerprints.to_vec(), lints.collect()));
        }
        diagnostics.extend(item.diags.iter().cloned());
        diagnostics.extend(item.lints.iter().flat_map(|(_, l)| l.iter().cloned()));
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end, d.severity));
    Analysis {
        tree,
        schema,
        layout,
        diagnostics,
        reuse: Some((text.to_string(), items)),
    }
}

impl Analysis {
    /// An analysis of nothing, to leave behind while the real one is moved into
    /// [`analyze_reusing`].
    pub fn placeholder(dialect: Dialect) -> Analysis {
        Analysis::empty(dialect, Vec::new())
    }

    fn empty(dialect: Dialect, diagnostics: Vec<Diagnostic>) -> Analysis {
        let schema = Schema {
            dialect,
            order: Default::default(),
            order_source: crate::model::OrderSource::Default,
            package: None,
            types: Vec::new(),
        };
        let layout = Layout::compute(&schema);
        Analysis {
            tree: None,
            schema,
            layout,
            diagnostics,
            reuse: None,
        }
    }
}
