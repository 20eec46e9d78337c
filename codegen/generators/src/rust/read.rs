//! The decoders: `read_from` of the owned type and of the view (each fixed block one
//! bounds check), the owned type's `read_into` (decoding into an existing value, its
//! storage reused), and the view's conversion to the owned value.

use super::names::{ident, prim_type};
use super::plan::{Ctx, Gen};
use crate::{Code, OwnedStrings};
use wirelens_core::layout::{FixedBlock, LeafKind, Wire};
use wirelens_core::model::Primitive;
use wirelens_core::plan::{Prefix, Step, TypePlan, Value};

impl Gen<'_> {
    pub(super) fn read_from(&self, c: &mut Code, p: &TypePlan, view: bool) {
        if self.opts.inline_elements && self.elements.get(p.id).copied().unwrap_or(false) {
            c.line("#[inline(always)]");
        }
        c.open("fn read_from(rd: &mut rt::Reader<'a>) -> Result<Self, rt::DecodeError> {");
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => self.read_block_step(c, p, b, &mut block),
                Step::Value { path, value } => {
                    let ctx = self.ctx(p.id, path);
                    self.read_value(c, &self.local(p.id, path), value, &ctx, 0, view);
                }
            }
        }
        if p.is_struct {
            let inits = self.literal_fields(p);
            let one_line = inits.join(", ");
            if one_line.len() <= 18 {
                c.linef(format_args!("Ok(Self {{ {one_line} }})"));
            } else {
                // Several fields per line, wrapped at 100 columns.
                c.open("Ok(Self {");
                let mut line = String::new();
                for i in &inits {
                    if !line.is_empty() && line.len() + i.len() + 2 + 4 * c.depth > 100 {
                        c.line(line.trim_end());
                        line.clear();
                    }
                    line.push_str(i);
                    line.push_str(", ");
                }
                c.line(line.trim_end());
                c.close("})");
            }
        } else {
            c.line("Ok(Self(f_0))");
        }
        c.close("}");
    }

    /// The `let`s of a fixed block's leaves (one bounds check for the block, or one read
    /// per leaf without `fixed_blocks`); `block` numbers the blocks of one function.
    fn read_block_step(&self, c: &mut Code, p: &TypePlan, b: &FixedBlock, block: &mut usize) {
        self.read_block_into(c, p, b, block, &|path| format!("let {}", self.local(p.id, path)));
    }

    /// [`Self::read_block_step`] with each leaf stored to `dest(path)` (`let local`, or a
    /// place of `read_into`).
    fn read_block_into(
        &self,
        c: &mut Code,
        p: &TypePlan,
        b: &FixedBlock,
        block: &mut usize,
        dest: &dyn Fn(&[usize]) -> String,
    ) {
        let single_prim = b.leaves.len() == 1 && matches!(b.leaves[0].kind, LeafKind::Prim(_));
        if !self.opts.fixed_blocks || single_prim {
            for l in &b.leaves {
                let me = Self::map_err(&self.ctx(p.id, &l.path));
                let expr = match l.kind {
                    LeafKind::Prim(q) => format!("rd.{}(){me}?", prim_type(q)),
                    LeafKind::Struct(id) => format!("{}::read_from(rd){me}?", self.name(id)),
                };
                c.linef(format_args!("{} = {expr};", dest(&l.path)));
            }
            return;
        }
        let name = format!("b{block}");
        let base = format!("base{block}");
        *block += 1;
        let needs_base = b
            .leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        if needs_base {
            c.linef(format_args!("let {base} = rd.position();"));
        }
        let first = b.leaves.first().map_or_else(Ctx::default, |l| self.ctx(p.id, &l.path));
        c.linef(format_args!(
            "let {name} = rd.fixed::<{}>(){}?;",
            b.size,
            Self::map_err(&first)
        ));
        for l in &b.leaves {
            let me = Self::map_err(&self.ctx(p.id, &l.path));
            let expr = self.get_leaf(&name, &l.at.to_string(), &base, l.kind, &me);
            c.linef(format_args!("{} = {expr};", dest(&l.path)));
        }
    }

    /// The owned type's `read_into`: the decode into an existing value, in place where the
    /// storage can be reused (strings, arrays and their elements, optionals' payloads,
    /// nested structs); fixed blocks are read as in `read_from` and assigned. Not emitted
    /// (the trait's fresh read stays) for a struct with nothing to reuse, or a plan whose
    /// values are not all top-level members.
    pub(super) fn read_into(&self, c: &mut Code, p: &TypePlan) {
        let place = |path: &[usize]| -> Option<String> {
            match path {
                [] if !p.is_struct => Some("self.0".to_string()),
                [i] if p.is_struct => self.field_names(p.id).get(*i).map(|n| format!("self.{}", ident(n))),
                _ => None,
            }
        };
        let paths = p.steps.iter().flat_map(|s| match s {
            Step::Block { block, .. } => block.leaves.iter().map(|l| l.path.clone()).collect(),
            Step::Value { path, .. } => vec![path.clone()],
        });
        // Nothing to reuse (only fixed-size members): the trait's fresh read is the same.
        let reuses = p.steps.iter().any(|s| match s {
            Step::Value { value, .. } => !matches!(value, Value::Prim(_)),
            Step::Block { .. } => false,
        });
        // A boxed field is read afresh too (the trait's default): deep chains only.
        if !reuses || self.boxed.any(p.id) || paths.clone().any(|path| place(&path).is_none()) {
            return;
        }
        c.line("#[inline]");
        c.open("fn read_into(&mut self, rd: &mut rt::Reader<'a>) -> Result<(), rt::DecodeError> {");
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => {
                    self.read_block_into(c, p, b, &mut block, &|path| place(path).unwrap_or_default());
                }
                Step::Value { path, value } => {
                    let to = place(path).unwrap_or_default();
                    self.read_value_into(c, &to, value, &self.ctx(p.id, path), 0);
                }
            }
        }
        c.line("Ok(())");
        c.close("}");
    }

    /// Reads `v` into the owned place `to` (`self.field`, or `*x` of a `&mut` binding),
    /// reusing its storage.
    fn read_value_into(&self, c: &mut Code, to: &str, v: &Value, ctx: &Ctx, d: usize) {
        let me = Self::map_err(ctx);
        let (by_ref, recv) = Self::place_refs(to);
        match v {
            Value::Str(pre) => {
                let kind = match self.opts.strings {
                    OwnedStrings::Std => "string",
                    OwnedStrings::Compact => "compact",
                };
                c.linef(format_args!("rd.{kind}{}_into({by_ref}){me}?;", pre.bits()));
            }
            Value::BulkPrims(pre, q) if self.opts.bulk_arrays => {
                let t = prim_type(*q);
                c.linef(format_args!("rd.prims{}_into::<{t}>({by_ref}){me}?;", pre.bits()));
            }
            Value::Struct { .. } => c.linef(format_args!("rt::Decode::read_into({by_ref}, rd){me}?;")),
            Value::BulkPrims(pre, q) => {
                let elem = Value::Prim(*q);
                self.read_array_into(c, to, pre, &elem, q.fixed_size().unwrap_or(1), ctx, d);
            }
            Value::Array { prefix, elem, elem_min } => {
                self.read_array_into(c, to, prefix, elem, *elem_min, ctx, d);
            }
            Value::Optional(e) => {
                let x = format!("x{d}");
                c.open(&format!("if rd.presence(){me}? {{"));
                c.open(&format!("if let Some({x}) = {recv}.as_mut() {{"));
                self.read_value_into(c, &format!("*{x}"), e, ctx, d + 1);
                c.close("} else {");
                c.depth += 1;
                self.read_value(c, &x, e, ctx, d + 1, false);
                c.linef(format_args!("{to} = Some({x});"));
                c.close("}");
                c.close("} else {");
                c.depth += 1;
                c.linef(format_args!("{to} = None;"));
                c.close("}");
            }
            Value::Prim(_) => {
                if let Some(e) = self.simple_read(v, ctx, false) {
                    c.linef(format_args!("{to} = {e};"));
                }
            }
        }
    }

    /// A place's `&mut` and method receiver: `&mut self.f` / `self.f`, or for `*x` (a
    /// `&mut` binding) `x` / `x`.
    fn place_refs(to: &str) -> (String, String) {
        match to.strip_prefix('*') {
            Some(binding) => (binding.to_string(), binding.to_string()),
            None => (format!("&mut {to}"), to.to_string()),
        }
    }

    /// An array read into the `Vec` at `to`: the elements it keeps are read into, the
    /// others read and pushed.
    #[allow(clippy::too_many_arguments)]
    fn read_array_into(&self, c: &mut Code, to: &str, pre: &Prefix, elem: &Value, min: u64, ctx: &Ctx, d: usize) {
        let me = Self::map_err(ctx);
        let bits = pre.bits();
        let inner = ctx.in_element(format!("i{d}"));
        let x = format!("x{d}");
        c.linef(format_args!("let n{d} = rd.count{bits}({min}){me}?;"));
        let (by_ref, recv) = Self::place_refs(to);
        c.linef(format_args!("rd.vec_into({by_ref}, n{d}){me}?;"));
        c.open(&format!("for i{d} in 0..n{d} {{"));
        c.open(&format!("if let Some({x}) = {recv}.get_mut(i{d}) {{"));
        self.read_value_into(c, &format!("*{x}"), elem, &inner, d + 1);
        c.close("} else {");
        c.depth += 1;
        self.read_value(c, &x, elem, &inner, d + 1, false);
        c.linef(format_args!("{recv}.push({x});"));
        c.close("}");
        c.close("}");
    }

    /// `field: local` for every field of the struct planned by `p`.
    fn literal_fields(&self, p: &TypePlan) -> Vec<String> {
        let names = self.field_names(p.id);
        let Some(t) = self.layout.get(p.id) else {
            return Vec::new();
        };
        t.fields
            .iter()
            .map(|f| {
                let value = self.rebox(p.id, f.decl_index, self.local(p.id, &[f.decl_index]));
                let field = ident(&names[f.decl_index]);
                if value == field {
                    field
                } else {
                    format!("{field}: {value}")
                }
            })
            .collect()
    }

    /// A single-expression read, when there is one.
    fn simple_read(&self, v: &Value, ctx: &Ctx, view: bool) -> Option<String> {
        let me = Self::map_err(ctx);
        Some(match v {
            Value::Str(pre) if view => format!("rd.str{}(){me}?", pre.bits()),
            Value::Str(pre) => match self.opts.strings {
                OwnedStrings::Std => format!("rd.string{}(){me}?", pre.bits()),
                OwnedStrings::Compact => format!("rd.compact{}(){me}?", pre.bits()),
            },
            Value::Prim(p) => format!("rd.{}(){me}?", prim_type(*p)),
            Value::BulkPrims(pre, p) if view || self.opts.bulk_arrays => {
                let t = prim_type(*p);
                let n = pre.bits();
                if view {
                    format!("rd.prims{n}::<{t}>(){me}?")
                } else {
                    format!("rd.prims{n}_vec::<{t}>(){me}?")
                }
            }
            Value::Struct { id, .. } => {
                if view && self.borrows(&Wire::Struct(*id)) {
                    format!("{}::read_from(rd){me}?", self.view_name(*id))
                } else {
                    format!("{}::read_from(rd){me}?", self.name(*id))
                }
            }
            Value::BulkPrims(..) | Value::Array { .. } | Value::Optional(_) => return None,
        })
    }

    fn read_value(&self, c: &mut Code, var: &str, v: &Value, ctx: &Ctx, d: usize, view: bool) {
        if let Some(e) = self.simple_read(v, ctx, view) {
            c.linef(format_args!("let {var} = {e};"));
            return;
        }
        let me = Self::map_err(ctx);
        let array = |c: &mut Code, pre: &Prefix, elem: &Value, min: u64| {
            c.linef(format_args!("let n{d} = rd.count{}({min}){me}?;", pre.bits()));
            let inner_ctx = ctx.in_element(format!("i{d}"));
            if view && self.arena() {
                // Built in place in the arena: `fill` calls the closure per element.
                c.open(&format!("let {var} = rd.slots(n{d}){me}?.fill(|i{d}| {{"));
                match self.simple_read(elem, &inner_ctx, view) {
                    Some(expr) => c.line(expr.strip_suffix('?').unwrap_or(&expr)),
                    None => {
                        let x = format!("x{d}");
                        self.read_value(c, &x, elem, &inner_ctx, d + 1, view);
                        c.linef(format_args!("Ok({x})"));
                    }
                }
                c.close("})?;");
                return;
            }
            c.linef(format_args!("let mut {var} = rd.vec(n{d}){me}?;"));
            c.open(&format!("for i{d} in 0..n{d} {{"));
            match self.simple_read(elem, &inner_ctx, view) {
                Some(expr) => c.linef(format_args!("{var}.push({expr});")),
                None => {
                    let x = format!("x{d}");
                    self.read_value(c, &x, elem, &inner_ctx, d + 1, view);
                    c.linef(format_args!("{var}.push({x});"));
                }
            }
            c.close("}");
        };
        match v {
            Value::BulkPrims(pre, p) => array(c, pre, &Value::Prim(*p), p.fixed_size().unwrap_or(1)),
            Value::Array { prefix, elem, elem_min } => array(c, prefix, elem, *elem_min),
            Value::Optional(e) => {
                c.open(&format!("let {var} = if rd.presence(){me}? {{"));
                match self.simple_read(e, ctx, view) {
                    Some(expr) => c.linef(format_args!("Some({expr})")),
                    None => {
                        let x = format!("x{d}");
                        self.read_value(c, &x, e, ctx, d + 1, view);
                        c.linef(format_args!("Some({x})"));
                    }
                }
                c.close("} else {");
                c.depth += 1;
                c.line("None");
                c.close("};");
            }
            _ => {}
        }
    }

    /// View → owned conversion of one value.
    pub(super) fn conv(&self, place: &str, is_ref: bool, w: &Wire, d: usize) -> String {
        let by_val = if is_ref { format!("*{place}") } else { place.to_string() };
        if !self.borrows(w) || self.view_ty(w) == self.owned_ty(w) {
            let copy = match w {
                Wire::Prim(_) => true,
                Wire::Optional(e) => matches!(&**e, Wire::Prim(_)),
                _ => false,
            };
            return if copy { by_val } else { format!("{place}.clone()") };
        }
        match w {
            Wire::Prim(_) => format!("{}::from({by_val})", self.string_ty()),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("{place}.to_vec()"),
                e if !self.borrows(e) => format!("{place}.to_vec()"),
                e => {
                    let x = format!("x{d}");
                    format!("{place}.iter().map(|{x}| {}).collect()", self.conv(&x, true, e, d + 1))
                }
            },
            Wire::Optional(e) => match &**e {
                Wire::Prim(_) => format!("({by_val}).map({}::from)", self.string_ty()),
                e => {
                    let x = format!("x{d}");
                    format!("{place}.as_ref().map(|{x}| {})", self.conv(&x, true, e, d + 1))
                }
            },
            Wire::Struct(_) => format!("{place}.to_owned_value()"),
        }
    }
}
