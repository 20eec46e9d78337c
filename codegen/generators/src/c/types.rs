//! The header's type declarations. Per value type `T` (every struct; for ffire also array
//! and named-primitive roots, which are typedefs): `T` (strings `wl_str`, arrays
//! `{const E *ptr; size_t len;}`, optionals `{bool has; E value;}`) and `T_view`: the same
//! shape, except that arrays of primitives are `wl_<p>_view` (the wire bytes); a typedef
//! of `T` when they agree. Then the derived array/option types they need, the docs and
//! wire-layout comments, and for SDP the dispatcher's `Message` (a tagged union).

use std::collections::HashSet;

use super::names::{comment, ident};
use super::plan::Gen;
use crate::Code;
use wirelens_core::layout::{TypeLayout, Wire};
use wirelens_core::model::{TypeId, TypeKind};
use wirelens_core::plan::TypePlan;

impl Gen<'_> {
    fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = comment(d.trim());
            if d.is_empty() {
                c.line("//");
            } else {
                c.linef(format_args!("// {d}"));
            }
        }
    }

    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = crate::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!(
            "// Wire layout of `{}` ({}): {}.",
            comment(&self.schema.types[id].name),
            d.order,
            d.size
        ));
        if let Some(wire) = &d.wire_type {
            c.line(&comment(&format!("// {wire}.")));
            return;
        }
        c.line("//");
        for row in &d.table {
            c.line(&comment(&format!("//   {row}")));
        }
        // From the plan this code is rendered from, so the comment cannot contradict it.
        if let Some(line) = self.plan.get(id).and_then(TypePlan::fixed_blocks_line) {
            c.line("//");
            c.line(&comment(&format!("// {line}.")));
        }
    }

    /// Defines the derived array/option types `w` needs (innermost first).
    fn ensure_derived(&self, c: &mut Code, w: &Wire, view: bool, done: &mut HashSet<String>) {
        let inner = match w {
            Wire::Array(e) | Wire::Optional(e) => e,
            _ => return,
        };
        self.ensure_derived(c, inner, view, done);
        if self.n.runtime_type(w, view).is_some() {
            return;
        }
        let name = self.n.c_type(w, view);
        if !done.insert(name.clone()) {
            return;
        }
        let elem = self.n.c_type(inner, view);
        c.blank();
        match w {
            Wire::Array(_) => {
                c.open(&format!("typedef struct {name} {{"));
                c.linef(format_args!("const {elem} *ptr;"));
                c.line("size_t len;");
            }
            _ => {
                c.open(&format!("typedef struct {name} {{"));
                c.line("bool has;");
                c.linef(format_args!("{elem} value;"));
            }
        }
        c.close(&format!("}} {name};"));
    }

    pub(super) fn is_value_type(&self, id: TypeId) -> bool {
        self.schema.types[id].is_struct() || self.layout.get(id).is_some_and(|t| t.root)
    }

    /// Forward declarations of every struct and view, then each type's declaration in
    /// the type order (derived array/option types first).
    pub(super) fn declarations(&self, c: &mut Code) {
        // Forward declarations: every struct and view.
        for &id in &self.n.order {
            if !self.schema.types[id].is_struct() {
                continue;
            }
            let name = self.n.type_name(id);
            c.linef(format_args!("typedef struct {name} {name};"));
            if self.n.has_view(id) {
                let v = self.n.view_name(id);
                c.linef(format_args!("typedef struct {v} {v};"));
            } else {
                c.linef(format_args!("typedef {name} {};", self.n.view_name(id)));
            }
        }
        let mut done = HashSet::new();
        for &id in &self.n.order {
            let Some(t) = self.layout.get(id) else { continue };
            let def = &self.schema.types[id];
            match &def.kind {
                TypeKind::Struct { fields, .. } => {
                    for view in [false, true] {
                        if view && !self.n.has_view(id) {
                            continue;
                        }
                        for f in &t.fields {
                            self.ensure_derived(c, &f.wire, view, &mut done);
                        }
                        c.blank();
                        let name = if view {
                            self.n.view_name(id)
                        } else {
                            self.n.type_name(id)
                        };
                        if view {
                            c.linef(format_args!(
                                "// Zero-copy view of {}: arrays of primitives are the wire bytes.",
                                self.n.type_name(id)
                            ));
                        } else {
                            self.docs(c, &def.docs);
                            if !def.docs.is_empty() {
                                c.line("//");
                            }
                            self.layout_doc(c, id, t);
                        }
                        c.open(&format!("struct {name} {{"));
                        let names = self.n.fields(id);
                        for (i, f) in fields.iter().enumerate() {
                            let Some(fl) = t.field_by_decl(i) else { continue };
                            if !view {
                                self.docs(c, &f.docs);
                            }
                            c.linef(format_args!("{} {};", self.n.c_type(&fl.wire, view), names[i]));
                        }
                        c.close("};");
                    }
                }
                TypeKind::Alias { .. } => {
                    self.ensure_derived(c, &t.wire, false, &mut done);
                    c.blank();
                    self.docs(c, &def.docs);
                    let name = self.n.type_name(id);
                    if t.root {
                        if !def.docs.is_empty() {
                            c.line("//");
                        }
                        self.layout_doc(c, id, t);
                    }
                    c.linef(format_args!("typedef {} {name};", self.n.c_type(&t.wire, false)));
                    if t.root {
                        if self.n.has_view_wire(&t.wire) {
                            self.ensure_derived(c, &t.wire, true, &mut done);
                            c.linef(format_args!(
                                "typedef {} {};",
                                self.n.c_type(&t.wire, true),
                                self.n.view_name(id)
                            ));
                        } else {
                            c.linef(format_args!("typedef {name} {};", self.n.view_name(id)));
                        }
                    }
                }
            }
        }
    }

    pub(super) fn dispatcher_types(&self, c: &mut Code) {
        let structs = self.sdp_structs();
        if structs.is_empty() {
            return;
        }
        let m = self.n.message_type();
        c.blank();
        c.line("// SDP message type ids (the 1-based position of each struct in the schema).");
        c.open(&format!("typedef enum {m}Kind {{"));
        c.linef(format_args!("{m}_NONE = 0,"));
        for (id, mid) in &structs {
            c.linef(format_args!("{}_MESSAGE_ID = {mid},", self.n.type_name(*id)));
        }
        c.close(&format!("}} {m}Kind;"));
        c.blank();
        c.line("// Any message of this schema: `kind` is the type id, `as` holds the value.");
        c.open(&format!("typedef struct {m} {{"));
        c.linef(format_args!("{m}Kind kind;"));
        c.open("union {");
        for (id, _) in &structs {
            c.linef(format_args!(
                "{} {};",
                self.n.type_name(*id),
                ident(self.n.short_name(*id))
            ));
        }
        c.close("} as;");
        c.close(&format!("}} {m};"));
    }
}
