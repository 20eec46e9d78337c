//! The generator over one schema's encoding plan ([`wirelens_core::plan`]), and the plan's
//! paths resolved to C++: member accesses and the JSON names of error paths ([`Place`],
//! [`Gen::err`]), the members of a value type, and which structs' reads are forced inline
//! ([`Gen::read_hot`]).

use std::fmt::Write as _;

use super::names::lit;
use crate::OwnedStrings;
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{Layout, TypeLayout, Wire};
use wirelens_core::model::{Schema, TypeId};
use wirelens_core::plan::{Plan, Step, StructUses, Value};

/// One member of a value type: a struct field, or the single `value` of a root alias.
pub(super) struct Member {
    /// The C++ member name.
    pub(super) access: String,
    pub(super) wire: Wire,
}

/// Where a plan path lands in the generated value: the member access below it
/// (`.holder.x`) and the JSON names from the struct down (for error paths; empty for
/// the `value` of a non-struct type).
pub(super) struct Place {
    pub(super) access: String,
    pub(super) names: Vec<String>,
}

pub(super) struct Gen<'s> {
    pub(super) schema: &'s Schema,
    pub(super) layout: &'s Layout,
    /// The encoding plan every size, order, block and prefix is rendered from.
    pub(super) plan: Plan,
    pub(super) names: Vec<String>,
    pub(super) views: Vec<Option<String>>,
    /// The C++ member names of each type's fields, by declaration index.
    pub(super) members: Vec<Vec<String>>,
    pub(super) strings: OwnedStrings,
    /// [`crate::Memory::Arena`]: view arrays are `wirelens::Span`s in a caller's arena.
    pub(super) arena: bool,
    /// By type, where the plan writes it ([`Plan::struct_uses`]). Written from exactly one
    /// place (one field, element or payload in the whole schema): its write_to can be
    /// inlined there at no cost in size (see `write_to`). Written only as array elements:
    /// its blocks are stored in `blocks::runs`.
    pub(super) uses: Vec<StructUses>,
}

impl Gen<'_> {
    pub(super) fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    /// `"WIRELENS_HOT "` (forced inline) for the `read_fields` and the view's `read_from`
    /// of a struct read only as the element of one array whose own values have no loop over
    /// structs (AudioUnit's and complex's `Parameter`, array_struct's `Device`, arrays'
    /// `Item`); `""` for every other type. Inlined into that one loop, the `Reader`'s
    /// cursor stays in a register from one element to the next (out of line, each call
    /// reloads it from memory) and the call's prologue goes: AudioUnit arena view 0.90x,
    /// array_struct's 0.80x, with the string read storing its view before the cursor. A
    /// struct that loops over structs itself stays a call: inlining AudioUnit's `Plugin`
    /// (with `Parameter`'s loop inside) into the registry made that view 1.25x slower
    /// (docs/benchmarks/history.md, "#14 session 6").
    pub(super) fn read_hot(&self, id: TypeId) -> &'static str {
        fn loops_over_structs(v: &Value) -> bool {
            match v {
                Value::Array { elem, .. } => matches!(**elem, Value::Struct { .. }) || loops_over_structs(elem),
                Value::Optional(inner) => loops_over_structs(inner),
                Value::Prim(_) | Value::Str(_) | Value::BulkPrims(..) | Value::Struct { .. } => false,
            }
        }
        let one_loop = self.uses.get(id).is_some_and(|u| u.only_as_elements() && u.count == 1);
        let leaf = self.plan.get(id).is_some_and(|p| {
            !p.steps
                .iter()
                .any(|s| matches!(s, Step::Value { value, .. } if loops_over_structs(value)))
        });
        if one_loop && leaf {
            "WIRELENS_HOT "
        } else {
            ""
        }
    }

    pub(super) fn is_value_type(&self, id: TypeId) -> bool {
        self.schema.types[id].is_struct() || self.plan.get(id).is_some_and(|p| p.root)
    }

    pub(super) fn name(&self, id: TypeId) -> &str {
        &self.names[id]
    }

    /// The type the view decoders of `id` return.
    pub(super) fn view_name(&self, id: TypeId) -> &str {
        self.views.get(id).and_then(|v| v.as_deref()).unwrap_or(&self.names[id])
    }

    /// The member access and JSON names of a plan path inside type `owner`.
    pub(super) fn place(&self, owner: TypeId, path: &[usize]) -> Place {
        if path.is_empty() {
            return Place {
                access: ".value".into(),
                names: Vec::new(),
            };
        }
        let mut access = String::new();
        let mut names = Vec::with_capacity(path.len());
        let mut ty = Some(owner);
        for &i in path {
            let Some(t) = ty else { break };
            access.push('.');
            access.push_str(
                self.members
                    .get(t)
                    .and_then(|m| m.get(i))
                    .map_or("unknown_", String::as_str),
            );
            names.push(
                self.schema.types[t]
                    .fields()
                    .get(i)
                    .map_or_else(String::new, |f| f.json_name.clone()),
            );
            ty = self
                .layout
                .get(t)
                .and_then(|l| l.field_by_decl(i))
                .and_then(|f| match f.wire {
                    Wire::Struct(n) => Some(n),
                    _ => None,
                });
        }
        Place { access, names }
    }

    pub(super) fn members(&self, id: TypeId, t: &TypeLayout) -> Vec<Member> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![Member {
                access: "value".into(),
                wire: t.wire.clone(),
            }];
        }
        t.fields
            .iter()
            .map(|f| Member {
                access: self.members[id][f.decl_index].clone(),
                wire: f.wire.clone(),
            })
            .collect()
    }

    /// Members in declaration order (how the C++ struct declares them): (name, docs, wire).
    pub(super) fn declared(&self, id: TypeId, t: &TypeLayout) -> Vec<(String, Vec<String>, Wire)> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![("value".into(), vec![], t.wire.clone())];
        }
        def.fields()
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let fl = t.field_by_decl(i)?;
                Some((self.members[id][i].clone(), f.docs.clone(), fl.wire.clone()))
            })
            .collect()
    }

    /// `return rd<chain>.in_field("x").field("holder");` — the error path of an item:
    /// `chain` holds its array indices (innermost first), `names` the JSON names from the
    /// struct down (empty at a root alias: `.fail()`).
    pub(super) fn err(names: &[String], chain: &str) -> String {
        let Some((outer, inner)) = names.split_first() else {
            return format!("return rd{chain}.fail();");
        };
        let mut s = format!("return rd{chain}");
        for n in inner.iter().rev() {
            let _ = write!(s, ".in_field({})", lit(n));
        }
        let _ = write!(s, ".field({});", lit(outer));
        s
    }
}
