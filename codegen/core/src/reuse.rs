//! Reuse across edits. A keystroke changes one declaration of a file that may hold
//! thousands; everything the analysis derives from a declaration alone — its lowered
//! types, the lowering diagnostics, its own checks, its shape hash, its resolved
//! references (while no type name changes) and, while its layout is unchanged, its
//! layout lints — is taken over from the previous analysis when the declaration's text
//! is unchanged, instead of being computed again. Only the passes that look across
//! types (duplicates, unknown names, cycles, the layout of changed types and of what
//! depends on them) run every time.
//!
//! The unit is an [`Item`]: one top-level declaration together with the text before it
//! back to the previous declaration, because the comments and blank lines there decide
//! its docs. Two items with the same text lower to the same types, shifted by the
//! distance between them; only declarations the parser accepted without error are
//! reused (error recovery may depend on what follows). `tests/incremental.rs` and the
//! `reparse` fuzz target check that the result always equals an analysis that reuses
//! nothing.

use std::hash::{Hash, Hasher};
use std::ops::Range;

use rustc_hash::{FxHashMap, FxHasher};

use crate::diagnostic::Diagnostic;
use crate::model::{Names, TypeDef, TypeExpr, TypeExprKind, TypeKind};

/// One top-level declaration and what the analysis derived from it alone.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// From the end of the previous declaration to the end of this one.
    pub span: Range<usize>,
    /// Its types, as indices into `Schema::types`.
    pub types: Range<usize>,
    /// What lowering reported, then (once [`Item::checked`]) its own checks.
    pub diags: Vec<Diagnostic>,
    pub checked: bool,
    /// The [`crate::layout::shape_hash`] of each of its types, once checked.
    pub shapes: Vec<u64>,
    /// Whether a later analysis may take it over.
    pub reusable: bool,
    /// Its layout lints, valid while its types' layout fingerprints are these.
    pub lints: Option<(Vec<u64>, Vec<Diagnostic>)>,
}

impl Item {
    pub fn new(span: Range<usize>, types: Range<usize>, diags: Vec<Diagnostic>, reusable: bool) -> Item {
        Item {
            span,
            types,
            diags,
            checked: false,
            shapes: Vec::new(),
            reusable,
            lints: None,
        }
    }
}

/// Where a diagnostic of an analysis came from: the file as a whole, or one item's
/// own diagnostics or layout lints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    File,
    Item(usize),
    Lint(usize),
}

/// The previous analysis, taken apart for reuse: its text, its items and its types.
pub(crate) struct Memo {
    text: String,
    /// The name table the previous types were resolved against.
    names: Names,
    items: Vec<Option<Item>>,
    types: Vec<TypeDef>,
    /// The previous item after the last one taken: an edit leaves the items before and
    /// after it in order, so this is almost always the one asked for next.
    next: usize,
    misses: usize,
    /// Hash of an item's text → indices of its reusable items with that hash; built
    /// only when the guess fails (an item moved or was duplicated).
    by_hash: Option<FxHashMap<u64, Vec<usize>>>,
}

impl Memo {
    /// `diagnostics` and `origins` are the previous analysis' diagnostics and where each
    /// came from: the items' ones go back to their items (`None` if they do not match).
    pub fn new(
        text: String,
        mut items: Vec<Item>,
        types: Vec<TypeDef>,
        names: Names,
        diagnostics: Vec<Diagnostic>,
        origins: Vec<Origin>,
    ) -> Option<Memo> {
        if diagnostics.len() != origins.len() {
            return None;
        }
        for (d, origin) in diagnostics.into_iter().zip(origins) {
            match origin {
                Origin::File => {}
                Origin::Item(i) => items.get_mut(i)?.diags.push(d),
                Origin::Lint(i) => items.get_mut(i)?.lints.as_mut()?.1.push(d),
            }
        }
        Some(Memo {
            text,
            names,
            items: items.into_iter().map(Some).collect(),
            types,
            next: 0,
            misses: 0,
            by_hash: None,
        })
    }

    /// The previous item whose text equals `text[span]` (each is handed out once), its
    /// types moved from the previous schema to the end of `types`; everything is shifted
    /// to `span`.
    pub fn take(&mut self, text: &str, span: &Range<usize>, types: &mut Vec<TypeDef>) -> Option<Item> {
        let wanted = text.get(span.clone())?;
        // The usual cases: the item is where the last one ended, or right after the one
        // an edit changed or removed. Only when that fails twice (a paste, a moved
        // block) is it worth hashing every previous item to look the text up.
        let index = if self.text_of(self.next) == Some(wanted) {
            self.next
        } else if self.text_of(self.next + 1) == Some(wanted) {
            self.next + 1
        } else {
            self.misses += 1;
            if self.misses < 2 {
                return None;
            }
            self.find(wanted)?
        };
        self.next = index + 1;
        let old_types = self.types.get_mut(self.items.get(index)?.as_ref()?.types.clone())?;
        let mut item = self.items.get_mut(index)?.take()?;
        let delta = span.start as isize - item.span.start as isize;
        let start = types.len();
        for slot in old_types {
            let mut def = std::mem::replace(slot, placeholder());
            if delta != 0 {
                shift_def(&mut def, delta);
            }
            types.push(def);
        }
        item.span = span.clone();
        item.types = start..types.len();
        if delta != 0 {
            item.diags.iter_mut().for_each(|d| shift_diag(d, delta));
            if let Some((_, lints)) = &mut item.lints {
                lints.iter_mut().for_each(|d| shift_diag(d, delta));
            }
        }
        Some(item)
    }

    /// How many items and types the previous analysis had.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    pub fn take_names(&mut self) -> Names {
        std::mem::take(&mut self.names)
    }

    /// The text of previous item `index` if it is still there to take and reusable.
    fn text_of(&self, index: usize) -> Option<&str> {
        let item = self.items.get(index)?.as_ref().filter(|i| i.reusable)?;
        self.text.get(item.span.clone())
    }

    fn find(&mut self, wanted: &str) -> Option<usize> {
        let by_hash = self.by_hash.get_or_insert_with(|| {
            let mut map: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
            for (i, item) in self.items.iter().enumerate() {
                if let Some(t) = item
                    .as_ref()
                    .filter(|i| i.reusable)
                    .and_then(|i| self.text.get(i.span.clone()))
                {
                    map.entry(hash(t)).or_default().push(i);
                }
            }
            map
        });
        let candidates = by_hash.get(&hash(wanted))?;
        candidates
            .iter()
            .copied()
            .find(|&i| self.items[i].as_ref().and_then(|item| self.text.get(item.span.clone())) == Some(wanted))
    }
}

fn hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// What stays behind in the previous schema when a type is taken (allocates nothing).
fn placeholder() -> TypeDef {
    TypeDef {
        name: String::new(),
        name_range: 0..0,
        range: 0..0,
        docs: Vec::new(),
        kind: TypeKind::Struct {
            fields: Vec::new(),
            body_range: 0..0,
        },
    }
}

fn shift(r: &mut Range<usize>, delta: isize) {
    r.start = r.start.saturating_add_signed(delta);
    r.end = r.end.saturating_add_signed(delta);
}

fn shift_expr(t: &mut TypeExpr, delta: isize) {
    let mut cur = Some(t);
    while let Some(t) = cur {
        shift(&mut t.range, delta);
        cur = match &mut t.kind {
            TypeExprKind::Array(e) | TypeExprKind::Optional(e) | TypeExprKind::Boxed(e) => Some(e),
            TypeExprKind::Primitive(_) | TypeExprKind::Named { .. } | TypeExprKind::Invalid => None,
        };
    }
}

fn shift_def(def: &mut TypeDef, delta: isize) {
    shift(&mut def.name_range, delta);
    shift(&mut def.range, delta);
    match &mut def.kind {
        TypeKind::Struct { fields, body_range } => {
            shift(body_range, delta);
            for f in fields {
                shift(&mut f.name_range, delta);
                shift(&mut f.range, delta);
                shift_expr(&mut f.ty, delta);
            }
        }
        TypeKind::Alias { target, .. } => shift_expr(target, delta),
    }
}

fn shift_diag(d: &mut Diagnostic, delta: isize) {
    shift(&mut d.range, delta);
    d.related.iter_mut().for_each(|r| shift(&mut r.range, delta));
}
