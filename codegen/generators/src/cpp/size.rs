//! `T::measure`: the plan's exact-size formula — its constant plus one term per
//! variable-size value — with every string and array length checked by `f`.

use super::plan::Gen;
use crate::Code;
use wirelens_core::plan::{SizeTerm, TypePlan, ValueSize};

/// `n += 4 * x.size();` without the `1 *`.
fn scaled(scale: u64, what: &str) -> String {
    if scale == 1 {
        what.to_string()
    } else {
        format!("{scale} * {what}")
    }
}

impl Gen<'_> {
    /// The plan's exact-size formula: its constant plus one term per variable-size value;
    /// every string and array length goes through `f`.
    pub(super) fn measure(&self, c: &mut Code, name: &str, p: &TypePlan) {
        if p.size.fixed.is_some() {
            return;
        }
        let mut body = Code {
            depth: c.depth + 1,
            ..Code::default()
        };
        body.linef(format_args!("size_t n = {};", p.exact_size.constant));
        let mut k = 0;
        for (path, term) in &p.exact_size.terms {
            let place = self.place(p.id, path);
            self.size_term(&mut body, &format!("v{}", place.access), term, &mut k);
        }
        body.line("return n;");
        // `f` is unnamed when only optionals vary (no length to check, no nested measure).
        let f = if body.out.contains("f.len(") || body.out.contains(", f)") {
            " f"
        } else {
            ""
        };
        c.open(&format!(
            "inline size_t {name}::measure(const {name}& v, wirelens::Fits&{f}) noexcept {{"
        ));
        c.out.push_str(&body.out);
        c.close("}");
        c.blank();
    }

    /// Statements adding one size term of the value at `place` to `n`.
    fn size_term(&self, c: &mut Code, place: &str, term: &SizeTerm, k: &mut usize) {
        match term {
            SizeTerm::Len { scale } => {
                c.linef(format_args!("f.len({place}.size());"));
                c.linef(format_args!("n += {};", scaled(*scale, &format!("{place}.size()"))));
            }
            SizeTerm::Present { scale } => c.linef(format_args!("if ({place}) n += {scale};")),
            SizeTerm::IfPresent(inner) => {
                let x = format!("x{k}");
                *k += 1;
                c.open(&format!("if ({place}) {{"));
                c.linef(format_args!("const auto& {x} = *{place};"));
                self.value_size(c, &x, inner, k);
                c.close("}");
            }
            SizeTerm::Each(each) => {
                c.linef(format_args!("f.len({place}.size());"));
                if each.constant != 0 {
                    c.linef(format_args!(
                        "n += {};",
                        scaled(each.constant, &format!("{place}.size()"))
                    ));
                }
                if let Some(t) = &each.term {
                    let x = format!("x{k}");
                    *k += 1;
                    c.open(&format!("for (const auto& {x} : {place}) {{"));
                    self.size_term(c, &x, t, k);
                    c.close("}");
                }
            }
            SizeTerm::Call(id) => c.linef(format_args!("n += {}::measure({place}, f);", self.name(*id))),
        }
    }

    /// Statements adding a whole value's size (constant and term) to `n`.
    fn value_size(&self, c: &mut Code, place: &str, s: &ValueSize, k: &mut usize) {
        if s.constant != 0 {
            c.linef(format_args!("n += {};", s.constant));
        }
        if let Some(t) = &s.term {
            self.size_term(c, place, t, k);
        }
    }
}
