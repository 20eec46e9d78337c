//! `T_read`: reads one value at the reader's position, each fixed block with one bounds
//! check. Owned decodes copy strings (NUL-terminated) and arrays into a `wl_arena`; view
//! decodes point strings and primitive arrays into the input and put only arrays of
//! non-primitives in the arena. A failure records the offset and the value's path.

use std::fmt::Write as _;

use super::names::{c_string, prim_short};
use super::plan::{wire_of, Ctx, Gen, Item};
use crate::Code;
use wirelens_core::layout::{LeafKind, Wire};
use wirelens_core::model::{Primitive, TypeId};
use wirelens_core::plan::Value;

impl Gen<'_> {
    /// Error exit of a read step that already recorded its error: add the context,
    /// return the status.
    ///
    /// Braced, as every `if` body in the generated C: for an unbraced one gcc's
    /// `-Wmisleading-indentation` (in `-Wall`) looks up source lines at a cost that grows
    /// with the file (500-struct schema, `gcc -Wall -fsyntax-only`: 7.3 s, braced 0.44 s).
    fn read_fail(ctx: &[Ctx]) -> String {
        match ctx {
            [] => "{ return rd->err->status; }".into(),
            [only] => format!("{{ return {}; }}", Self::ctx_call(only)),
            _ => {
                let mut s = String::from("{ ");
                for x in &ctx[..ctx.len() - 1] {
                    s.push_str(&Self::ctx_call(x));
                    s.push_str("; ");
                }
                let _ = write!(s, "return {}; }}", Self::ctx_call(&ctx[ctx.len() - 1]));
                s
            }
        }
    }

    fn ctx_call(x: &Ctx) -> String {
        match x {
            Ctx::Field(j) => format!("wl_err_field(rd->err, {})", c_string(j)),
            Ctx::Index(i) => format!("wl_err_index(rd->err, {i})"),
        }
    }

    pub(super) fn read_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "read");
        c.blank();
        let st = self.storage(id, "static");
        c.open(&format!("{st} wl_status {fname}(wl_reader *rd, void *outp) {{"));
        if items.is_empty() {
            c.line("(void)rd;");
            c.line("(void)outp;");
        } else {
            c.linef(format_args!("{ty} *out = ({ty} *)outp;"));
        }
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    let first = leaves.first().map_or("NULL".to_string(), |l| c_string(&l.json));
                    c.open("{");
                    c.line("const uint8_t *p;");
                    c.linef(format_args!(
                        "if (rd->len - rd->at < {size}) {{ return wl_rd_end(rd, {size}, {first}); }}"
                    ));
                    c.line("p = rd->buf + rd->at;");
                    for r in self.runs(id, leaves) {
                        let run = &leaves[r];
                        if let Some((cond, first, len)) = Self::run_cond(&ty, run) {
                            // The bools' checks first, in wire order; then one copy.
                            for l in run {
                                if l.kind == LeafKind::Prim(Primitive::Bool) {
                                    self.check_bool(c, "p", "rd->at", "rd->err", l);
                                }
                            }
                            c.open(&format!("if ({cond}) {{"));
                            c.linef(format_args!(
                                "memcpy((uint8_t *)out + offsetof({ty}, {}), {}, {len});",
                                first.access,
                                Self::at("p", first.at)
                            ));
                            c.close("} else {");
                            c.depth += 1;
                            for l in run {
                                self.load_leaf(c, "p", l);
                            }
                            c.close("}");
                        } else {
                            for l in run {
                                self.get_leaf(c, "p", "rd->at", "rd->err", l);
                            }
                        }
                    }
                    c.linef(format_args!("rd->at += {size};"));
                    c.close("}");
                }
                Item::Var { access, json, value } => {
                    let ctx = if json.is_empty() {
                        vec![]
                    } else {
                        vec![Ctx::Field(json.clone())]
                    };
                    self.read_value(c, &Self::place("out", access), value, &ctx, 0, view);
                }
            }
        }
        c.line("return WL_OK;");
        c.close("}");
    }

    /// Whether a successful read of a value of this wire writes every member of its C
    /// type: everything but an absent optional's payload (and the placeholder of a struct
    /// without fields) is always written.
    fn read_writes_all(&self, w: &Wire, depth: usize) -> bool {
        match w {
            Wire::Prim(_) | Wire::Array(_) => true,
            Wire::Optional(_) => false,
            Wire::Struct(id) => {
                let Some(t) = self.layout.get(*id) else { return false };
                if depth > 64 {
                    false
                } else if t.wire != Wire::Struct(*id) {
                    self.read_writes_all(&t.wire, depth + 1)
                } else {
                    !t.fields.is_empty() && t.fields.iter().all(|f| self.read_writes_all(&f.wire, depth + 1))
                }
            }
        }
    }

    fn read_value(&self, c: &mut Code, place: &str, v: &Value, ctx: &[Ctx], d: usize, view: bool) {
        let fail = Self::read_fail(ctx);
        match v {
            Value::Str(pre) => c.linef(format_args!(
                "if (wl_rd_str(rd, {}, &{place}) != WL_OK) {fail}",
                pre.bytes()
            )),
            Value::Prim(pr) => c.linef(format_args!(
                "if (wl_rd_{}(rd, &{place}) != WL_OK) {fail}",
                prim_short(*pr)
            )),
            Value::BulkPrims(pre, pr) => {
                let kind = if view { "view" } else { "array" };
                c.linef(format_args!(
                    "if (wl_rd_{}_{kind}(rd, {}, &{place}) != WL_OK) {fail}",
                    prim_short(*pr),
                    pre.bytes()
                ));
            }
            Value::Array { prefix, elem, elem_min } => {
                let ty = self.n.c_type(&wire_of(elem), view);
                let (n, i, a) = (format!("n{d}"), format!("i{d}"), format!("a{d}"));
                c.open("{");
                c.linef(format_args!("size_t {n}, {i};"));
                c.linef(format_args!("{ty} *{a} = NULL;"));
                c.linef(format_args!(
                    "if (wl_rd_count(rd, {}, {elem_min}, &{n}) != WL_OK) {fail}",
                    prefix.bytes()
                ));
                // Zero-filled only when reading leaves members unwritten (the payload of an
                // absent optional); else the fill would be a second pass over the array.
                let alloc = if self.read_writes_all(&wire_of(elem), 0) {
                    "wl_rd_alloc"
                } else {
                    "wl_rd_alloc_zero"
                };
                c.open(&format!("if ({n} > 0) {{"));
                c.linef(format_args!(
                    "{a} = ({ty} *){alloc}(rd, {n}, sizeof *{a}, WL_ALIGNOF({ty}));"
                ));
                c.linef(format_args!("if (!{a}) {fail}"));
                c.close("}");
                c.open(&format!("for ({i} = 0; {i} < {n}; {i}++) {{"));
                let mut inner = vec![Ctx::Index(i.clone())];
                inner.extend_from_slice(ctx);
                self.read_value(c, &format!("{a}[{i}]"), elem, &inner, d + 1, view);
                c.close("}");
                c.linef(format_args!("{place}.ptr = {a};"));
                c.linef(format_args!("{place}.len = {n};"));
                c.close("}");
            }
            Value::Optional(e) => {
                let h = format!("h{d}");
                c.open("{");
                c.linef(format_args!("bool {h};"));
                c.linef(format_args!("if (wl_rd_presence(rd, &{h}) != WL_OK) {fail}"));
                c.linef(format_args!("{place}.has = {h};"));
                c.open(&format!("if ({h}) {{"));
                self.read_value(c, &format!("{place}.value"), e, ctx, d + 1, view);
                c.close("}");
                c.close("}");
            }
            Value::Struct { id, .. } => c.linef(format_args!(
                "if ({}(rd, &{place}) != WL_OK) {fail}",
                self.fname(*id, view, "read")
            )),
        }
    }
}
