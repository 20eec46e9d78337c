//! Fixed blocks: one bounds check and little-endian loads/stores (`std::memcpy`) at the
//! leaves' offsets; the `write_block` / `read_block` of fixed-size structs inside a
//! parent's block; runs of members that the struct lays out as the wire does, copied as
//! one under `offsetof` ([`runs`]); and the fixed-size struct whose `write_to` /
//! `read_from` are its block functions at the cursor ([`Gen::one_block`]).

use super::plan::Gen;
use crate::Code;
use wirelens_core::layout::{Leaf, LeafKind};
use wirelens_core::model::{Primitive, TypeId};
use wirelens_core::plan::{Step, TypePlan, Value};

/// [`crate::member_runs`] of a block's leaves, members of the struct itself only (not of a
/// nested one); stored with one copy under `offsetof` (see `Gen::write_to`), as the C
/// generator does.
fn runs(leaves: &[Leaf]) -> Vec<std::ops::Range<usize>> {
    crate::member_runs(leaves, |l| {
        let size = match l.kind {
            LeafKind::Prim(p) if l.path.len() == 1 => p.fixed_size(),
            _ => None,
        };
        (size, l.path.as_slice(), l.at)
    })
}

/// The address `at` bytes into block `b` (`b` itself at 0).
fn at_in(b: &str, at: u64) -> String {
    if at == 0 {
        b.to_string()
    } else {
        format!("{b} + {at}")
    }
}

impl Gen<'_> {
    /// A fixed-size struct whose plan is one block of its own fields: its write_to and
    /// read_from are its write_block / read_block at the cursor (same stores, loads and
    /// error paths), not second copies of those bodies (#13: generated size).
    pub(super) fn one_block(p: &TypePlan) -> Option<u64> {
        if p.size.fixed.is_none() || !p.is_struct {
            return None;
        }
        match p.steps.as_slice() {
            [Step::Block { block, .. }]
                if !block.leaves.is_empty() && block.leaves.iter().all(|l| l.path.len() == 1) =>
            {
                Some(block.size)
            }
            _ => None,
        }
    }

    /// The runs of a block of `id` ([`runs`]) where `allowed` and `id` is only an array
    /// element, else each leaf alone.
    pub(super) fn runs(&self, id: TypeId, leaves: &[Leaf], allowed: bool) -> Vec<std::ops::Range<usize>> {
        if allowed && self.uses.get(id).is_some_and(|u| u.only_as_elements()) {
            runs(leaves)
        } else {
            (0..leaves.len()).map(|i| i..i + 1).collect()
        }
    }

    /// Declares `constexpr size_t rN`: where run `run` (two or more leaves) starts in the
    /// struct type `ty` when `offsetof` confirms it holds the run as the wire does, else
    /// `wirelens::no_run`. Returns `rN`.
    fn run_start(&self, c: &mut Code, ty: &str, id: TypeId, run: &[Leaf], rn: &mut usize) -> String {
        let member = |l: &Leaf| self.place(id, &l.path).access.trim_start_matches('.').to_string();
        let first_at = run.first().map_or(0, |l| l.at);
        let mut cond = Vec::new();
        if run.iter().any(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            cond.push("sizeof(bool) == 1".to_string());
        }
        for l in run.iter().skip(1) {
            cond.push(format!("offsetof(T, {}) == a + {}", member(l), l.at - first_at));
        }
        let r = format!("r{rn}");
        *rn += 1;
        c.open(&format!(
            "constexpr size_t {r} = wirelens::run_start<{ty}>([](auto t) {{"
        ));
        c.line("using T = typename decltype(t)::type;");
        if let Some(first) = run.first() {
            c.linef(format_args!("const size_t a = offsetof(T, {});", member(first)));
        }
        c.linef(format_args!("return {} ? a : wirelens::no_run;", cond.join(" && ")));
        c.close("});");
        r
    }

    /// Stores leaves of block `b`: a run of two or more ([`runs`]) with one copy of the
    /// members when `offsetof` confirms the struct holds them as the wire does (a constant;
    /// the field-by-field stores are the fallback, e.g. another ABI or a big-endian host).
    pub(super) fn store_run(&self, c: &mut Code, b: &str, name: &str, id: TypeId, run: &[Leaf], rn: &mut usize) {
        let each = |c: &mut Code| {
            for leaf in run {
                let place = self.place(id, &leaf.path);
                self.store(c, b, leaf.at, &format!("v{}", place.access), leaf.kind);
            }
        };
        let (Some(first), Some(last), true) = (run.first(), run.last(), run.len() > 1) else {
            return each(c);
        };
        let r = self.run_start(c, name, id, run, rn);
        c.open(&format!("if constexpr ({r} != wirelens::no_run) {{"));
        c.linef(format_args!(
            "wirelens::store_run({}, v, {r}, {});",
            at_in(b, first.at),
            last.at + last.size - first.at
        ));
        c.close("} else {");
        c.depth += 1;
        each(c);
        c.close("}");
    }

    fn store(&self, c: &mut Code, b: &str, at: u64, place: &str, kind: LeafKind) {
        let off = at_in(b, at);
        match kind {
            // The member's type is the primitive's: store_le deduces it.
            LeafKind::Prim(_) => c.linef(format_args!("wirelens::store_le({off}, {place});")),
            LeafKind::Struct(id) => c.linef(format_args!("{}::write_block({off}, {place});", self.name(id))),
        }
    }

    /// Fixed-size structs: store / load the whole value inside a parent's block, at the
    /// offsets of the plan's leaves.
    pub(super) fn block_fns(&self, c: &mut Code, name: &str, p: &TypePlan) {
        // (offset inside the value, place, leaf kind), from the plan's steps in order.
        let mut leaves = Vec::new();
        let mut at = 0;
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => {
                    for l in &block.leaves {
                        leaves.push((at + l.at, self.place(p.id, &l.path), l.kind));
                    }
                    at += block.size;
                }
                // A fixed value the layout left outside every block.
                Step::Value { path, value } => {
                    let kind = match value {
                        Value::Prim(p) => Some(LeafKind::Prim(*p)),
                        Value::Struct { id, .. } => Some(LeafKind::Struct(*id)),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        leaves.push((at, self.place(p.id, path), kind));
                    }
                    at += value.fixed_size().unwrap_or(0);
                }
            }
        }
        let (b, v) = if leaves.is_empty() {
            ("/*b*/", "/*v*/")
        } else {
            ("b", "v")
        };
        c.open(&format!(
            "inline void {name}::write_block(uint8_t* {b}, const {name}& {v}) {{"
        ));
        for (at, place, kind) in &leaves {
            self.store(c, "b", *at, &format!("v{}", place.access), *kind);
        }
        c.close("}");
        c.blank();
        let needs_rd = leaves
            .iter()
            .any(|(_, _, k)| matches!(k, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        let rd = if needs_rd { "rd" } else { "/*rd*/" };
        c.open(&format!(
            "inline bool {name}::read_block(wirelens::Reader& {rd}, const uint8_t* {b}, {name}& {v}) {{"
        ));
        for (at, place, kind) in &leaves {
            // Inside a parent's block the error path is the parent's field: name only this level.
            let names: Vec<String> = place.names.iter().take(1).cloned().collect();
            self.load(c, "b", *at, &format!("v{}", place.access), *kind, &names);
        }
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    /// Loads leaves of block `b` into `v` (of template type `V`, owned or view): a run of
    /// two or more ([`runs`]) has its bools checked first, in wire order, then one copy when
    /// `offsetof` confirms `V` holds it as the wire does (as [`Gen::store_run`]).
    pub(super) fn load_run(&self, c: &mut Code, b: &str, id: TypeId, run: &[Leaf], rn: &mut usize) {
        let each = |c: &mut Code, checked: bool| {
            for leaf in run {
                let place = self.place(id, &leaf.path);
                let place_v = format!("v{}", place.access);
                if checked && leaf.kind == LeafKind::Prim(Primitive::Bool) {
                    c.linef(format_args!("wirelens::load_le({}, {place_v});", at_in(b, leaf.at)));
                } else {
                    self.load(c, b, leaf.at, &place_v, leaf.kind, &place.names);
                }
            }
        };
        let (Some(first), Some(last), true) = (run.first(), run.last(), run.len() > 1) else {
            return each(c, false);
        };
        for l in run.iter().filter(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            let place = self.place(id, &l.path);
            c.linef(format_args!(
                "if (!rd.block_bool_ok({})) {}",
                at_in(b, l.at),
                Self::err(&place.names, "")
            ));
        }
        let r = self.run_start(c, "Wl_V", id, run, rn);
        c.open(&format!("if constexpr ({r} != wirelens::no_run) {{"));
        c.linef(format_args!(
            "wirelens::load_run({}, v, {r}, {});",
            at_in(b, first.at),
            last.at + last.size - first.at
        ));
        c.close("} else {");
        c.depth += 1;
        each(c, true);
        c.close("}");
    }

    /// Loads a fixed-size leaf at `at` inside block `b`.
    fn load(&self, c: &mut Code, b: &str, at: u64, place: &str, kind: LeafKind, names: &[String]) {
        let off = at_in(b, at);
        let err = Self::err(names, "");
        match kind {
            LeafKind::Prim(Primitive::Bool) => c.linef(format_args!("if (!rd.block_bool({off}, {place})) {err}")),
            LeafKind::Prim(_) => c.linef(format_args!("wirelens::load_le({off}, {place});")),
            LeafKind::Struct(id) => c.linef(format_args!(
                "if (!{}::read_block(rd, {off}, {place})) {err}",
                self.name(id)
            )),
        }
    }
}
