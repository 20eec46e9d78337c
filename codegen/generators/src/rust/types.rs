//! The declarations. Per value type `T` (every struct; for ffire also array and
//! named-primitive roots, which become tuple structs): `T` (owned: `String`, `Vec<_>`,
//! `Option<_>`) and, when `T` contains strings or arrays, `TView<'a>` (zero-copy:
//! `&'a str`, `LeSlice<'a, _>` for primitive arrays), with their docs and wire-layout
//! comments; fields that nest too deep are boxed.

use super::names::{acronym_allow, ident, prim_type, DEAD_CODE};
use super::plan::Gen;
use crate::{Code, OwnedStrings};
use wirelens_core::layout::{TypeLayout, Wire};
use wirelens_core::model::{Primitive, TypeId};
use wirelens_core::plan::{TypePlan, MAX_INLINE_DEPTH};

impl Gen<'_> {
    pub(super) fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = d.trim();
            if d.is_empty() {
                c.line("///");
            } else {
                c.linef(format_args!("/// {d}"));
            }
        }
    }

    /// The owned string type's name ([`OwnedStrings`]).
    pub(super) fn string_ty(&self) -> &'static str {
        match self.opts.strings {
            OwnedStrings::Std => "String",
            OwnedStrings::Compact => "rt::CompactString",
        }
    }

    pub(super) fn owned_ty(&self, w: &Wire) -> String {
        match w {
            Wire::Prim(Primitive::Str) => self.string_ty().into(),
            Wire::Prim(p) => prim_type(*p).into(),
            Wire::Array(e) => format!("Vec<{}>", self.owned_ty(e)),
            Wire::Optional(e) => format!("Option<{}>", self.owned_ty(e)),
            Wire::Struct(id) => self.name(*id),
        }
    }

    pub(super) fn view_ty(&self, w: &Wire) -> String {
        if !self.borrows(w) {
            return self.owned_ty(w);
        }
        match w {
            Wire::Prim(_) => "&'a str".into(),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("rt::LeSlice<'a, {}>", prim_type(*p)),
                e if self.arena() => format!("&'a [{}]", self.view_ty(e)),
                e => format!("Vec<{}>", self.view_ty(e)),
            },
            Wire::Optional(e) => format!("Option<{}>", self.view_ty(e)),
            Wire::Struct(id) => format!("{}<'a>", self.view_name(*id)),
        }
    }

    /// The type of a boxed field ([`Boxed`](wirelens_core::plan::Boxed)): the owned or view type with the struct inside
    /// its `Option`s in a `Box` (`Option<Box<S>>`).
    fn boxed_ty(&self, w: &Wire, view: bool) -> String {
        match w {
            Wire::Optional(e) => format!("Option<{}>", self.boxed_ty(e, view)),
            w if view => format!("Box<{}>", self.view_ty(w)),
            w => format!("Box<{}>", self.owned_ty(w)),
        }
    }

    /// The doc line of a boxed field (after its own docs).
    fn box_doc(&self, c: &mut Code, docs: &[String]) {
        if !docs.is_empty() {
            c.line("///");
        }
        c.linef(format_args!(
            "/// Boxed: the struct nests too deep to be stored inline (more than {MAX_INLINE_DEPTH} levels, past"
        ));
        c.line("/// rustc's layout recursion limit); the wire is the same.");
    }

    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = crate::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!("/// Wire layout ({}): {}.", d.order, d.size));
        if let Some(wire) = &d.wire_type {
            c.line("///");
            c.linef(format_args!("/// {wire}."));
            return;
        }
        c.line("///");
        c.line("/// ```text");
        for row in &d.table {
            c.line(format!("/// {row}").trim_end());
        }
        c.line("/// ```");
        // From the plan this code is rendered from, so the comment cannot contradict it.
        let blocks = self.plan_of(id).and_then(TypePlan::fixed_blocks_line);
        if let Some(line) = blocks.filter(|_| self.opts.fixed_blocks) {
            c.line("///");
            c.linef(format_args!("/// {line}."));
        }
    }

    /// The owned struct `T` and, when it borrows from the input, its view `TView<'a>`:
    /// docs, the wire layout, derives and fields.
    pub(super) fn declarations(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let def = &self.schema.types[id];
        let name = self.name(id);
        let borrows = self.borrows(&t.wire);
        c.blank();
        self.docs(c, &def.docs);
        if !def.docs.is_empty() {
            c.line("///");
        }
        self.layout_doc(c, id, t);
        c.line("#[derive(Debug, Clone, PartialEq, Default)]");
        c.line(DEAD_CODE);
        acronym_allow(c, &name);
        if def.is_struct() {
            c.open(&format!("pub struct {name} {{"));
            let names = self.field_names(id);
            for (i, f) in def.fields().iter().enumerate() {
                let Some(fl) = t.field_by_decl(i) else { continue };
                self.docs(c, &f.docs);
                let ty = if self.boxed.field(id, i) {
                    self.box_doc(c, &f.docs);
                    self.boxed_ty(&fl.wire, false)
                } else {
                    self.owned_ty(&fl.wire)
                };
                c.linef(format_args!("pub {}: {ty},", ident(&names[i])));
            }
            c.close("}");
        } else {
            c.linef(format_args!("pub struct {name}(pub {});", self.owned_ty(&t.wire)));
        }
        if borrows {
            let view = self.view_name(id);
            c.blank();
            c.linef(format_args!(
                "/// Zero-copy view of [`{name}`] (strings and primitive arrays borrow the input)."
            ));
            c.line("#[derive(Debug, Clone, PartialEq)]");
            c.line(DEAD_CODE);
            if def.is_struct() {
                c.open(&format!("pub struct {view}<'a> {{"));
                let names = self.field_names(id);
                for (i, f) in def.fields().iter().enumerate() {
                    let Some(fl) = t.field_by_decl(i) else { continue };
                    self.docs(c, &f.docs);
                    let ty = if self.boxed.field(id, i) {
                        self.box_doc(c, &f.docs);
                        self.boxed_ty(&fl.wire, true)
                    } else {
                        self.view_ty(&fl.wire)
                    };
                    c.linef(format_args!("pub {}: {ty},", ident(&names[i])));
                }
                c.close("}");
            } else {
                c.linef(format_args!("pub struct {view}<'a>(pub {});", self.view_ty(&t.wire)));
            }
        }
    }
}
