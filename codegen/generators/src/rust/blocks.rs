//! Fixed blocks: consecutive fixed-size fields (nested fixed structs included) are one
//! block — one bounds check and one copy — whose leaves are stored and loaded at constant
//! offsets; a fixed-size struct gets `write_block` / `read_block` to be coded inside a
//! parent's block.

use super::names::prim_type;
use super::plan::Gen;
use crate::Code;
use wirelens_core::layout::{Leaf, LeafKind};
use wirelens_core::model::Primitive;
use wirelens_core::plan::{Step, TypePlan};

impl Gen<'_> {
    /// Stores a fixed-size leaf at `at` in block `b`.
    pub(super) fn put_leaf(&self, c: &mut Code, b: &str, at: &str, place: &str, kind: LeafKind) {
        match kind {
            LeafKind::Prim(p) => {
                let f = prim_type(p);
                c.linef(format_args!("rt::le::put_{f}({b}, {at}, {place});"));
            }
            LeafKind::Struct(_) => c.linef(format_args!("{place}.write_block({b}, {at});")),
        }
    }

    /// Fixed-size structs: read/write the whole value inside a parent's fixed block, at
    /// the leaf offsets of the plan's single block.
    pub(super) fn block_fns(&self, c: &mut Code, p: &TypePlan) {
        let leaves: Vec<&Leaf> = p
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::Block { block, .. } => block.leaves.iter().collect(),
                _ => Vec::new(),
            })
            .collect();
        let off = |at: u64| {
            if at == 0 {
                "at".to_string()
            } else {
                format!("at + {at}")
            }
        };
        c.line("/// Writes this fixed-size value at `at` inside a fixed block.");
        c.line("#[inline]");
        c.open("pub fn write_block(&self, b: &mut [u8], at: usize) {");
        for l in &leaves {
            let place = format!("self.{}", self.access(p.id, &l.path));
            self.put_leaf(c, "b", &off(l.at), &place, l.kind);
        }
        c.close("}");
        c.blank();
        c.line("/// Reads this fixed-size value at `at` inside a fixed block that starts at input offset `base`.");
        c.line("#[inline]");
        let needs_base = leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        let base = if needs_base { "base" } else { "_base" };
        c.open(&format!(
            "pub fn read_block(b: &[u8], at: usize, {base}: usize) -> Result<Self, rt::DecodeError> {{"
        ));
        let mut inits = Vec::new();
        for l in &leaves {
            let me = Self::map_err(&self.ctx(p.id, &l.path));
            let mut expr = self.get_leaf("b", &off(l.at), "base", l.kind, &me);
            if let [i] = l.path.as_slice() {
                expr = self.rebox(p.id, *i, expr);
            }
            inits.push(format!("{}: {expr},", self.access(p.id, &l.path)));
        }
        c.open("Ok(Self {");
        for i in inits {
            c.line(&i);
        }
        c.close("})");
        c.close("}");
        c.blank();
    }

    /// Loads a fixed-size leaf at `at` of block `b` (input offset `base`).
    pub(super) fn get_leaf(&self, b: &str, at: &str, base: &str, kind: LeafKind, me: &str) -> String {
        match kind {
            LeafKind::Prim(Primitive::Bool) => format!("rt::le::get_bool({b}, {at}, {base}){me}?"),
            LeafKind::Prim(p) => format!("rt::le::get_{}({b}, {at})", prim_type(p)),
            LeafKind::Struct(id) => format!("{}::read_block({b}, {at}, {base}){me}?", self.name(id)),
        }
    }
}
