//! `T_measure`: the encoded size, rendered from the plan's exact-size formula (its
//! constant, then one statement per variable-size term), with the length checks the
//! prefixes impose; 0 and `WL_ERR_TOO_LONG` for an oversized string or array.

use super::names::c_string;
use super::plan::{Ctx, Gen};
use crate::Code;
use wirelens_core::layout::Wire;
use wirelens_core::plan::{SizeTerm, TypePlan, ValueSize};

impl Gen<'_> {
    /// `if (cond) <error exit>` in a measure function: record the error (`too_long`:
    /// WL_ERR_TOO_LONG for that length and prefix; else the failed call did), add the
    /// context, return 0.
    fn measure_fail(c: &mut Code, cond: &str, ctx: &[Ctx], too_long: Option<(&str, u64)>) {
        let mut steps: Vec<String> = Vec::new();
        match (too_long, ctx) {
            (Some((len, p)), []) => {
                c.linef(format_args!(
                    "if ({cond}) {{ return wl_too_long(err, {len}, {p}, NULL); }}"
                ));
                return;
            }
            (Some((len, p)), [Ctx::Field(j)]) => {
                c.linef(format_args!(
                    "if ({cond}) {{ return wl_too_long(err, {len}, {p}, {}); }}",
                    c_string(j)
                ));
                return;
            }
            (None, []) => {
                c.linef(format_args!("if ({cond}) {{ return 0; }}"));
                return;
            }
            (Some((len, p)), _) => steps.push(format!("wl_too_long(err, {len}, {p}, NULL);")),
            (None, _) => {}
        }
        for x in ctx {
            steps.push(match x {
                Ctx::Field(j) => format!("wl_err_field(err, {});", c_string(j)),
                Ctx::Index(i) => format!("wl_err_index(err, {i});"),
            });
        }
        c.open(&format!("if ({cond}) {{"));
        for st in steps {
            c.line(&st);
        }
        c.line("return 0;");
        c.close("}");
    }

    /// The measure function, rendered from the plan's exact-size formula: its constant,
    /// then one statement per variable-size term (with the length checks the prefixes
    /// impose).
    pub(super) fn measure_fn(&self, c: &mut Code, p: &TypePlan, view: bool) {
        let ty = self.tname(p.id, view);
        let fname = self.fname(p.id, view, "measure");
        let constant = p.exact_size.constant;
        c.blank();
        let st = self.storage(p.id, "static");
        c.open(&format!("{st} size_t {fname}(const void *vp, wl_error *err) {{"));
        let mut body = Code {
            out: String::new(),
            depth: c.depth,
        };
        let mut uses_err = false;
        for (path, term) in &p.exact_size.terms {
            let (access, json) = match self.path_names(p.id, path) {
                Ok(x) => x,
                Err(_) => continue,
            };
            let ctx = if json.is_empty() {
                vec![]
            } else {
                vec![Ctx::Field(json)]
            };
            uses_err |= self.term_can_fail(term);
            self.measure_term(&mut body, &Self::place("v", &access), term, &ctx, 0, view);
        }
        if body.out.is_empty() {
            c.line("(void)vp;");
        } else {
            c.linef(format_args!("const {ty} *v = (const {ty} *)vp;"));
        }
        if !uses_err {
            c.line("(void)err;");
        }
        if body.out.is_empty() {
            c.linef(format_args!("return {constant};"));
        } else {
            c.linef(format_args!("size_t n = {constant};"));
            c.out.push_str(&body.out);
            c.line("return n;");
        }
        c.close("}");
    }

    /// Whether measuring a term can fail (a length to check, or a call that can).
    fn term_can_fail(&self, t: &SizeTerm) -> bool {
        match t {
            SizeTerm::Len { .. } | SizeTerm::Each(_) => true,
            SizeTerm::Present { .. } => false,
            SizeTerm::IfPresent(vs) => vs.term.as_ref().is_some_and(|t| self.term_can_fail(t)),
            SizeTerm::Call(id) => self.n.can_fail_wire(&Wire::Struct(*id)),
        }
    }

    /// Adds the term `t` of `place` to `n`. Every `Len` and `Each` term is a string's or
    /// an array's length, checked against the prefix first.
    fn measure_term(&self, c: &mut Code, place: &str, t: &SizeTerm, ctx: &[Ctx], d: usize, view: bool) {
        let p = self.prefix();
        let too_long = |c: &mut Code| {
            let len = format!("{place}.len");
            Self::measure_fail(c, &format!("!wl_len_ok({len}, {p})"), ctx, Some((&len, p)));
        };
        let add_scaled = |c: &mut Code, k: u64| match k {
            0 => {}
            1 => c.linef(format_args!("n = wl_add(n, {place}.len);")),
            k => c.linef(format_args!("n = wl_add(n, wl_mul({place}.len, {k}));")),
        };
        match t {
            SizeTerm::Len { scale } => {
                too_long(c);
                add_scaled(c, *scale);
            }
            SizeTerm::Each(vs) => {
                too_long(c);
                add_scaled(c, vs.constant);
                if let Some(inner) = &vs.term {
                    let i = format!("i{d}");
                    c.open("{");
                    c.linef(format_args!("size_t {i};"));
                    c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                    let mut ictx = vec![Ctx::Index(i.clone())];
                    ictx.extend_from_slice(ctx);
                    self.measure_term(c, &format!("{place}.ptr[{i}]"), inner, &ictx, d + 1, view);
                    c.close("}");
                    c.close("}");
                }
            }
            SizeTerm::Present { scale } => {
                if *scale > 0 {
                    c.linef(format_args!("if ({place}.has) {{"));
                    c.depth += 1;
                    c.linef(format_args!("n = wl_add(n, {scale});"));
                    c.depth -= 1;
                    c.line("}");
                }
            }
            SizeTerm::IfPresent(vs) => {
                c.linef(format_args!("if ({place}.has) {{"));
                c.depth += 1;
                self.measure_value(c, &format!("{place}.value"), vs, ctx, d + 1, view);
                c.depth -= 1;
                c.line("}");
            }
            SizeTerm::Call(id) => {
                c.linef(format_args!(
                    "n = wl_add(n, {}(&{place}, err));",
                    self.fname(*id, view, "measure")
                ));
                if self.n.can_fail_wire(&Wire::Struct(*id)) {
                    Self::measure_fail(c, "err->status != WL_OK", ctx, None);
                }
            }
        }
    }

    /// Adds a whole value's size (its constant, then its term) to `n`.
    fn measure_value(&self, c: &mut Code, place: &str, vs: &ValueSize, ctx: &[Ctx], d: usize, view: bool) {
        if vs.constant > 0 {
            c.linef(format_args!("n = wl_add(n, {});", vs.constant));
        }
        if let Some(t) = &vs.term {
            self.measure_term(c, place, t, ctx, d, view);
        }
    }
}
