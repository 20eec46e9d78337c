//! The generator over one schema's encoding plan ([`wirelens_core::plan`]), and the
//! plan's steps resolved to C: member accesses and JSON paths ([`Item`], [`BLeaf`]), the
//! error context of a failed decode, and the names and storage of the per-type codec
//! functions. A struct that is the element of a single array has its functions inlined
//! into that array's loop ([`inlined_elements`]).

use std::collections::HashSet;

use super::names::Names;
use crate::EmitError;
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{Layout, LeafKind, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};
use wirelens_core::plan::{Plan, Step, TypePlan, Value};

/// (inlined, elements): `elements` are the structs whose every use as a value is as the
/// element of an array (coded many times per message); `inlined`, those of them with a
/// single use, get their measure, write and read functions forced inline (`WL__ELEM`;
/// schemas have no cycles, so none inlines itself). gcc -O2 kept AudioUnit's
/// `Parameter_read` out of line (the table takes its address): a call, a 6-register
/// prologue and the reader reloaded per element; inlined, view decode 0.83×. One use
/// keeps the code growth to one copy per type.
pub(super) fn inlined_elements(plan: &Plan) -> (HashSet<TypeId>, HashSet<TypeId>) {
    let (mut inlined, mut elements) = (HashSet::new(), HashSet::new());
    for (id, u) in plan.struct_uses().into_iter().enumerate() {
        if u.only_as_elements() {
            elements.insert(id);
            if u.count == 1 {
                inlined.insert(id);
            }
        }
    }
    (inlined, elements)
}

/// A leaf of a fixed block, resolved to C.
pub(super) struct BLeaf {
    /// Member access from the struct (`info.vendor`).
    pub(super) access: String,
    /// JSON path for errors (`info.vendor`).
    pub(super) json: String,
    pub(super) kind: LeafKind,
    pub(super) at: u64,
    /// Declaration indices from the owner (adjacency in the C struct, see `blocks::runs`).
    pub(super) path: Vec<usize>,
}

/// A plan step with its paths resolved to C member accesses and JSON names.
pub(super) enum Item {
    /// [`Step::Block`]: one bounds check, constant-offset loads and stores.
    Block { size: u64, leaves: Vec<BLeaf> },
    /// [`Step::Value`]; for non-struct types the whole value (`access` empty).
    Var { access: String, json: String, value: Value },
}

/// An error-context step: pushed onto a failed decode's path, innermost first.
#[derive(Clone)]
pub(super) enum Ctx {
    Field(String),
    Index(String),
}

pub(super) struct Gen<'s> {
    pub(super) schema: &'s Schema,
    pub(super) layout: &'s Layout,
    pub(super) plan: &'s Plan,
    pub(super) n: &'s Names,
    /// [`inlined_elements`].
    pub(super) inlined: HashSet<TypeId>,
    /// Structs only used as array elements: their blocks are copied in runs (`blocks::runs`;
    /// a run's fallback text costs gen time and output size, so only where a struct is
    /// coded many times per message).
    pub(super) elements: HashSet<TypeId>,
}

/// The C type shape of a planned value (to name array elements and optionals).
pub(super) fn wire_of(v: &Value) -> Wire {
    match v {
        Value::Prim(p) => Wire::Prim(*p),
        Value::Str(_) => Wire::Prim(Primitive::Str),
        Value::BulkPrims(_, p) => Wire::Array(Box::new(Wire::Prim(*p))),
        Value::Array { elem, .. } => Wire::Array(Box::new(wire_of(elem))),
        Value::Optional(e) => Wire::Optional(Box::new(wire_of(e))),
        Value::Struct { id, .. } => Wire::Struct(*id),
    }
}

impl Gen<'_> {
    pub(super) fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    /// Length / count prefix bytes: 4 (SDP) or 2 (ffire).
    pub(super) fn prefix(&self) -> u64 {
        self.plan.prefix.bytes()
    }

    /// The plan's steps with their paths resolved.
    pub(super) fn items(&self, p: &TypePlan) -> Result<Vec<Item>, EmitError> {
        let mut items = Vec::with_capacity(p.steps.len());
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => items.push(Item::Block {
                    size: block.size,
                    leaves: block
                        .leaves
                        .iter()
                        .map(|l| self.leaf(p.id, &l.path, l.kind, l.at))
                        .collect::<Result<Vec<_>, _>>()?,
                }),
                Step::Value { path, value } => {
                    let (access, json) = self.path_names(p.id, path)?;
                    items.push(Item::Var {
                        access,
                        json,
                        value: value.clone(),
                    });
                }
            }
        }
        Ok(items)
    }

    /// Resolves a block leaf's path (declaration indices from `owner`) to C and JSON names.
    pub(super) fn leaf(&self, owner: TypeId, path: &[usize], kind: LeafKind, at: u64) -> Result<BLeaf, EmitError> {
        let (access, json) = self.path_names(owner, path)?;
        Ok(BLeaf {
            access,
            json,
            kind,
            at,
            path: path.to_vec(),
        })
    }

    /// (C member access, JSON path) of a plan path; both empty for the empty path.
    pub(super) fn path_names(&self, owner: TypeId, path: &[usize]) -> Result<(String, String), EmitError> {
        let mut access = Vec::with_capacity(path.len());
        let mut json = Vec::with_capacity(path.len());
        let mut ty = owner;
        for (k, &i) in path.iter().enumerate() {
            let def = &self.schema.types[ty];
            let bad = || EmitError(format!("internal error: bad plan path in `{}`", def.name));
            let f = def.fields().get(i).ok_or_else(bad)?;
            access.push(self.n.fields(ty).get(i).cloned().unwrap_or_default());
            json.push(f.json_name.clone());
            if k + 1 < path.len() {
                ty = match self.layout.get(ty).and_then(|t| t.field_by_decl(i)).map(|f| &f.wire) {
                    Some(Wire::Struct(n)) => *n,
                    _ => return Err(bad()),
                };
            }
        }
        Ok((access.join("."), json.join(".")))
    }

    /// Fixed-size structs used whole inside some block (they get `_get`/`_put`).
    pub(super) fn block_structs(&self) -> HashSet<TypeId> {
        let leaf_structs = |p: &TypePlan| -> Vec<TypeId> {
            p.steps
                .iter()
                .flat_map(|s| match s {
                    Step::Block { block, .. } => block.leaves.as_slice(),
                    _ => &[],
                })
                .filter_map(|l| match l.kind {
                    LeafKind::Struct(s) => Some(s),
                    LeafKind::Prim(_) => None,
                })
                .collect()
        };
        let mut out = HashSet::new();
        let mut stack: Vec<TypeId> = Vec::new();
        for p in self.plan.types.iter().flatten() {
            if p.is_struct || p.root {
                for s in leaf_structs(p) {
                    if out.insert(s) {
                        stack.push(s);
                    }
                }
            }
        }
        // A struct's get/put call those of the fixed structs inside it.
        while let Some(s) = stack.pop() {
            for inner in self.plan.get(s).map(leaf_structs).unwrap_or_default() {
                if out.insert(inner) {
                    stack.push(inner);
                }
            }
        }
        out
    }

    pub(super) fn sdp_structs(&self) -> Vec<(TypeId, u16)> {
        self.schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, _)| Some((id, self.layout.get(id)?.message_id?)))
            .collect()
    }

    /// The owned or view C type of value type `id`.
    pub(super) fn tname(&self, id: TypeId, view: bool) -> String {
        let t = self.layout.get(id);
        if view && t.is_some_and(|t| self.n.has_view_wire(&t.wire)) {
            self.n.view_name(id)
        } else {
            self.n.type_name(id)
        }
    }

    /// How a codec function of `id` is declared: `WL__ELEM` for [`inlined_elements`].
    pub(super) fn storage(&self, id: TypeId, default: &'static str) -> &'static str {
        if self.inlined.contains(&id) {
            "WL__ELEM"
        } else {
            default
        }
    }

    /// The name of a per-type function, `T_measure` or `T_view_measure`.
    pub(super) fn fname(&self, id: TypeId, view: bool, what: &str) -> String {
        let distinct = self.layout.get(id).is_some_and(|t| self.n.has_view_wire(&t.wire));
        if view && distinct {
            format!("{}_view_{what}", self.n.type_name(id))
        } else {
            format!("{}_{what}", self.n.type_name(id))
        }
    }

    pub(super) fn place(base: &str, access: &str) -> String {
        if access.is_empty() {
            format!("(*{base})")
        } else {
            format!("{base}->{access}")
        }
    }
}
