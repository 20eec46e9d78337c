//! Wire-change awareness: what an edit does to the bytes other programs expect.
//!
//! SDP and ffire have no field tags, so nearly every edit changes the wire. [`compare`]
//! reads two analyses (a baseline and the current text) and says, per type, whether it
//! is still wire-compatible, and if not, each break with its reason, its source range in
//! both versions, and the message (SDP) or root (ffire) types it affects. It reads the
//! [`Layout`] of both versions; it computes no size, offset or order of its own.
//!
//! Types are matched by name, fields by name (a field whose name changed but that kept
//! its written position and type is a rename). Renaming a field is wire-compatible as
//! long as it keeps its wire position (always in SDP; in ffire's canonical order the
//! name decides the position within a size class).

use std::cell::OnceCell;
use std::ops::Range;

use rustc_hash::FxHashMap;

use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::layout::{size_short, FieldLayout, Layout, Offset, SizeInfo, TypeLayout, Wire};
use crate::model::{Schema, TypeId};
use crate::Analysis;

/// The comparison of two versions of one schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub dialect: Dialect,
    /// Every type of either version: those of the new version in order, then the removed ones.
    pub types: Vec<TypeReport>,
    /// Every break, in the order of `types`.
    pub breaks: Vec<Break>,
}

impl Report {
    pub fn is_compatible(&self) -> bool {
        self.breaks.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&TypeReport> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The breaks located in type `name` (not the ones it is affected by).
    pub fn breaks_in<'r>(&'r self, name: &'r str) -> impl Iterator<Item = &'r Break> + 'r {
        self.breaks.iter().filter(move |b| b.type_name == name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// In both versions, nothing it encodes changed.
    Compatible,
    /// A break in it or in a type it contains.
    Breaks,
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
    /// A layout is missing in one version (the schema has errors there).
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Compatible => "compatible",
            Status::Breaks => "breaks",
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeReport {
    pub name: String,
    /// The type's id in each version.
    pub id: TypeSides<TypeId>,
    pub status: Status,
    /// SDP: a struct (every struct is a message). ffire: a root in either version.
    pub is_message: bool,
    pub message_id: TypeSides<u16>,
    /// Types with breaks that this type contains (itself included), by name.
    pub broken_by: Vec<String>,
    /// Per field (new declaration order, then removed fields), where it sits on the wire
    /// in each version: for a hover that shows old vs new offsets. Empty when compared
    /// with [`Fields::None`] (then [`field_offsets`] gives one type's on demand).
    pub fields: Vec<FieldOffsets>,
}

/// The name is the same in both versions; `old`/`new` hold the per-version value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeSides<T> {
    pub old: Option<T>,
    pub new: Option<T>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldOffsets {
    pub name: String,
    pub old: Option<FieldPlace>,
    pub new: Option<FieldPlace>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlace {
    pub wire_index: usize,
    /// The constant part of the offset when there is no variable part.
    pub offset: Option<u64>,
    /// The whole offset; [`FieldPlace::offset_expr`] spells it.
    pub at: Offset,
    pub size: SizeInfo,
    /// Its wire shape, for the size in the editor's notation (`layout::size_short`, read
    /// with that version's layout).
    pub wire: Wire,
    /// The field declaration in that version's text.
    pub range: Range<usize>,
}

impl FieldPlace {
    /// `12`, or `12 + |name|`. Spelled on demand: a comparison places every field of
    /// every type, on each keystroke in the editor, and only hovers and `diff` read it.
    pub fn offset_expr(&self) -> String {
        self.at.expr()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BreakKind {
    FieldAdded,
    FieldRemoved,
    /// A field kept its name but its place among the other kept fields changed.
    FieldReordered,
    /// A renamed field moved to another wire position (ffire canonical order sorts by name).
    RenameMoved,
    /// Same optional-ness, another wire shape (size or type).
    TypeChanged,
    /// `T` became `Option<T>`/`*T` or the reverse.
    OptionalChanged,
    /// A struct became an alias or the reverse.
    KindChanged,
    TypeRemoved,
    /// SDP: the type id (the 1-based position in the file) changed.
    MessageIdChanged,
    /// ffire: the type stopped being, or became, a root (a message type).
    RootChanged,
}

impl BreakKind {
    /// Stable identifier, used as the diagnostic code and in JSON.
    pub fn code(self) -> &'static str {
        match self {
            BreakKind::FieldAdded => "field-added",
            BreakKind::FieldRemoved => "field-removed",
            BreakKind::FieldReordered => "field-reordered",
            BreakKind::RenameMoved => "rename-moved",
            BreakKind::TypeChanged => "type-changed",
            BreakKind::OptionalChanged => "optional-changed",
            BreakKind::KindChanged => "kind-changed",
            BreakKind::TypeRemoved => "type-removed",
            BreakKind::MessageIdChanged => "message-id-changed",
            BreakKind::RootChanged => "root-changed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub kind: BreakKind,
    /// The type the change is in.
    pub type_name: String,
    pub field: Option<String>,
    /// One sentence: what changed and what it does to the bytes.
    pub message: String,
    /// Where in the old text (`None` for an addition).
    pub old_range: Option<Range<usize>>,
    /// Where in the new text (`None` for a removal).
    pub new_range: Option<Range<usize>>,
    /// The message (SDP) or root (ffire) types whose encoding this changes, in the new
    /// version where the type still exists, else in the old one.
    pub affects: Vec<String>,
}

/// How much [`compare_with`] reports per type besides its breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fields {
    /// Every field's place in both versions ([`TypeReport::fields`]): `wirelens diff`.
    All,
    /// None: the editor compares on every keystroke and shows one type's table at a time
    /// ([`field_offsets`]); placing every field of 5,000 types was most of the cost.
    None,
}

/// Compares the layouts of two versions of a schema (`old` is the baseline).
/// Comment, doc, formatting and whitespace edits change nothing in the layout and
/// yield no break.
pub fn compare(old: &Analysis, new: &Analysis) -> Report {
    compare_with(old, new, Fields::All)
}

/// [`compare`], placing fields as `fields` says.
pub fn compare_with(old: &Analysis, new: &Analysis, fields: Fields) -> Report {
    let o = Side::new(old);
    let n = Side::new(new);
    let dialect = new.schema.dialect;
    let mut breaks: Vec<Break> = Vec::new();
    let mut types: Vec<TypeReport> = Vec::new();

    for (nid, ndef) in new.schema.types.iter().enumerate() {
        if !n.first[nid] {
            continue; // a duplicate name: an error in the schema, compared once
        }
        let oid = o.id(&ndef.name);
        let (nl, ol) = (n.layout.get(nid), oid.and_then(|id| o.layout.get(id)));
        let mut report = TypeReport {
            name: ndef.name.clone(),
            id: TypeSides {
                old: oid,
                new: Some(nid),
            },
            status: Status::Compatible,
            is_message: n.is_message(nid) || oid.is_some_and(|id| o.is_message(id)),
            message_id: TypeSides {
                old: ol.and_then(|l| l.message_id),
                new: nl.and_then(|l| l.message_id),
            },
            broken_by: Vec::new(),
            fields: Vec::new(),
        };
        match (oid, ol, nl) {
            (None, _, _) => report.status = Status::Added,
            (Some(_), Some(ol), Some(nl)) => {
                let offsets = (fields == Fields::All).then_some(&mut report.fields);
                compare_type(&o, &n, ol, nl, offsets, &mut breaks);
            }
            _ => report.status = Status::Unknown,
        }
        types.push(report);
    }
    for (oid, odef) in old.schema.types.iter().enumerate() {
        if !o.first[oid] || n.id(&odef.name).is_some() {
            continue;
        }
        let ol = o.layout.get(oid);
        types.push(TypeReport {
            name: odef.name.clone(),
            id: TypeSides {
                old: Some(oid),
                new: None,
            },
            status: Status::Removed,
            is_message: o.is_message(oid),
            message_id: TypeSides {
                old: ol.and_then(|l| l.message_id),
                new: None,
            },
            broken_by: Vec::new(),
            fields: Vec::new(),
        });
        breaks.push(Break {
            kind: BreakKind::TypeRemoved,
            type_name: odef.name.clone(),
            field: None,
            message: format!("type `{}` was removed", odef.name),
            old_range: Some(odef.name_range.clone()),
            new_range: None,
            affects: Vec::new(),
        });
    }

    // Which messages each broken type reaches, and which broken types each message contains.
    for b in &mut breaks {
        if matches!(b.kind, BreakKind::MessageIdChanged | BreakKind::RootChanged) {
            // Which messages exist and how they are told apart: the type's own encoding
            // (and its users') is unchanged.
            b.affects = vec![b.type_name.clone()];
            continue;
        }
        b.affects = match n.id(&b.type_name) {
            Some(id) => n.messages_containing(id),
            None => o
                .id(&b.type_name)
                .map(|id| o.messages_containing(id))
                .unwrap_or_default(),
        };
    }
    // Per type, the types with breaks that reach it, in the order of `breaks`: one pass
    // over the breaks (a search per type was quadratic: 5,000 renumbered structs).
    let mut reached: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    for b in &breaks {
        for t in std::iter::once(&b.type_name).chain(&b.affects) {
            let by = reached.entry(t.as_str()).or_default();
            if !by.contains(&b.type_name.as_str()) {
                by.push(b.type_name.as_str());
            }
        }
    }
    for t in &mut types {
        let by: Vec<String> = reached
            .get(t.name.as_str())
            .map(|v| v.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default();
        if !by.is_empty() && t.status == Status::Compatible {
            t.status = Status::Breaks;
        }
        t.broken_by = by;
    }
    Report { dialect, types, breaks }
}

/// Where each field of type `name` sits on the wire in each version (as
/// [`TypeReport::fields`]); empty when the type is not in both versions with a layout.
pub fn field_offsets(old: &Analysis, new: &Analysis, name: &str) -> Vec<FieldOffsets> {
    let (o, n) = (Side::new(old), Side::new(new));
    let mut offsets = Vec::new();
    let layouts = o
        .id(name)
        .and_then(|id| o.layout.get(id))
        .zip(n.id(name).and_then(|id| n.layout.get(id)));
    if let Some((ol, nl)) = layouts {
        compare_type(&o, &n, ol, nl, Some(&mut offsets), &mut Vec::new());
    }
    offsets
}

/// One version: its schema, layout, name index and reverse references.
struct Side<'a> {
    schema: &'a Schema,
    layout: &'a Layout,
    names: FxHashMap<&'a str, TypeId>,
    /// Per type: the first of its name (a later duplicate is an error, compared once).
    first: Vec<bool>,
    /// For each type, the types that mention it: built on first use (only a break's
    /// `affects` needs it).
    users: OnceCell<Vec<Vec<TypeId>>>,
}

impl<'a> Side<'a> {
    fn new(a: &'a Analysis) -> Side<'a> {
        let schema = &a.schema;
        // Fx, sized: every comparison (each keystroke with a baseline) hashes every name.
        let mut names = FxHashMap::with_capacity_and_hasher(schema.types.len(), Default::default());
        let mut first = vec![false; schema.types.len()];
        for (id, t) in schema.types.iter().enumerate() {
            let at = *names.entry(t.name.as_str()).or_insert(id);
            first[id] = at == id;
        }
        Side {
            schema,
            layout: &a.layout,
            names,
            first,
            users: OnceCell::new(),
        }
    }

    fn users(&self) -> &[Vec<TypeId>] {
        self.users.get_or_init(|| {
            let graph = Graph::new(self.schema);
            let mut users = vec![Vec::new(); self.schema.types.len()];
            for from in 0..graph.len() {
                for e in graph.edges(from) {
                    if e.to != from && !users[e.to].contains(&from) {
                        users[e.to].push(from);
                    }
                }
            }
            users
        })
    }

    fn id(&self, name: &str) -> Option<TypeId> {
        self.names.get(name).copied()
    }

    fn name(&self, id: TypeId) -> &str {
        self.schema.types.get(id).map_or("?", |t| t.name.as_str())
    }

    fn is_message(&self, id: TypeId) -> bool {
        match self.schema.dialect {
            Dialect::Sdp => self.schema.types.get(id).is_some_and(|t| t.is_struct()),
            Dialect::Ffi => self.layout.get(id).is_some_and(|l| l.root),
        }
    }

    /// The message types that contain `id` (itself included), walked iteratively.
    fn messages_containing(&self, id: TypeId) -> Vec<String> {
        let mut seen = vec![false; self.schema.types.len()];
        let mut stack = vec![id];
        let mut found = Vec::new();
        let users = self.users();
        while let Some(t) = stack.pop() {
            if std::mem::replace(&mut seen[t], true) {
                continue;
            }
            if self.is_message(t) {
                found.push(t);
            }
            stack.extend(users[t].iter().copied().filter(|u| !seen[*u]));
        }
        found.sort_unstable();
        found.into_iter().map(|t| self.name(t).to_string()).collect()
    }

    /// The wire shape as text, struct references by name (`[]Option<Item>`, `*[]string`).
    fn wire_text(&self, wire: &Wire) -> String {
        let d = self.schema.dialect;
        let mut prefix = String::new();
        let mut w = wire;
        loop {
            match w {
                Wire::Array(e) => {
                    prefix.push_str("[]");
                    w = e;
                }
                Wire::Optional(e) => {
                    if d == Dialect::Ffi {
                        prefix.push('*');
                        w = e;
                    } else {
                        return format!("{prefix}Option<{}>", self.wire_text(e));
                    }
                }
                Wire::Prim(p) => return format!("{prefix}{}", p.spelling(d).unwrap_or("?")),
                Wire::Struct(id) => return format!("{prefix}{}", self.name(*id)),
            }
        }
    }
}

/// Two wires are the same when they have the same shape and name the same structs (a
/// struct's own changes are reported on that struct and reach its users as `affects`).
fn same_wire(o: &Side, ow: &Wire, n: &Side, nw: &Wire) -> bool {
    let (mut ow, mut nw) = (ow, nw);
    loop {
        match (ow, nw) {
            (Wire::Prim(a), Wire::Prim(b)) => return a == b,
            (Wire::Struct(a), Wire::Struct(b)) => return o.name(*a) == n.name(*b),
            (Wire::Array(a), Wire::Array(b)) | (Wire::Optional(a), Wire::Optional(b)) => {
                ow = a;
                nw = b;
            }
            _ => return false,
        }
    }
}

fn place(f: &FieldLayout, range: &Range<usize>) -> FieldPlace {
    FieldPlace {
        wire_index: f.wire_index,
        offset: f.offset.constant(),
        at: f.offset.clone(),
        size: f.size,
        wire: f.wire.clone(),
        range: range.clone(),
    }
}

fn compare_type(
    o: &Side,
    n: &Side,
    ol: &TypeLayout,
    nl: &TypeLayout,
    mut offsets: Option<&mut Vec<FieldOffsets>>,
    breaks: &mut Vec<Break>,
) {
    let odef = &o.schema.types[ol.id];
    let ndef = &n.schema.types[nl.id];
    if offsets.is_none() && unchanged(o, n, ol, nl) {
        return;
    }
    let mut push = |kind, field: Option<&str>, message: String, old_range, new_range| {
        breaks.push(Break {
            kind,
            type_name: ndef.name.clone(),
            field: field.map(str::to_string),
            message,
            old_range,
            new_range,
            affects: Vec::new(),
        })
    };

    if let (Some(a), Some(b)) = (ol.message_id, nl.message_id) {
        if a != b {
            push(
                BreakKind::MessageIdChanged,
                None,
                format!(
                    "message type id of `{}` changed from {a} to {b}: SDP ids are positions in the file",
                    ndef.name
                ),
                Some(odef.name_range.clone()),
                Some(ndef.name_range.clone()),
            );
        }
    }
    if ol.root != nl.root {
        let what = if ol.root {
            "is no longer a root (message) type: it is referenced by another type now, or not exported"
        } else {
            "became a root (message) type"
        };
        push(
            BreakKind::RootChanged,
            None,
            format!("`{}` {what}", ndef.name),
            Some(odef.name_range.clone()),
            Some(ndef.name_range.clone()),
        );
    }

    if odef.is_struct() != ndef.is_struct() {
        let kind = |s: bool| if s { "a struct" } else { "an alias" };
        push(
            BreakKind::KindChanged,
            None,
            format!(
                "`{}` changed from {} to {}",
                ndef.name,
                kind(odef.is_struct()),
                kind(ndef.is_struct())
            ),
            Some(odef.range.clone()),
            Some(ndef.range.clone()),
        );
        return;
    }
    if !ndef.is_struct() {
        if !same_wire(o, &ol.wire, n, &nl.wire) {
            let (a, b) = (o.wire_text(&ol.wire), n.wire_text(&nl.wire));
            push(
                optional_or_type(&ol.wire, &nl.wire),
                None,
                format!("`{}` changed from `{a}` to `{b}`", ndef.name),
                Some(odef.range.clone()),
                Some(ndef.range.clone()),
            );
        }
        return;
    }

    // Match fields: by name, then a field whose name changed but that kept its written
    // position and wire shape is a rename.
    let (ofields, nfields) = (odef.fields(), ndef.fields());
    // By name through a map: a search per field was quadratic in a wide struct.
    let mut old_by_name: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for (oi, g) in ofields.iter().enumerate() {
        old_by_name.entry(g.name.as_str()).or_insert(oi);
    }
    let mut old_of_new: Vec<Option<usize>> = nfields
        .iter()
        .map(|f| old_by_name.get(f.name.as_str()).copied())
        .collect();
    let mut matched_old = vec![false; ofields.len()];
    for m in old_of_new.iter().flatten() {
        matched_old[*m] = true;
    }
    for (ni, slot) in old_of_new.iter_mut().enumerate() {
        // Both names are unmatched: the new one is not in the old version, the old one
        // (at the same written position) not in the new version.
        if slot.is_some() || ni >= ofields.len() || matched_old[ni] {
            continue;
        }
        let (Some(of), Some(nf)) = (ol.field_by_decl(ni), nl.field_by_decl(ni)) else {
            continue;
        };
        if same_wire(o, &of.wire, n, &nf.wire) {
            *slot = Some(ni);
            matched_old[ni] = true;
        }
    }

    // Ranks among the kept fields in wire order, to tell a real reorder from the shift
    // caused by an addition or removal before a field.
    let kept: Vec<(usize, usize)> = old_of_new
        .iter()
        .enumerate()
        .filter_map(|(ni, oi)| oi.map(|oi| (oi, ni)))
        .collect();
    let rank = |layout: &TypeLayout, decls: Vec<usize>| -> Vec<usize> {
        let mut by_wire: Vec<(usize, usize)> = decls
            .iter()
            .enumerate()
            .map(|(k, d)| (layout.field_by_decl(*d).map_or(usize::MAX, |f| f.wire_index), k))
            .collect();
        by_wire.sort_unstable();
        let mut r = vec![0; decls.len()];
        for (pos, (_, k)) in by_wire.into_iter().enumerate() {
            r[k] = pos;
        }
        r
    };
    // Per new field, its index in `kept` (kept is in new declaration order).
    let mut kept_index = vec![0; nfields.len()];
    for (k, &(_, ni)) in kept.iter().enumerate() {
        kept_index[ni] = k;
    }
    let old_rank = rank(ol, kept.iter().map(|k| k.0).collect());
    let new_rank = rank(nl, kept.iter().map(|k| k.1).collect());

    for (ni, nf_def) in nfields.iter().enumerate() {
        let Some(nf) = nl.field_by_decl(ni) else { continue };
        let Some(oi) = old_of_new[ni] else {
            if let Some(offsets) = offsets.as_deref_mut() {
                offsets.push(FieldOffsets {
                    name: nf_def.name.clone(),
                    old: None,
                    new: Some(place(nf, &nf_def.range)),
                });
            }
            push(
                BreakKind::FieldAdded,
                Some(&nf_def.name),
                format!(
                    "field `{}.{}` was added at wire #{}{}",
                    ndef.name,
                    nf_def.name,
                    nf.wire_index,
                    shifted(nl.fields.len(), nf.wire_index)
                ),
                None,
                Some(nf_def.range.clone()),
            );
            continue;
        };
        let of_def = &ofields[oi];
        let Some(of) = ol.field_by_decl(oi) else { continue };
        if let Some(offsets) = offsets.as_deref_mut() {
            offsets.push(FieldOffsets {
                name: nf_def.name.clone(),
                old: Some(place(of, &of_def.range)),
                new: Some(place(nf, &nf_def.range)),
            });
        }
        let k = kept_index[ni];
        if of_def.name != nf_def.name {
            if of.wire_index != nf.wire_index {
                push(
                    BreakKind::RenameMoved,
                    Some(&nf_def.name),
                    format!(
                        "renaming `{}.{}` to `{}` moves it from wire #{} to #{} (canonical order sorts by name)",
                        ndef.name, of_def.name, nf_def.name, of.wire_index, nf.wire_index
                    ),
                    Some(of_def.range.clone()),
                    Some(nf_def.range.clone()),
                );
            }
        } else if old_rank.get(k) != new_rank.get(k) {
            push(
                BreakKind::FieldReordered,
                Some(&nf_def.name),
                format!(
                    "field `{}.{}` moved from wire #{} to #{}",
                    ndef.name, nf_def.name, of.wire_index, nf.wire_index
                ),
                Some(of_def.range.clone()),
                Some(nf_def.range.clone()),
            );
        }
        if !same_wire(o, &of.wire, n, &nf.wire) {
            let (a, b) = (o.wire_text(&of.wire), n.wire_text(&nf.wire));
            let size = if of.size == nf.size {
                String::new()
            } else {
                format!(
                    ", size {} → {}",
                    size_short(o.layout, &of.wire),
                    size_short(n.layout, &nf.wire)
                )
            };
            push(
                optional_or_type(&of.wire, &nf.wire),
                Some(&nf_def.name),
                format!(
                    "field `{}.{}` changed from `{a}` to `{b}`{size}",
                    ndef.name, nf_def.name
                ),
                Some(of_def.ty.range.clone()),
                Some(nf_def.ty.range.clone()),
            );
        }
    }
    for (oi, of_def) in ofields.iter().enumerate() {
        if matched_old[oi] {
            continue;
        }
        let Some(of) = ol.field_by_decl(oi) else { continue };
        if let Some(offsets) = offsets.as_deref_mut() {
            offsets.push(FieldOffsets {
                name: of_def.name.clone(),
                old: Some(place(of, &of_def.range)),
                new: None,
            });
        }
        push(
            BreakKind::FieldRemoved,
            Some(&of_def.name),
            format!(
                "field `{}.{}` was removed from wire #{}{}",
                ndef.name,
                of_def.name,
                of.wire_index,
                shifted(ol.fields.len(), of.wire_index)
            ),
            Some(of_def.range.clone()),
            None,
        );
    }
}

/// True when [`compare_type`] would find no break: same id, root-ness and kind, and field
/// by field (in written order) the same name, wire shape and wire position. Checked
/// without allocating, so that the thousands of types an edit leaves alone cost little.
fn unchanged(o: &Side, n: &Side, ol: &TypeLayout, nl: &TypeLayout) -> bool {
    let (odef, ndef) = (&o.schema.types[ol.id], &n.schema.types[nl.id]);
    if ol.message_id != nl.message_id || ol.root != nl.root || odef.is_struct() != ndef.is_struct() {
        return false;
    }
    if !ndef.is_struct() {
        return same_wire(o, &ol.wire, n, &nl.wire);
    }
    // Pairing the two layouts' fields in wire order (not `field_by_decl`, a search per field).
    let (ofields, nfields) = (odef.fields(), ndef.fields());
    ofields.len() == nfields.len()
        && ol.fields.len() == ofields.len()
        && nl.fields.len() == nfields.len()
        && ol.fields.iter().zip(&nl.fields).all(|(of, nf)| {
            of.decl_index == nf.decl_index
                && of.wire_index == nf.wire_index
                && ofields.get(of.decl_index).map(|f| &f.name) == nfields.get(nf.decl_index).map(|f| &f.name)
                && same_wire(o, &of.wire, n, &nf.wire)
        })
}

fn shifted(count: usize, wire_index: usize) -> &'static str {
    if wire_index + 1 < count {
        ": every later field moves"
    } else {
        ""
    }
}

fn optional_or_type(old: &Wire, new: &Wire) -> BreakKind {
    if matches!(old, Wire::Optional(_)) != matches!(new, Wire::Optional(_)) {
        BreakKind::OptionalChanged
    } else {
        BreakKind::TypeChanged
    }
}
