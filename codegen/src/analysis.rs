//! One schema file, analysed: the tree, the model, every diagnostic, and the layout.

use tree_sitter::Tree;

use crate::check;
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::layout::Layout;
use crate::lower::{self, OrderChoice};
use crate::model::Schema;
use crate::syntax;

pub struct Analysis {
    pub tree: Option<Tree>,
    pub schema: Schema,
    pub layout: Layout,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
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

/// [`analyze`] after an edit: the layouts of types the edit did not affect are taken
/// over from `previous` (see [`Layout::compute_reusing`]). Same result, less work.
pub fn analyze_reusing(
    dialect: Dialect,
    text: &str,
    old: Option<&Tree>,
    order: OrderChoice,
    previous: Option<Layout>,
) -> Analysis {
    let tree = syntax::parse(dialect, text, old);
    let mut diagnostics = Vec::new();
    let (schema, lower_diags) = match &tree {
        Some(tree) => {
            diagnostics.extend(syntax::syntax_errors(dialect, tree, text));
            lower::lower(dialect, text, tree, order)
        }
        None => {
            diagnostics.push(Diagnostic::error(
                "SYNTAX",
                0..0,
                "internal error: the parser could not run",
            ));
            let empty = syntax::parse(dialect, "", None);
            match empty {
                Some(t) => lower::lower(dialect, "", &t, order),
                None => return Analysis::empty(dialect, diagnostics),
            }
        }
    };
    diagnostics.extend(lower_diags);
    diagnostics.extend(check::check(&schema, text.trim().is_empty()));
    let layout = Layout::compute_reusing(&schema, previous);
    diagnostics.extend(check::layout_lints(&schema, &layout));
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end, d.severity));
    Analysis {
        tree,
        schema,
        layout,
        diagnostics,
    }
}

impl Analysis {
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
        }
    }
}
