//! `write_to`: the fields in the order [`wirelens_core::layout`] gives, each fixed block
//! one stack buffer and one append, primitive arrays appended in bulk.

use super::plan::Gen;
use crate::Code;
use wirelens_core::layout::LeafKind;
use wirelens_core::plan::{Step, TypePlan, Value};

impl Gen<'_> {
    pub(super) fn write_to(&self, c: &mut Code, p: &TypePlan) {
        // The writer goes in and out by value (two registers), so it is not reloaded from
        // memory after every output store; a struct with nothing to write leaves it as is.
        let w = if p.steps.is_empty() { "w" } else { "mut w" };
        if self.opts.inline_elements && self.elements.get(p.id).copied().unwrap_or(false) {
            c.line("#[inline(always)]");
        }
        c.open(&format!(
            "fn write_to<'w>(&self, {w}: rt::Writer<'w>) -> rt::Written<'w> {{"
        ));
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => {
                    let single_prim = b.leaves.len() == 1 && matches!(b.leaves[0].kind, LeafKind::Prim(_));
                    if !self.opts.fixed_blocks || single_prim {
                        for l in &b.leaves {
                            let place = format!("self.{}", self.access(p.id, &l.path));
                            match l.kind {
                                LeafKind::Prim(_) => c.linef(format_args!("w.put_prim({place});")),
                                LeafKind::Struct(_) => c.linef(format_args!("w = {place}.write_to(w)?;")),
                            }
                        }
                        continue;
                    }
                    let name = format!("b{block}");
                    block += 1;
                    c.linef(format_args!("let mut {name} = [0u8; {}];", b.size));
                    for l in &b.leaves {
                        let place = format!("self.{}", self.access(p.id, &l.path));
                        self.put_leaf(c, &format!("&mut {name}"), &l.at.to_string(), &place, l.kind);
                    }
                    c.linef(format_args!("w.put(&{name});"));
                }
                Step::Value { path, value } => {
                    self.write_value(c, &format!("self.{}", self.access(p.id, path)), false, value, 0)
                }
            }
        }
        c.line("Ok(w)");
        c.close("}");
        c.blank();
    }

    fn write_value(&self, c: &mut Code, place: &str, is_ref: bool, v: &Value, d: usize) {
        let by_ref = if is_ref { place.to_string() } else { format!("&{place}") };
        let by_val = if is_ref { format!("*{place}") } else { place.to_string() };
        match v {
            Value::Str(pre) => c.linef(format_args!("w.str{}({by_ref})?;", pre.bits())),
            Value::Prim(_) => c.linef(format_args!("w.put_prim({by_val});")),
            // The count and the elements with one room check.
            Value::BulkPrims(pre, _) if self.opts.bulk_arrays => {
                c.linef(format_args!("w.prims{}({place}.as_slice())?;", pre.bits()));
            }
            Value::BulkPrims(pre, p) => {
                c.linef(format_args!("w.len{}({place}.len())?;", pre.bits()));
                let x = format!("x{d}");
                c.open(&format!("for {x} in {by_ref} {{"));
                self.write_value(c, &x, true, &Value::Prim(*p), d + 1);
                c.close("}");
            }
            Value::Array { prefix, elem, .. } => {
                c.linef(format_args!("w.len{}({place}.len())?;", prefix.bits()));
                let x = format!("x{d}");
                c.open(&format!("for {x} in {by_ref} {{"));
                self.write_value(c, &x, true, elem, d + 1);
                c.close("}");
            }
            Value::Optional(e) => {
                let x = format!("x{d}");
                if matches!(&**e, Value::Prim(_)) {
                    c.open(&format!("if let Some({x}) = {by_val} {{"));
                    c.line("w.put_u8(1);");
                    self.write_value(c, &x, false, e, d + 1);
                } else {
                    c.open(&format!("if let Some({x}) = {by_ref} {{"));
                    c.line("w.put_u8(1);");
                    self.write_value(c, &x, true, e, d + 1);
                }
                c.close("} else {");
                c.depth += 1;
                c.line("w.put_u8(0);");
                c.close("}");
            }
            Value::Struct { .. } => c.linef(format_args!("w = {place}.write_to(w)?;")),
        }
    }
}
