//! The wire-layout engine (spec §5). The only place in wirelens that knows sizes,
//! offsets, field order and fixed blocks. The CLI, the language server, the JSON codec
//! and the emitters all read a [`Layout`]; none recomputes any of it.

use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::model::FieldOrder;
use crate::model::{Primitive, Schema, TypeDef, TypeExpr, TypeExprKind, TypeId, TypeKind};

/// The wire shape of a value: aliases and SDP `Box` resolved away, `**T` collapsed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Wire {
    Prim(Primitive),
    Array(Box<Wire>),
    Optional(Box<Wire>),
    Struct(TypeId),
}

/// Encoded size of a type: exact when `fixed`, else bounded by `min` and `max`
/// (`None` = unbounded, or too large to be worth a number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct SizeInfo {
    pub fixed: Option<u64>,
    pub min: u64,
    pub max: Option<u64>,
}

impl SizeInfo {
    pub fn fixed(n: u64) -> SizeInfo {
        SizeInfo {
            fixed: Some(n),
            min: n,
            max: Some(n),
        }
    }

    fn then(self, next: SizeInfo) -> SizeInfo {
        let fixed = self.fixed.zip(next.fixed).and_then(|(a, b)| a.checked_add(b));
        SizeInfo {
            fixed,
            min: self.min.saturating_add(next.min),
            max: self.max.zip(next.max).and_then(|(a, b)| a.checked_add(b)),
        }
    }
}

/// A byte offset inside a struct: a constant plus the variable part of every earlier
/// variable-size field (`|name|` = the bytes of `name` beyond its minimum size: a
/// string's length, an array's elements, a present option's value).
///
/// The variable part is a range, not a list: the first `count` of the struct's
/// variable-size fields in wire order, a list all offsets of one struct share. Spelled
/// out per field, a struct of N strings held N²/2 names (32,000 fields: 9 GB).
#[derive(Debug, Clone)]
pub struct Offset {
    pub constant: u64,
    /// The names of the struct's variable-size fields in wire order (shared).
    vars: std::sync::Arc<[std::sync::Arc<str>]>,
    /// How many of `vars` come before this offset.
    count: usize,
}

/// How many `|name|` terms [`Offset::expr`] spells out before it shortens an offset to
/// its first and last terms and their count.
pub const MAX_OFFSET_TERMS: usize = 16;

impl Offset {
    /// Offset 0.
    pub fn zero() -> Offset {
        Offset {
            constant: 0,
            vars: std::sync::Arc::from(Vec::new()),
            count: 0,
        }
    }

    pub fn constant(&self) -> Option<u64> {
        (self.count == 0).then_some(self.constant)
    }

    /// The variable-size fields before this offset, in wire order.
    pub fn terms(&self) -> &[std::sync::Arc<str>] {
        self.vars.get(..self.count).unwrap_or_default()
    }

    /// `12`, or `12 + |display_name| + |identifier|`; beyond [`MAX_OFFSET_TERMS`]
    /// terms `12 + |first| + … + |last| (N variable-size fields)`, so that a struct's
    /// offsets take space linear in its fields.
    pub fn expr(&self) -> String {
        self.expr_with(MAX_OFFSET_TERMS, " + ")
    }

    /// [`Offset::expr`] with at most `max_terms` terms spelled out (at least 2) and
    /// `sep` between them.
    pub fn expr_with(&self, max_terms: usize, sep: &str) -> String {
        let terms = self.terms();
        let mut s = self.constant.to_string();
        let push = |s: &mut String, t: &str| {
            s.push_str(sep);
            s.push('|');
            s.push_str(t);
            s.push('|');
        };
        match terms {
            [first, .., last] if terms.len() > max_terms.max(2) => {
                push(&mut s, first);
                s.push_str(sep);
                s.push('…');
                push(&mut s, last);
                s.push_str(&format!(" ({} variable-size fields)", terms.len()));
            }
            _ => terms.iter().for_each(|t| push(&mut s, t)),
        }
        s
    }
}

impl PartialEq for Offset {
    fn eq(&self, other: &Offset) -> bool {
        self.constant == other.constant
            && self.count == other.count
            && (std::sync::Arc::ptr_eq(&self.vars, &other.vars) || self.terms() == other.terms())
    }
}

impl Eq for Offset {}

impl std::hash::Hash for Offset {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.constant.hash(state);
        self.terms().hash(state);
    }
}

/// Offsets of a run of fields in order: [`Offsets::place`] each field's size, then
/// [`Offsets::finish`] turns the places into [`Offset`]s sharing one list of names.
struct Offsets {
    constant: u64,
    names: Vec<std::sync::Arc<str>>,
}

impl Offsets {
    fn new() -> Offsets {
        Offsets {
            constant: 0,
            names: Vec::new(),
        }
    }

    /// The place of the next field, then advances past it (`size`, named `name`).
    fn place(&mut self, size: &SizeInfo, name: impl FnOnce() -> String) -> (u64, usize) {
        let here = (self.constant, self.names.len());
        self.constant = self.constant.saturating_add(size.min);
        if size.fixed.is_none() {
            self.names.push(name().into());
        }
        here
    }

    fn finish(self) -> impl Fn((u64, usize)) -> Offset {
        let vars: std::sync::Arc<[std::sync::Arc<str>]> = self.names.into();
        move |(constant, count)| Offset {
            constant,
            vars: vars.clone(),
            count,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldLayout {
    /// Index in the struct as written.
    pub decl_index: usize,
    /// Position on the wire (0-based).
    pub wire_index: usize,
    pub wire: Wire,
    pub size: SizeInfo,
    pub offset: Offset,
}

/// A maximal run of a struct's consecutive fixed-size fields (a nested fixed-size struct
/// is one leaf): what a generator reads or writes with one bounds check and one packed
/// copy. Each block is one copy in generated code, so the hover, the
/// `split-fixed-block` lint and the generators' layout comments all count these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedBlock {
    pub offset: Offset,
    pub size: u64,
    pub leaves: Vec<Leaf>,
}

/// What a block is made of: a fixed-size primitive, or a whole fixed-size nested
/// struct (whose own layout is a single block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    Prim(Primitive),
    Struct(TypeId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// Field indices (declaration order) from the struct down to this leaf.
    pub path: Vec<usize>,
    pub kind: LeafKind,
    pub size: u64,
    /// Byte position inside the block.
    pub at: u64,
}

impl Leaf {
    /// Dotted field names from the struct `owner` down to this leaf (`rect.top_left`).
    pub fn name(&self, layout: &Layout, schema: &Schema, owner: TypeId) -> String {
        path_name(schema, owner, &self.path, |t, i| {
            layout.get(t)?.field_by_decl(i).map(|f| &f.wire)
        })
    }
}

/// Dotted names along a path of declaration indices, following each field's wire into
/// the nested struct. `wire_of(t, i)` is the wire of struct `t`'s `i`-th declared field.
fn path_name<'w>(
    schema: &Schema,
    owner: TypeId,
    path: &[usize],
    wire_of: impl Fn(TypeId, usize) -> Option<&'w Wire>,
) -> String {
    let mut names: Vec<&str> = Vec::with_capacity(path.len());
    let mut ty = Some(owner);
    for &i in path {
        let Some(t) = ty else { break };
        names.push(
            schema
                .types
                .get(t)
                .and_then(|d| d.fields().get(i))
                .map_or("?", |f| f.name.as_str()),
        );
        ty = wire_of(t, i).and_then(|w| match w {
            Wire::Struct(n) => Some(*n),
            _ => None,
        });
    }
    names.join(".")
}

/// One item of a struct's [`TypeLayout::walk`]. Paths are declaration indices from the
/// struct down; the layout inlines nothing, so they have length 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkItem {
    /// `blocks[i]`, written and read as one unit.
    Block(usize),
    /// A variable-size value read and written on its own; a nested variable-size
    /// struct is one such item (generated code calls its own read/write).
    Item { path: Vec<usize>, wire: Wire },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeLayout {
    pub id: TypeId,
    /// `Wire::Struct(id)` for a struct, else the resolved target of the alias.
    pub wire: Wire,
    pub size: SizeInfo,
    /// Struct fields in wire order; empty for other types.
    pub fields: Vec<FieldLayout>,
    pub blocks: Vec<FixedBlock>,
    /// The walk that produced `blocks`, in wire order: every block and every
    /// variable-size item between them. Empty for non-struct types. `wirelens_core::plan`
    /// reads it and takes its decisions as they are.
    pub walk: Vec<WalkItem>,
    /// SDP: the message type id (1-based position in the file).
    pub message_id: Option<u16>,
    /// ffire: a message type (exported, never referenced).
    pub root: bool,
    /// Per declaration index, the position of that field in `fields`.
    by_decl: Vec<usize>,
}

impl TypeLayout {
    /// Fields in wire order differ from the order written.
    pub fn is_reordered(&self) -> bool {
        self.fields.iter().any(|f| f.decl_index != f.wire_index)
    }

    /// The field declared `decl_index`-th (an index built with the layout: callers
    /// look up every field, and a search each was quadratic in wide structs).
    pub fn field_by_decl(&self, decl_index: usize) -> Option<&FieldLayout> {
        self.fields.get(*self.by_decl.get(decl_index)?)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub dialect: Dialect,
    pub order: FieldOrder,
    /// Indexed by [`TypeId`]; `None` where the type mentions an unknown name or is part
    /// of (or depends on) a cycle.
    pub types: Vec<Option<TypeLayout>>,
    /// Per type, a hash of everything its layout depends on (see [`fingerprint`]); lets
    /// [`Layout::compute_reusing`] keep the layouts an edit did not touch.
    pub fingerprints: Vec<u64>,
}

impl Layout {
    pub fn get(&self, id: TypeId) -> Option<&TypeLayout> {
        self.types.get(id).and_then(Option::as_ref)
    }

    /// The encoded size of any wire shape of this schema (exact, or its bounds).
    pub fn size_of(&self, wire: &Wire) -> SizeInfo {
        wire_size(self.dialect, wire, &|id| self.get(id).map(|t| t.size))
    }

    /// Bytes of the length prefix of strings and the count prefix of arrays.
    pub fn length_prefix(&self) -> u64 {
        self.dialect.length_prefix()
    }

    pub fn compute(schema: &Schema) -> Layout {
        Layout::compute_reusing(schema, &Graph::new(schema), &[], None)
    }

    /// [`Layout::compute`], taking over from `previous` (the layout before an edit) every
    /// type whose fingerprint is unchanged, so typing in one struct of a 5,000-struct
    /// schema recomputes that struct and the structs that contain it, not all of them.
    /// The result is identical to a fresh computation.
    /// `graph` is `Graph::new(schema)`, `shapes[id]` the [`shape_hash`] of type `id`.
    pub fn compute_reusing(schema: &Schema, graph: &Graph, shapes: &[u64], previous: Option<Layout>) -> Layout {
        let mut previous = previous.filter(|p| p.dialect == schema.dialect && p.order == schema.order);
        let (order, bad) = (&graph.order, &graph.unresolvable);
        let referenced = referenced_types(graph);
        let mut engine = Engine {
            schema,
            types: vec![None; schema.types.len()],
        };
        let mut fingerprints = vec![0u64; schema.types.len()];
        for &id in order {
            if bad[id] {
                continue;
            }
            let shape = shapes.get(id).copied().unwrap_or_else(|| shape_hash(&schema.types[id]));
            fingerprints[id] = fingerprint(schema, graph, id, shape, &fingerprints);
            let reusable = previous
                .as_mut()
                .filter(|p| p.fingerprints.get(id) == Some(&fingerprints[id]))
                .and_then(|p| p.types.get_mut(id))
                .and_then(Option::take);
            if let Some(t) = reusable {
                engine.types[id] = Some(t);
                continue;
            }
            let def = &schema.types[id];
            let layout = match &def.kind {
                TypeKind::Struct { fields, .. } => {
                    let mut laid: Vec<FieldLayout> = Vec::with_capacity(fields.len());
                    for (decl_index, f) in fields.iter().enumerate() {
                        let Some(wire) = engine.wire_of(&f.ty) else { break };
                        let size = engine.size_of(&wire);
                        laid.push(FieldLayout {
                            decl_index,
                            wire_index: 0,
                            wire,
                            size,
                            offset: Offset::zero(),
                        });
                    }
                    if laid.len() != fields.len() {
                        continue; // an unsupported construct, already reported
                    }
                    engine.sort_fields(&mut laid, fields);
                    let mut offsets = Offsets::new();
                    let mut size = SizeInfo::fixed(0);
                    let places: Vec<(u64, usize)> = laid
                        .iter()
                        .map(|f| {
                            size = size.then(f.size);
                            offsets.place(&f.size, || fields[f.decl_index].name.clone())
                        })
                        .collect();
                    let offset_at = offsets.finish();
                    let mut by_decl = vec![0; laid.len()];
                    for (wire_index, (f, place)) in laid.iter_mut().zip(places).enumerate() {
                        f.wire_index = wire_index;
                        f.offset = offset_at(place);
                        if let Some(slot) = by_decl.get_mut(f.decl_index) {
                            *slot = wire_index;
                        }
                    }
                    // In place first: its blocks are computed from its own fields.
                    engine.types[id] = Some(TypeLayout {
                        id,
                        wire: Wire::Struct(id),
                        size,
                        fields: laid,
                        blocks: Vec::new(),
                        walk: Vec::new(),
                        message_id: None,
                        root: false,
                        by_decl,
                    });
                    let (blocks, walk) = engine.blocks(id);
                    if let Some(t) = engine.types[id].as_mut() {
                        t.blocks = blocks;
                        t.walk = walk;
                    }
                    continue;
                }
                TypeKind::Alias { target, .. } => {
                    let Some(wire) = engine.wire_of(target) else { continue };
                    let size = engine.size_of(&wire);
                    TypeLayout {
                        id,
                        wire,
                        size,
                        fields: vec![],
                        blocks: vec![],
                        walk: vec![],
                        message_id: None,
                        root: false,
                        by_decl: vec![],
                    }
                }
            };
            engine.types[id] = Some(layout);
        }
        let mut types = engine.types;
        for (id, t) in types.iter_mut().enumerate() {
            let Some(t) = t else { continue };
            match schema.dialect {
                Dialect::Sdp => t.message_id = u16::try_from(id + 1).ok(),
                Dialect::Ffi => t.root = schema.types[id].is_exported() && !referenced[id],
            }
        }
        Layout {
            dialect: schema.dialect,
            order: schema.order,
            types,
            fingerprints,
        }
    }
}

/// A hash of what declaration `def` says about layout on its own: its name, its
/// fields' names and type shapes (not source ranges or docs; a reference counts by
/// name, what it resolves to is added by [`fingerprint`]). A declaration whose text an
/// edit did not touch keeps it, so the analysis computes it once per declaration.
pub fn shape_hash(def: &TypeDef) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    def.name.hash(&mut h);
    let ty = |t: &TypeExpr, h: &mut rustc_hash::FxHasher| {
        let mut cur = Some(t);
        while let Some(t) = cur {
            cur = None;
            match &t.kind {
                TypeExprKind::Primitive(p) => (0u8, *p).hash(h),
                TypeExprKind::Named { name, .. } => (1u8, name).hash(h),
                TypeExprKind::Array(e) => {
                    2u8.hash(h);
                    cur = Some(e);
                }
                TypeExprKind::Optional(e) => {
                    3u8.hash(h);
                    cur = Some(e);
                }
                TypeExprKind::Boxed(e) => {
                    4u8.hash(h);
                    cur = Some(e);
                }
                TypeExprKind::Invalid => 5u8.hash(h),
            }
        }
    };
    match &def.kind {
        TypeKind::Struct { fields, .. } => {
            (0u8, fields.len()).hash(&mut h);
            for f in fields {
                f.name.hash(&mut h);
                ty(&f.ty, &mut h);
            }
        }
        TypeKind::Alias { target, .. } => {
            1u8.hash(&mut h);
            ty(target, &mut h);
        }
    }
    h.finish()
}

/// A hash of what type `id`'s layout depends on: the dialect and order, its position,
/// its [`shape_hash`], and what each reference resolves to with that type's fingerprint
/// (`deps`, computed first: dependency order).
fn fingerprint(schema: &Schema, graph: &Graph, id: TypeId, shape: u64, deps: &[u64]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    (schema.dialect as u8, schema.order as u8, id, shape).hash(&mut h);
    for e in graph.edges(id) {
        (e.field, e.to, deps.get(e.to)).hash(&mut h);
    }
    h.finish()
}

/// Types mentioned by some other type (ffire roots are the exported types that are not).
pub fn referenced_types(graph: &Graph) -> Vec<bool> {
    let mut referenced = vec![false; graph.len()];
    for from in 0..graph.len() {
        for e in graph.edges(from) {
            if e.to != from {
                referenced[e.to] = true;
            }
        }
    }
    referenced
}

/// The wire shape of a type expression, given the layouts known so far.
fn wire_of<'l>(ty: &TypeExpr, get: &impl Fn(TypeId) -> Option<&'l TypeLayout>) -> Option<Wire> {
    Some(match &ty.kind {
        TypeExprKind::Primitive(p) => Wire::Prim(*p),
        TypeExprKind::Named { target, .. } => get((*target)?)?.wire.clone(),
        TypeExprKind::Array(e) => Wire::Array(Box::new(wire_of(e, get)?)),
        TypeExprKind::Optional(e) => match wire_of(e, get)? {
            w @ Wire::Optional(_) => w,
            // ffire `*Count` with `type Count int32` (or a named `string`): upstream drops
            // the `*` and writes no presence byte (spec §3.1); only ffire has named primitives.
            w @ Wire::Prim(_) if matches!(e.kind, TypeExprKind::Named { .. }) => w,
            w => Wire::Optional(Box::new(w)),
        },
        TypeExprKind::Boxed(e) => wire_of(e, get)?,
        TypeExprKind::Invalid => return None,
    })
}

/// One field of a struct that has no layout (see [`Layout::partial`]): what is known of
/// it. `None` is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialField {
    pub decl_index: usize,
    pub offset: Option<Offset>,
    pub wire: Option<Wire>,
    pub size: Option<SizeInfo>,
}

impl Layout {
    /// What is known of struct `id` when it has no layout (a field's type is unknown,
    /// broken or has no layout itself): in declaration order each field's size when its
    /// type has a layout, and its offset while every field before it has one. The
    /// editor shows these instead of nothing while the schema is being edited. ffire's
    /// canonical order places fields by size class, so there no offset is known.
    /// `None` when the type has a layout or is not a struct.
    pub fn partial(&self, schema: &Schema, id: TypeId) -> Option<Vec<PartialField>> {
        if self.get(id).is_some() {
            return None;
        }
        let TypeKind::Struct { fields, .. } = &schema.types.get(id)?.kind else {
            return None;
        };
        let placed = !(self.dialect == Dialect::Ffi && self.order == FieldOrder::Canonical);
        // Each field's offset while every field before it has a size.
        let mut known = placed;
        let mut offsets = Offsets::new();
        let mut out = Vec::with_capacity(fields.len());
        let mut places = Vec::with_capacity(fields.len());
        for (decl_index, f) in fields.iter().enumerate() {
            let wire = wire_of(&f.ty, &|t| self.get(t));
            let size = wire.as_ref().map(|w| self.size_of(w));
            places.push(known.then(|| match &size {
                Some(s) => offsets.place(s, || f.name.clone()),
                None => offsets.place(&SizeInfo::fixed(0), String::new),
            }));
            known &= size.is_some();
            out.push(PartialField {
                decl_index,
                offset: None,
                wire,
                size,
            });
        }
        let offset_at = offsets.finish();
        for (p, place) in out.iter_mut().zip(places) {
            p.offset = place.map(&offset_at);
        }
        Some(out)
    }
}

struct Engine<'s> {
    schema: &'s Schema,
    /// The layouts computed or reused so far (dependencies come first).
    types: Vec<Option<TypeLayout>>,
}

impl Engine<'_> {
    fn laid_out(&self, id: TypeId) -> Option<&TypeLayout> {
        self.types.get(id)?.as_ref()
    }

    /// A laid-out struct's fields in wire order.
    fn laid(&self, id: TypeId) -> Option<&[FieldLayout]> {
        let t = self.laid_out(id)?;
        matches!(t.wire, Wire::Struct(s) if s == id).then_some(&t.fields[..])
    }

    fn wire_of(&self, ty: &TypeExpr) -> Option<Wire> {
        wire_of(ty, &|id| self.laid_out(id))
    }

    fn size_of(&self, wire: &Wire) -> SizeInfo {
        wire_size(self.schema.dialect, wire, &|id| self.laid_out(id).map(|t| t.size))
    }

    /// ffire canonical order (spec §3.2): stable sort by size class, then by Go
    /// field name byte-wise. Declaration order otherwise.
    fn sort_fields(&self, laid: &mut [FieldLayout], fields: &[crate::model::Field]) {
        if self.schema.dialect != Dialect::Ffi || self.schema.order != FieldOrder::Canonical {
            return;
        }
        laid.sort_by(|a, b| {
            (size_class(&a.wire, &a.size), fields[a.decl_index].name.as_bytes())
                .cmp(&(size_class(&b.wire, &b.size), fields[b.decl_index].name.as_bytes()))
        });
    }

    /// The inlining decision, made here once for every view: struct `id`'s consecutive
    /// fixed-size fields (primitives and whole fixed-size nested structs, each one leaf)
    /// form blocks starting at their first field's offset; every variable-size field is
    /// an item of its own, a nested variable-size struct included (a call boundary:
    /// generated code calls its own read/write instead of copying its body into every
    /// parent, issue #13).
    fn blocks(&self, id: TypeId) -> (Vec<FixedBlock>, Vec<WalkItem>) {
        let Some(fields) = self.laid(id) else {
            return (Vec::new(), Vec::new());
        };
        let mut blocks: Vec<FixedBlock> = Vec::new();
        let mut walk: Vec<WalkItem> = Vec::with_capacity(fields.len());
        for f in fields {
            let kind = match (&f.wire, f.size.fixed) {
                (Wire::Prim(p), Some(_)) => Some(LeafKind::Prim(*p)),
                (Wire::Struct(nested), Some(_)) => Some(LeafKind::Struct(*nested)),
                _ => None,
            };
            let (Some(kind), Some(n)) = (kind, f.size.fixed) else {
                walk.push(WalkItem::Item {
                    path: vec![f.decl_index],
                    wire: f.wire.clone(),
                });
                continue;
            };
            if !matches!(walk.last(), Some(WalkItem::Block(_))) {
                walk.push(WalkItem::Block(blocks.len()));
                blocks.push(FixedBlock {
                    offset: f.offset.clone(),
                    size: 0,
                    leaves: Vec::new(),
                });
            }
            if let Some(b) = blocks.last_mut() {
                b.leaves.push(Leaf {
                    path: vec![f.decl_index],
                    kind,
                    size: n,
                    at: b.size,
                });
                b.size += n;
            }
        }
        (blocks, walk)
    }
}

/// The encoded size of `wire` in `dialect`, nested structs' sizes from `struct_size`.
/// The one size rule; [`Layout::size_of`] and the layout engine both use it.
fn wire_size(dialect: Dialect, wire: &Wire, struct_size: &dyn Fn(TypeId) -> Option<SizeInfo>) -> SizeInfo {
    let prefix = dialect.length_prefix();
    match wire {
        Wire::Prim(Primitive::Str) => SizeInfo {
            fixed: None,
            min: prefix,
            max: dialect.max_length().map(|m| prefix + m),
        },
        Wire::Prim(p) => SizeInfo::fixed(p.fixed_size().unwrap_or(0)),
        Wire::Array(e) => {
            let elem = wire_size(dialect, e, struct_size);
            let max = dialect
                .max_length()
                .zip(elem.max)
                .and_then(|(n, m)| n.checked_mul(m))
                .and_then(|b| b.checked_add(prefix));
            SizeInfo {
                fixed: None,
                min: prefix,
                max,
            }
        }
        Wire::Optional(e) => {
            let inner = wire_size(dialect, e, struct_size);
            SizeInfo {
                fixed: None,
                min: 1,
                max: inner.max.and_then(|m| m.checked_add(1)),
            }
        }
        Wire::Struct(id) => struct_size(*id).unwrap_or(SizeInfo::fixed(0)),
    }
}

/// ffire's size classes: 8-byte (int64, float64, fixed-size structs) < 4-byte <
/// 2-byte < 1-byte < variable < optional.
fn size_class(wire: &Wire, size: &SizeInfo) -> u8 {
    match wire {
        Wire::Prim(Primitive::I64 | Primitive::U64 | Primitive::F64) => 0,
        Wire::Struct(_) if size.fixed.is_some() => 0,
        Wire::Prim(Primitive::I32 | Primitive::U32 | Primitive::F32) => 1,
        Wire::Prim(Primitive::I16 | Primitive::U16) => 2,
        Wire::Prim(Primitive::I8 | Primitive::U8 | Primitive::Bool) => 3,
        Wire::Optional(_) => 5,
        Wire::Prim(Primitive::Str) | Wire::Array(_) | Wire::Struct(_) => 4,
    }
}

/// A size in the editor's one notation: `+` for plus, ` or ` for alternatives, `n×` for
/// a count times an element, `len` for a string's byte length, `≥` for a minimum (no
/// `|`, which offsets use for "the length of"): `8 B`, `2+len B`, `4+n×12 B`,
/// `1 or 1+≥4 B`. Hover, hints, lenses and wire-break messages all write sizes so.
pub fn size_short(layout: &Layout, wire: &Wire) -> String {
    let p = layout.length_prefix();
    let elem = |w: &Wire| {
        let s = layout.size_of(w);
        s.fixed.map_or_else(|| format!("≥{}", s.min), |k| k.to_string())
    };
    match wire {
        Wire::Prim(Primitive::Str) => format!("{p}+len B"),
        Wire::Array(e) => format!("{p}+n×{} B", elem(e)),
        Wire::Optional(e) => format!("1 or 1+{} B", elem(e)),
        w => format!("{} B", elem(w)),
    }
}

/// How a field's size reads in a table or a hover: `8`, `4 + len`, `4 + 8·n`,
/// `1 | 1 + 20`, `≥ 42`.
pub fn size_expr(layout: &Layout, wire: &Wire) -> String {
    let prefix = layout.dialect.length_prefix();
    let size = |w: &Wire| match w {
        Wire::Struct(id) => layout.get(*id).map(|t| t.size),
        Wire::Prim(p) => Some(p.fixed_size().map_or(
            SizeInfo {
                fixed: None,
                min: prefix,
                max: None,
            },
            SizeInfo::fixed,
        )),
        _ => None,
    };
    let min_of = |w: &Wire| match w {
        Wire::Prim(Primitive::Str) | Wire::Array(_) => prefix,
        Wire::Optional(_) => 1,
        other => size(other).map_or(0, |s| s.min),
    };
    match wire {
        Wire::Prim(Primitive::Str) => format!("{prefix} + len"),
        Wire::Prim(p) => p.fixed_size().unwrap_or(0).to_string(),
        Wire::Array(e) => match size(e).and_then(|s| s.fixed) {
            Some(k) => format!("{prefix} + {k}·n"),
            None => format!("{prefix} + n × ≥{}", min_of(e)),
        },
        Wire::Optional(e) => match size(e).and_then(|s| s.fixed) {
            Some(k) => format!("1 | 1 + {k}"),
            None => format!("1 | 1 + ≥{}", min_of(e)),
        },
        Wire::Struct(_) => match size(wire) {
            Some(SizeInfo { fixed: Some(k), .. }) => k.to_string(),
            Some(s) => format!("≥{}", s.min),
            None => "?".to_string(),
        },
    }
}
