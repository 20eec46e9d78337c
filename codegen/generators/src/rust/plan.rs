//! The generator over one schema's encoding plan ([`wirelens_core::plan`]), and the plan's
//! paths resolved to Rust: `self.`-relative places, the decoder's locals and the error
//! path of a read ([`Ctx`]); which views borrow, which fields are boxed, the members of a
//! value type.

use super::names::{ident, local_is_field_name};
use super::options::RustOptions;
use crate::Memory;
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{Layout, TypeLayout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};
use wirelens_core::plan::{Boxed, Plan, TypePlan};

/// [`Gen::borrows`] for one wire, given which structs borrow. With an arena every array
/// borrows (from the arena).
fn wire_borrows(w: &Wire, structs: &[bool], memory: Memory) -> bool {
    match w {
        Wire::Prim(p) => *p == Primitive::Str,
        Wire::Array(e) => memory == Memory::Arena || matches!(&**e, Wire::Prim(_)) || wire_borrows(e, structs, memory),
        Wire::Optional(e) => wire_borrows(e, structs, memory),
        Wire::Struct(id) => structs.get(*id).copied().unwrap_or(false),
    }
}

/// Which structs' views borrow from the input, per type id: a fixpoint over the fields
/// (no recursion through nested structs, which re-walked shared structs once per path:
/// exponential on schemas where structs reuse earlier ones).
pub(super) fn struct_borrows(layout: &Layout, memory: Memory) -> Vec<bool> {
    let mut b = vec![false; layout.types.len()];
    loop {
        let mut changed = false;
        for (id, t) in layout.types.iter().enumerate() {
            let Some(t) = t else { continue };
            if !b[id] && t.fields.iter().any(|f| wire_borrows(&f.wire, &b, memory)) {
                b[id] = true;
                changed = true;
            }
        }
        if !changed {
            return b;
        }
    }
}

/// One segment of an error path in generated code.
#[derive(Debug, Clone)]
pub(super) enum Seg {
    /// A field, by its quoted schema name (`"name"`).
    Field(String),
    /// An array element, by the loop variable holding its index.
    Index(String),
}

/// The path a read's error gets, innermost segment first.
#[derive(Debug, Clone, Default)]
pub(super) struct Ctx(pub(super) Vec<Seg>);

impl Ctx {
    /// The context of an element (index variable `var`) of the array read in `self`.
    pub(super) fn in_element(&self, var: String) -> Ctx {
        let mut segs = Vec::with_capacity(self.0.len() + 1);
        segs.push(Seg::Index(var));
        segs.extend(self.0.iter().cloned());
        Ctx(segs)
    }
}

/// One member of a value type: a struct field, or the single `0` of a tuple root.
pub(super) struct Member {
    /// `self.{access}` (`name`, `r#type`, `0`).
    pub(super) access: String,
    pub(super) wire: Wire,
    /// The field's declaration index (`None`: the `0` of a tuple root).
    pub(super) decl: Option<usize>,
}

pub(super) struct Gen<'s> {
    pub(super) schema: &'s Schema,
    pub(super) layout: &'s Layout,
    pub(super) plan: Plan,
    pub(super) opts: RustOptions,
    /// The Rust names of every schema type.
    pub(super) type_names: std::collections::HashSet<String>,
    /// Per type id: its Rust name ([`type_names`](super::names::type_names)).
    pub(super) names: Vec<String>,
    /// Per type id: its view borrows from the input.
    pub(super) struct_borrows: Vec<bool>,
    /// Per type id: its fields' Rust names (computed once: the emitters ask per field).
    pub(super) field_names: Vec<Vec<String>>,
    /// Per type id: a struct decoded as an array element somewhere in the schema.
    pub(super) elements: Vec<bool>,
    /// The struct fields stored behind a `Box` (the plan's decision, issue 39).
    pub(super) boxed: Boxed,
}

impl Gen<'_> {
    pub(super) fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    pub(super) fn name(&self, id: TypeId) -> String {
        self.names.get(id).cloned().unwrap_or_else(|| "Unknown".into())
    }

    /// `FooView`, or `FooView2`, `FooView3`… when the schema itself has a type of that
    /// name (which would otherwise not compile: E0428).
    pub(super) fn view_name(&self, id: TypeId) -> String {
        let n = self.name(id);
        let mut view = format!("{n}View");
        let mut k = 2;
        while self.type_names.contains(&view) {
            view = format!("{n}View{k}");
            k += 1;
        }
        view
    }

    /// Whether the view of this wire borrows from the input: it holds a string or a
    /// primitive array somewhere (an array of non-borrowing values is an owned `Vec`), or
    /// with an arena, any array.
    pub(super) fn borrows(&self, w: &Wire) -> bool {
        wire_borrows(w, &self.struct_borrows, self.opts.memory)
    }

    pub(super) fn arena(&self) -> bool {
        self.opts.memory == Memory::Arena
    }

    /// `expr` (a value of field `decl_index`'s unboxed type) as the boxed field's value.
    pub(super) fn rebox(&self, owner: TypeId, decl_index: usize, expr: String) -> String {
        if !self.boxed.field(owner, decl_index) {
            return expr;
        }
        let mut options = 0;
        let mut w = self
            .layout
            .get(owner)
            .and_then(|t| t.field_by_decl(decl_index))
            .map(|f| &f.wire);
        while let Some(Wire::Optional(e)) = w {
            options += 1;
            w = Some(e);
        }
        match options {
            0 => format!("Box::new({expr})"),
            1 => format!("{expr}.map(Box::new)"),
            n => {
                let mut f = "Box::new".to_string();
                for d in 1..n {
                    f = format!("|b{d}: Option<_>| b{d}.map({f})");
                }
                format!("{expr}.map({f})")
            }
        }
    }

    pub(super) fn members(&self, id: TypeId, t: &TypeLayout) -> Vec<Member> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![Member {
                access: "0".into(),
                wire: t.wire.clone(),
                decl: None,
            }];
        }
        let names = self.field_names(id);
        t.fields
            .iter()
            .map(|f| {
                let base = &names[f.decl_index];
                Member {
                    access: ident(base),
                    wire: f.wire.clone(),
                    decl: Some(f.decl_index),
                }
            })
            .collect()
    }

    /// snake_case field names in declaration order, made unique, not yet escaped.
    pub(super) fn field_names(&self, id: TypeId) -> &[String] {
        self.field_names.get(id).map_or(&[], Vec::as_slice)
    }

    /// The plan of type `id` (every type with a layout has one).
    pub(super) fn plan_of(&self, id: TypeId) -> Option<&TypePlan> {
        self.plan.get(id)
    }

    /// The struct reached through field `i` of struct `ty`.
    fn nested(&self, ty: TypeId, i: usize) -> Option<TypeId> {
        match self.layout.get(ty)?.field_by_decl(i)?.wire {
            Wire::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// `self.`-relative place of a plan path: `0` for a non-struct type's value,
    /// `inner.name` for a field of an inlined struct.
    pub(super) fn access(&self, owner: TypeId, path: &[usize]) -> String {
        if path.is_empty() {
            return "0".into();
        }
        let mut ty = owner;
        let mut parts = Vec::with_capacity(path.len());
        for &i in path {
            parts.push(self.field_names(ty).get(i).map_or_else(|| "_".into(), |n| ident(n)));
            ty = self.nested(ty, i).unwrap_or(ty);
        }
        parts.join(".")
    }

    /// The decoder's local variable for a plan path: a field's own name where that is
    /// safe (so the struct literal can use the shorthand `Self { name, .. }`), else
    /// `f_name`.
    pub(super) fn local(&self, owner: TypeId, path: &[usize]) -> String {
        match path {
            [] => "f_0".into(),
            [i] => {
                let name = self.field_names(owner).get(*i).map_or("", |s| s.as_str());
                if local_is_field_name(name) {
                    ident(name)
                } else {
                    format!("f_{name}")
                }
            }
            _ => {
                let idx: Vec<String> = path.iter().map(|i| i.to_string()).collect();
                format!("i_{}", idx.join("_"))
            }
        }
    }

    /// The error-path context of a plan path (innermost field first).
    pub(super) fn ctx(&self, owner: TypeId, path: &[usize]) -> Ctx {
        let mut ty = owner;
        let mut segs = Vec::with_capacity(path.len());
        for &i in path {
            let name = self.schema.types[ty]
                .fields()
                .get(i)
                .map_or("?", |f| f.json_name.as_str());
            segs.push(Seg::Field(format!("{name:?}")));
            ty = self.nested(ty, i).unwrap_or(ty);
        }
        segs.reverse();
        Ctx(segs)
    }

    /// What a read's result is followed by to add `ctx` to an error's path: the runtime's
    /// `At` methods for the common shapes (shorter source), `map_err` otherwise.
    pub(super) fn map_err(ctx: &Ctx) -> String {
        match ctx.0.as_slice() {
            [] => String::new(),
            [Seg::Field(name)] => format!(".at({name})"),
            [Seg::Index(i), Seg::Field(name)] => format!(".at_index({i}, {name})"),
            segs => {
                let calls: Vec<String> = segs
                    .iter()
                    .map(|s| match s {
                        Seg::Field(name) => format!(".field({name})"),
                        Seg::Index(i) => format!(".index({i})"),
                    })
                    .collect();
                format!(".map_err(|e| e{})", calls.concat())
            }
        }
    }
}
