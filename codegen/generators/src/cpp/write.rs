//! `T::write_to`: each step of the type's plan in order, fixed blocks through
//! `wirelens::Writer::block`, bulk primitive arrays copied in bulk on little-endian hosts.

use super::names::prim_type;
use super::plan::Gen;
use crate::Code;
use wirelens_core::plan::{Step, TypePlan, Value};

impl Gen<'_> {
    pub(super) fn write_to(&self, c: &mut Code, name: &str, p: &TypePlan) {
        // Written from one place only: inlined there, as gcc does with a C `static`
        // function called once (an `inline` C++ function may have callers in other
        // translation units, so g++ -O2 kept AudioUnit's Parameter::write_to out of the
        // array loop: a call and a six-register prologue per element, 1.6x the encode).
        // Inlining adds no code, since there is no second caller in the schema.
        // Only with two or more variable-size values: a smaller write_to (array_struct's
        // Device: one string) g++ inlines by itself, and forcing it there reordered the
        // copy's branches (3 % slower).
        let values = p.steps.iter().filter(|s| matches!(s, Step::Value { .. })).count();
        let inl = if values >= 2 && self.uses.get(p.id).is_some_and(|u| u.count == 1) {
            "WIRELENS_HOT"
        } else {
            "inline"
        };
        c.open(&format!(
            "{inl} bool {name}::write_to(wirelens::Writer& out, const {name}& v) {{"
        ));
        if let Some(size) = Self::one_block(p) {
            c.linef(format_args!("write_block(out.block({size}), v);"));
            c.line("return true;");
            c.close("}");
            c.blank();
            return;
        }
        // The cursor in a register, not reloaded after every store (see wirelens::Writer).
        c.line("wirelens::Writer w = out;");
        let mut k = 0;
        let mut bn = 0;
        let mut rn = 0;
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => {
                    if block.leaves.is_empty() {
                        continue;
                    }
                    let bv = format!("b{bn}");
                    bn += 1;
                    c.linef(format_args!("uint8_t* {bv} = w.block({});", block.size));
                    for r in self.runs(p.id, &block.leaves, true) {
                        self.store_run(c, &bv, name, p.id, &block.leaves[r], &mut rn);
                    }
                }
                Step::Value { path, value } => {
                    let place = self.place(p.id, path);
                    self.write_value(c, &format!("v{}", place.access), value, &mut k);
                }
            }
        }
        c.line("out = w;");
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    fn write_value(&self, c: &mut Code, place: &str, value: &Value, k: &mut usize) {
        match value {
            Value::Str(pre) => c.linef(format_args!("if (!w.str{}({place})) return false;", pre.bits())),
            Value::Prim(p) => c.linef(format_args!("w.prim<{}>({place});", prim_type(*p))),
            Value::BulkPrims(pre, _) => c.linef(format_args!("if (!w.prims{}({place})) return false;", pre.bits())),
            Value::Array { prefix, elem, .. } => {
                c.linef(format_args!(
                    "if (!w.len{}({place}.size())) return false;",
                    prefix.bits()
                ));
                let x = format!("x{k}");
                *k += 1;
                c.open(&format!("for (const auto& {x} : {place}) {{"));
                self.write_value(c, &x, elem, k);
                c.close("}");
            }
            Value::Optional(inner) => {
                c.open(&format!("if ({place}) {{"));
                c.line("w.put_u8(1);");
                if matches!(&**inner, Value::Array { .. } | Value::Optional(_)) {
                    let x = format!("x{k}");
                    *k += 1;
                    c.linef(format_args!("const auto& {x} = *{place};"));
                    self.write_value(c, &x, inner, k);
                } else {
                    self.write_value(c, &format!("*{place}"), inner, k);
                }
                c.close("} else {");
                c.depth += 1;
                c.line("w.put_u8(0);");
                c.close("}");
            }
            Value::Struct { .. } => c.linef(format_args!("if (!w.value({place})) return false;")),
        }
    }
}
