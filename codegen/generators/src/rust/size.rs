//! `encoded_size`: the plan's exact-size formula as one expression — its constant plus
//! one term per variable-size value.

use super::plan::Gen;
use crate::Code;
use wirelens_core::plan::{SizeTerm, TypePlan, ValueSize};

impl Gen<'_> {
    pub(super) fn encoded_size(&self, c: &mut Code, p: &TypePlan) {
        let f = &p.exact_size;
        let mut parts = Vec::new();
        if f.constant > 0 || f.terms.is_empty() {
            parts.push(f.constant.to_string());
        }
        for (path, term) in &f.terms {
            parts.push(self.term(&format!("self.{}", self.access(p.id, path)), term, 0));
        }
        c.open("fn encoded_size(&self) -> usize {");
        let one_line = parts.join(" + ");
        if one_line.len() + 4 * c.depth <= 100 {
            c.line(&one_line);
        } else {
            c.line(&parts[0]);
            c.depth += 1;
            for p in &parts[1..] {
                c.linef(format_args!("+ {p}"));
            }
            c.depth -= 1;
        }
        c.close("}");
        c.blank();
    }

    /// A plan size term as an expression over `place`.
    fn term(&self, place: &str, t: &SizeTerm, d: usize) -> String {
        let scaled = |k: u64, e: String| if k == 1 { e } else { format!("{k} * {e}") };
        match t {
            SizeTerm::Len { scale } => scaled(*scale, format!("{place}.len()")),
            SizeTerm::Present { scale } => scaled(*scale, format!("usize::from({place}.is_some())")),
            SizeTerm::IfPresent(vs) => {
                let x = format!("x{d}");
                format!("{place}.as_ref().map_or(0, |{x}| {})", self.value_size(&x, vs, d + 1))
            }
            SizeTerm::Each(vs) => {
                let x = format!("x{d}");
                format!(
                    "{place}.iter().map(|{x}| {}).sum::<usize>()",
                    self.value_size(&x, vs, d + 1)
                )
            }
            SizeTerm::Call(_) => format!("{place}.encoded_size()"),
        }
    }

    fn value_size(&self, place: &str, vs: &ValueSize, d: usize) -> String {
        match &vs.term {
            None => vs.constant.to_string(),
            Some(t) if vs.constant == 0 => self.term(place, t, d),
            Some(t) => format!("{} + {}", vs.constant, self.term(place, t, d)),
        }
    }
}
