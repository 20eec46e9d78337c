//! Fixed blocks: the constant-offset loads and stores of their leaves, and the
//! `_get`/`_put` of fixed-size structs used whole inside a parent's block. Fields that the
//! C struct lays out as the wire does are copied as one run ([`runs`]) — in structs coded
//! as array elements only, where the fallback text pays off.

use std::fmt::Write as _;

use super::names::{c_string, prim_short};
use super::plan::{BLeaf, Gen};
use crate::Code;
use wirelens_core::layout::LeafKind;
use wirelens_core::model::{Primitive, TypeId};
use wirelens_core::plan::{Step, TypePlan};

/// [`crate::member_runs`] of a block's leaves: gcc does not merge the separate loads and
/// stores of such a run itself (AudioUnit `Parameter`: 7 of each for 22 bytes); the
/// condition is [`Gen::run_cond`].
fn runs(leaves: &[BLeaf]) -> Vec<std::ops::Range<usize>> {
    crate::member_runs(leaves, |l| (run_size(l), l.path.as_slice(), l.at))
}

/// Size in bytes of a primitive leaf that [`runs`] may join, else `None`.
fn run_size(l: &BLeaf) -> Option<u64> {
    match l.kind {
        LeafKind::Prim(p) if !l.access.is_empty() => p.fixed_size(),
        _ => None,
    }
}

impl Gen<'_> {
    /// The runs of a block of `id` ([`runs`]), or each leaf alone when `id` is not only
    /// an array element.
    pub(super) fn runs(&self, id: TypeId, leaves: &[BLeaf]) -> Vec<std::ops::Range<usize>> {
        if self.elements.contains(&id) {
            runs(leaves)
        } else {
            (0..leaves.len()).map(|i| i..i + 1).collect()
        }
    }

    /// For a fixed-size struct: its plan's blocks as one run of leaves at constant offsets.
    pub(super) fn get_put(&self, c: &mut Code, p: &TypePlan) {
        let n = self.n.type_name(p.id);
        let leaves: Vec<BLeaf> = p
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::Block { block, .. } => block
                    .leaves
                    .iter()
                    .map(|l| (block.offset.constant().unwrap_or(0) + l.at, l))
                    .collect(),
                _ => Vec::new(),
            })
            .filter_map(|(at, l)| self.leaf(p.id, &l.path, l.kind, at).ok())
            .collect();
        c.blank();
        c.linef(format_args!("// Stores a {n} at p (inside a parent's fixed block)."));
        c.open(&format!("static void {n}_put(uint8_t *p, const {n} *v) {{"));
        for l in &leaves {
            self.put_leaf(c, "p", 0, "v", l);
        }
        c.close("}");
        c.blank();
        c.linef(format_args!(
            "// Loads a {n} from p, which is at input offset `off` (inside a parent's fixed block)."
        ));
        c.open(&format!(
            "static wl_status {n}_get(const uint8_t *p, size_t off, {n} *out, wl_error *err) {{"
        ));
        if !leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)))
        {
            c.line("(void)off;");
            c.line("(void)err;");
        }
        for l in &leaves {
            self.get_leaf(c, "p", "off", "err", l);
        }
        c.line("return WL_OK;");
        c.close("}");
    }

    pub(super) fn at(base: &str, at: u64) -> String {
        if at == 0 {
            base.to_string()
        } else {
            format!("{base} + {at}")
        }
    }

    pub(super) fn put_leaf(&self, c: &mut Code, p: &str, base: u64, v: &str, l: &BLeaf) {
        let at = Self::at(p, base + l.at);
        let place = Self::place(v, &l.access);
        match l.kind {
            LeafKind::Prim(pr) => c.linef(format_args!("wl_put_{}({at}, {place});", prim_short(pr))),
            LeafKind::Struct(s) => c.linef(format_args!("{}_put({at}, &{place});", self.n.type_name(s))),
        }
    }

    /// For a run of two or more leaves ([`runs`]): the C condition under which the C
    /// struct `ty` holds them exactly as the wire does (little-endian host, one-byte
    /// bools, each member at its wire distance from the first; a constant the compiler
    /// folds), the first leaf and the run's length in bytes.
    pub(super) fn run_cond<'l>(ty: &str, run: &'l [BLeaf]) -> Option<(String, &'l BLeaf, u64)> {
        let (first, last) = (run.first()?, run.last()?);
        if run.len() < 2 {
            return None;
        }
        let mut cond = String::from("WL_LITTLE_ENDIAN");
        if run.iter().any(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            cond.push_str(" && sizeof(bool) == 1");
        }
        for l in &run[1..] {
            let _ = write!(
                cond,
                " && WL_AT({ty}, {}, {}, {})",
                first.access,
                l.access,
                l.at - first.at
            );
        }
        Some((cond, first, last.at + run_size(last)? - first.at))
    }

    /// The bounds check of a bool leaf at p + at (`off`: p's input offset).
    pub(super) fn check_bool(&self, c: &mut Code, p: &str, off: &str, err: &str, l: &BLeaf) {
        c.linef(format_args!(
            "if ({p}[{}] > 1) {{ return wl_bad_bool({err}, {}, {p}[{}], {}); }}",
            l.at,
            Self::at(off, l.at),
            l.at,
            c_string(&l.json)
        ));
    }

    /// Loads a primitive leaf at p + at (a bool already checked).
    pub(super) fn load_leaf(&self, c: &mut Code, p: &str, l: &BLeaf) {
        let place = Self::place("out", &l.access);
        match l.kind {
            LeafKind::Prim(Primitive::Bool) => c.linef(format_args!("{place} = {p}[{}] != 0;", l.at)),
            LeafKind::Prim(pr) => c.linef(format_args!(
                "{place} = wl_get_{}({});",
                prim_short(pr),
                Self::at(p, l.at)
            )),
            LeafKind::Struct(_) => {}
        }
    }

    /// Loads a leaf at p + at; `off` is the input offset of p, `err` the wl_error.
    pub(super) fn get_leaf(&self, c: &mut Code, p: &str, off: &str, err: &str, l: &BLeaf) {
        let at = Self::at(p, l.at);
        let place = Self::place("out", &l.access);
        let json = c_string(&l.json);
        match l.kind {
            LeafKind::Prim(Primitive::Bool) => {
                self.check_bool(c, p, off, err, l);
                self.load_leaf(c, p, l);
            }
            LeafKind::Prim(_) => self.load_leaf(c, p, l),
            LeafKind::Struct(s) => c.linef(format_args!(
                "if ({}_get({at}, {}, &{place}, {err}) != WL_OK) {{ return wl_err_field({err}, {json}); }}",
                self.n.type_name(s),
                Self::at(off, l.at)
            )),
        }
    }
}
