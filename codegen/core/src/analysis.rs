//! One schema file, analysed: the tree, the model, every diagnostic, and the layout.

use tree_sitter::Tree;

use crate::check;
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::layout::{shape_hash, Layout};
use crate::lower::{self, OrderChoice};
use crate::model::{Names, Schema};
use crate::reuse::{Item, Memo, Origin};
use crate::syntax;

/// Cloning copies the model and what a later [`analyze_reusing`] reuses (the tree is
/// shared): milliseconds, where analysing the text again takes hundreds at 5,000 structs.
#[derive(Clone)]
pub struct Analysis {
    pub tree: Option<Tree>,
    pub schema: Schema,
    pub layout: Layout,
    /// Sorted by position. Read only: [`analyze_reusing`] hands them back to the
    /// declarations they came from.
    pub diagnostics: Vec<Diagnostic>,
    /// For [`analyze_reusing`] after an edit: the analysed text, its declarations, and
    /// for each diagnostic which declaration it belongs to (see [`Memo::new`]).
    reuse: Option<Reuse>,
}

#[derive(Clone)]
struct Reuse {
    text: String,
    items: Vec<Item>,
    names: Names,
    origins: Vec<Origin>,
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
            p.reuse
                .and_then(|r| Memo::new(r.text, r.items, p.schema.types, r.names, p.diagnostics, r.origins)),
        ),
        None => (None, None),
    };
    let mut diagnostics = Vec::new();
    let (schema, file_diags, mut items, names) = match &tree {
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
    let mut shapes = Vec::with_capacity(schema.types.len());
    for item in &mut items {
        if !item.checked {
            for def in &schema.types[item.types.clone()] {
                item.diags.extend(check::check_type(dialect, def));
                item.shapes.push(shape_hash(def));
            }
            item.checked = true;
        }
        shapes.extend_from_slice(&item.shapes);
    }
    if shapes.len() != schema.types.len() {
        shapes.clear(); // every type comes from one item; if not, compute them afresh
    }
    let layout = Layout::compute_reusing(&schema, &graph, &shapes, previous_layout);
    for item in &mut items {
        // Layout lints hold while the types' fingerprints do.
        let fingerprints = &layout.fingerprints[item.types.clone()];
        if item.lints.as_ref().is_none_or(|(fps, _)| fps != fingerprints) {
            let lints = item
                .types
                .clone()
                .filter_map(|id| check::layout_lint(&schema, &layout, id));
            item.lints = Some((fingerprints.to_vec(), lints.collect()));
        }
    }
    // The items' diagnostics are moved, not copied, into the sorted list, each tagged
    // with its item so that the next analysis can hand them back (`Memo::new`).
    let mut tagged: Vec<(Diagnostic, Origin)> = Vec::with_capacity(
        diagnostics.len()
            + items
                .iter()
                .map(|i| i.diags.len() + i.lints.as_ref().map_or(0, |l| l.1.len()))
                .sum::<usize>(),
    );
    tagged.extend(diagnostics.into_iter().map(|d| (d, Origin::File)));
    for (index, item) in items.iter_mut().enumerate() {
        tagged.extend(item.diags.drain(..).map(|d| (d, Origin::Item(index))));
        if let Some((_, lints)) = &mut item.lints {
            tagged.extend(lints.drain(..).map(|d| (d, Origin::Lint(index))));
        }
    }
    let (diagnostics, origins) = sort_by_position(tagged);
    Analysis {
        tree,
        schema,
        layout,
        diagnostics,
        reuse: Some(Reuse {
            text: text.to_string(),
            items,
            names,
            origins,
        }),
    }
}

/// Sorts by position (start, end, severity), keeping the given order among equals.
/// The order is found on small keys, then each (large) diagnostic moves once.
fn sort_by_position(tagged: Vec<(Diagnostic, Origin)>) -> (Vec<Diagnostic>, Vec<Origin>) {
    let mut keys: Vec<(usize, usize, crate::Severity, usize)> = tagged
        .iter()
        .enumerate()
        .map(|(i, (d, _))| (d.range.start, d.range.end, d.severity, i))
        .collect();
    keys.sort_unstable();
    let mut slots: Vec<Option<(Diagnostic, Origin)>> = tagged.into_iter().map(Some).collect();
    // Sized up front: an SDP file can carry a lint per struct, thousands per keystroke.
    let mut diagnostics = Vec::with_capacity(keys.len());
    let mut origins = Vec::with_capacity(keys.len());
    for (d, o) in keys.iter().filter_map(|k| slots[k.3].take()) {
        diagnostics.push(d);
        origins.push(o);
    }
    (diagnostics, origins)
}

impl Analysis {
    /// Its model, layout and diagnostics, without the tree and what [`analyze_reusing`]
    /// would reuse: for comparing later versions against (a wire baseline whose text is
    /// the open document's). Milliseconds, where analysing the same text again takes
    /// hundreds on a 5,000-struct schema.
    pub fn model_copy(&self) -> Analysis {
        Analysis {
            tree: None,
            schema: self.schema.clone(),
            layout: self.layout.clone(),
            diagnostics: self.diagnostics.clone(),
            reuse: None,
        }
    }

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
