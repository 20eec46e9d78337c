//! `T_write`: writes the encoding at `p` (the caller made room: measure first) and
//! returns the end. Fixed blocks are constant-offset stores (runs copied as one), the
//! other values in wire order.

use super::names::prim_short;
use super::plan::{Gen, Item};
use crate::Code;
use wirelens_core::model::TypeId;
use wirelens_core::plan::Value;

impl Gen<'_> {
    pub(super) fn write_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "write");
        c.blank();
        // `inline`: a hint that gcc -O2 needs to inline a small element's write into an
        // array loop (without it the decision flips with unrelated runtime changes; the
        // call cost 1.25× on arrays of small structs). Large writes stay calls, but for
        // the element of a single array (`WL__ELEM`, forced).
        let st = self.storage(id, "static inline");
        c.open(&format!("{st} uint8_t *{fname}(const void *vp, uint8_t *p) {{"));
        if items.is_empty() {
            c.line("(void)vp;");
        } else {
            c.linef(format_args!("const {ty} *v = (const {ty} *)vp;"));
        }
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    for r in self.runs(id, leaves) {
                        let run = &leaves[r];
                        if let Some((cond, first, len)) = Self::run_cond(&ty, run) {
                            c.open(&format!("if ({cond}) {{"));
                            c.linef(format_args!(
                                "memcpy({}, (const uint8_t *)v + offsetof({ty}, {}), {len});",
                                Self::at("p", first.at),
                                first.access
                            ));
                            c.close("} else {");
                            c.depth += 1;
                            for l in run {
                                self.put_leaf(c, "p", 0, "v", l);
                            }
                            c.close("}");
                        } else {
                            for l in run {
                                self.put_leaf(c, "p", 0, "v", l);
                            }
                        }
                    }
                    c.linef(format_args!("p += {size};"));
                }
                Item::Var { access, value, .. } => self.write_value(c, &Self::place("v", access), value, 0, view),
            }
        }
        c.line("return p;");
        c.close("}");
    }

    fn write_value(&self, c: &mut Code, place: &str, v: &Value, d: usize, view: bool) {
        match v {
            Value::Str(pre) => c.linef(format_args!("p = wl_put_str(p, {}, {place});", pre.bytes())),
            Value::Prim(pr) => {
                c.linef(format_args!("wl_put_{}(p, {place});", prim_short(*pr)));
                c.linef(format_args!("p += {};", pr.fixed_size().unwrap_or(0)));
            }
            Value::BulkPrims(pre, pr) => {
                let kind = if view { "view" } else { "array" };
                c.linef(format_args!(
                    "p = wl_put_{}_{kind}(p, {}, {place});",
                    prim_short(*pr),
                    pre.bytes()
                ));
            }
            Value::Array { prefix, elem, .. } => {
                let i = format!("i{d}");
                c.open("{");
                c.linef(format_args!("size_t {i};"));
                c.linef(format_args!("p = wl_put_len(p, {}, {place}.len);", prefix.bytes()));
                c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                self.write_value(c, &format!("{place}.ptr[{i}]"), elem, d + 1, view);
                c.close("}");
                c.close("}");
            }
            Value::Optional(e) => {
                c.open(&format!("if ({place}.has) {{"));
                c.line("*p++ = 1;");
                self.write_value(c, &format!("{place}.value"), e, d + 1, view);
                c.close("} else {");
                c.depth += 1;
                c.line("*p++ = 0;");
                c.close("}");
            }
            Value::Struct { id, .. } => c.linef(format_args!("p = {}(&{place}, p);", self.fname(*id, view, "write"))),
        }
    }
}
