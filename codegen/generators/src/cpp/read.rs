//! `T::read_from` (or, when `T` has a view, the one template `T::read_fields<V>` that
//! reads a `T` and a `TView` alike), count plausibility from the plan's element minimum,
//! and `TView::to_owned`.

use super::names::borrows;
use super::plan::{Gen, Member};
use crate::{Code, OwnedStrings};
use wirelens_core::layout::Wire;
use wirelens_core::model::Primitive;
use wirelens_core::plan::{Step, TypePlan, Value};

impl Gen<'_> {
    /// `T::read_from`, or with `generic` the template `T::read_fields<V>` that reads a T
    /// and a TView alike.
    pub(super) fn read_from(&self, c: &mut Code, name: &str, p: &TypePlan, generic: bool) {
        if generic {
            c.line("template <class Wl_V>");
            let hot = self.read_hot(p.id);
            c.open(&format!(
                "{hot}bool {name}::read_fields(wirelens::Reader& rd, Wl_V& v) {{"
            ));
        } else {
            c.open(&format!(
                "inline bool {name}::read_from(wirelens::Reader& rd, {name}& v) {{"
            ));
        }
        if let (Some(size), false) = (Self::one_block(p), generic) {
            let first = p.steps.iter().find_map(|s| match s {
                Step::Block { block, .. } => block.leaves.first().map(|l| self.place(p.id, &l.path).names),
                Step::Value { .. } => None,
            });
            c.linef(format_args!("const uint8_t* b = rd.fixed({size});"));
            c.linef(format_args!(
                "if (b == nullptr) {}",
                Self::err(first.as_deref().unwrap_or(&[]), "")
            ));
            c.line("return read_block(rd, b, v);");
            c.close("}");
            c.blank();
            return;
        }
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
                    c.linef(format_args!("const uint8_t* {bv} = rd.fixed({});", block.size));
                    let first = block.leaves.first().map(|l| self.place(p.id, &l.path).names);
                    c.linef(format_args!(
                        "if ({bv} == nullptr) {}",
                        Self::err(first.as_deref().unwrap_or(&[]), "")
                    ));
                    for r in self.runs(p.id, &block.leaves, generic) {
                        self.load_run(c, &bv, p.id, &block.leaves[r], &mut rn);
                    }
                }
                Step::Value { path, value } => {
                    let place = self.place(p.id, path);
                    self.read_value(
                        c,
                        &format!("v{}", place.access),
                        value,
                        &place.names,
                        "",
                        &mut k,
                        generic,
                    );
                }
            }
        }
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    #[allow(clippy::too_many_arguments)]
    fn read_value(
        &self,
        c: &mut Code,
        place: &str,
        value: &Value,
        names: &[String],
        chain: &str,
        k: &mut usize,
        generic: bool,
    ) {
        let err = Self::err(names, chain);
        match value {
            Value::Str(pre) => c.linef(format_args!("if (!rd.str{}({place})) {err}", pre.bits())),
            Value::Prim(_) => c.linef(format_args!("if (!rd.prim({place})) {err}")),
            Value::BulkPrims(pre, _) => c.linef(format_args!("if (!rd.prims{}({place})) {err}", pre.bits())),
            Value::Array { prefix, elem, elem_min } => {
                let j = *k;
                *k += 1;
                c.linef(format_args!("size_t n{j} = 0;"));
                c.linef(format_args!("if (!rd.count{}({elem_min}, n{j})) {err}", prefix.bits()));
                // Element memory is charged against the caller's budget (Reader::set_budget).
                // wirelens::Fill picks how the elements are constructed (runtime/cpp).
                let compact = self.strings == OwnedStrings::Compact;
                c.linef(format_args!(
                    "wirelens::Fill<decltype({place}), {compact}> f{j}({place});"
                ));
                c.linef(format_args!("if (!rd.elements(f{j}, n{j})) {err}"));
                c.open(&format!("for (size_t i{j} = 0; i{j} < n{j}; ++i{j}) {{"));
                c.linef(format_args!("auto& x{j} = f{j}.at(i{j});"));
                let inner = format!(".index(i{j}){chain}");
                self.read_value(c, &format!("x{j}"), elem, names, &inner, k, generic);
                c.linef(format_args!("f{j}.done();"));
                c.close("}");
            }
            Value::Optional(inner) => {
                let j = *k;
                *k += 1;
                c.linef(format_args!("bool p{j} = false;"));
                c.linef(format_args!("if (!rd.presence(p{j})) {err}"));
                c.open(&format!("if (p{j}) {{"));
                // A present optional is read into the value it holds (its storage reused).
                c.linef(format_args!("auto& x{j} = {place} ? *{place} : {place}.emplace();"));
                self.read_value(c, &format!("x{j}"), inner, names, chain, k, generic);
                // A value reused for decoding must not keep an optional the wire says is absent.
                c.close("} else {");
                c.depth += 1;
                c.linef(format_args!("{place}.reset();"));
                c.close("}");
            }
            Value::Struct { id, .. } => {
                // In the shared body the nested type is the value's or the view's.
                let ty = if generic {
                    format!("std::decay_t<decltype({place})>")
                } else {
                    self.name(*id).to_string()
                };
                c.linef(format_args!("if (!{ty}::read_from(rd, {place})) {err}"));
            }
        }
    }

    pub(super) fn to_owned(&self, c: &mut Code, name: &str, view: &str, members: &[Member]) {
        c.open(&format!("inline {name} {view}::to_owned() const {{"));
        c.line("const auto& v = *this;");
        c.linef(format_args!("{name} o;"));
        let mut k = 0;
        for m in members {
            self.conv(
                c,
                &format!("o.{}", m.access),
                &format!("v.{}", m.access),
                &m.wire,
                &mut k,
            );
        }
        c.line("return o;");
        c.close("}");
        c.blank();
    }

    /// Statements converting the view value at `src` into the owned value at `dst`.
    fn conv(&self, c: &mut Code, dst: &str, src: &str, w: &Wire, k: &mut usize) {
        if !borrows(self.layout, w) {
            c.linef(format_args!("{dst} = {src};"));
            return;
        }
        match w {
            Wire::Prim(_) => c.linef(format_args!("{dst} = {}({src});", self.string_ty())),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str && self.arena => {
                    c.linef(format_args!("{dst} = {src}.to_vector<{}>();", self.owned_ty(w)))
                }
                Wire::Prim(p) if *p != Primitive::Str => c.linef(format_args!("{dst} = {src}.to_vector();")),
                e => {
                    let j = *k;
                    *k += 1;
                    c.linef(format_args!("{dst}.resize({src}.size());"));
                    c.open(&format!("for (size_t i{j} = 0; i{j} < {src}.size(); ++i{j}) {{"));
                    self.conv(c, &format!("{dst}[i{j}]"), &format!("{src}[i{j}]"), e, k);
                    c.close("}");
                }
            },
            Wire::Optional(e) => {
                let j = *k;
                *k += 1;
                c.open(&format!("if ({src}) {{"));
                c.linef(format_args!("auto& x{j} = {dst}.emplace();"));
                self.conv(c, &format!("x{j}"), &format!("(*{src})"), e, k);
                c.close("}");
            }
            Wire::Struct(_) => c.linef(format_args!("{dst} = {src}.to_owned();")),
        }
    }
}
