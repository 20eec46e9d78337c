//! Wire-change awareness in the editor: what the current text does to the bytes other
//! programs expect, against the document's baseline (git `HEAD` by default). The
//! comparison is `wirelens_core::compat`'s; this module only decides what the editor shows of
//! it: a warning per break, a lens per type, a hover section with old vs new offsets.
//!
//! The baseline is loaded off the store's lock by the LSP layer (git runs in a
//! background task); here it is plain data.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::{Arc, Mutex, Weak};

use wirelens_core::compat::{compare_with, field_offsets, BreakKind, FieldPlace, Fields, Report, Status};
use wirelens_core::model::TypeKind;
use wirelens_core::{Analysis, Dialect};

use super::Snapshot;

/// The analysed baseline of one open document, and the last comparison made with it.
pub struct Baseline {
    /// `HEAD`, `main`, `file:old.sdp`: shown in lenses and messages.
    pub label: String,
    pub analysis: Analysis,
    /// The report for the snapshot it was computed from (a `Weak` keeps that
    /// snapshot's allocation, so the pointer cannot be reused by a newer one).
    cache: Mutex<Option<(Weak<Snapshot>, Arc<Report>)>>,
}

impl Baseline {
    pub fn new(label: String, analysis: Analysis) -> Baseline {
        Baseline {
            label,
            analysis,
            cache: Mutex::new(None),
        }
    }
}

/// The comparison of `snap` with `base`; `None` while either has errors (a half-typed
/// edit is not a wire break, and a broken layout cannot be compared).
pub fn report(snap: &Arc<Snapshot>, base: &Baseline) -> Option<Arc<Report>> {
    if base.analysis.has_errors() || snap.analysis.has_errors() {
        return None;
    }
    let mut cache = base.cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((of, report)) = cache.as_ref() {
        if Weak::ptr_eq(of, &Arc::downgrade(snap)) {
            return Some(report.clone());
        }
    }
    // Without field places: a hover asks for one type's (`field_offsets`).
    let report = Arc::new(compare_with(&base.analysis, &snap.analysis, Fields::None));
    *cache = Some((Arc::downgrade(snap), report.clone()));
    Some(report)
}

/// A warning at a change that breaks the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireWarning {
    pub range: Range<usize>,
    /// `BreakKind::code`: `field-added`, `message-id-changed`, …
    pub code: &'static str,
    pub message: String,
    /// What the change affects: the affected messages' names in the current text.
    pub related: Vec<(Range<usize>, String)>,
}

fn messages_word(d: Dialect, n: usize) -> &'static str {
    match (d, n) {
        (Dialect::Sdp, 1) => "message",
        (Dialect::Sdp, _) => "messages",
        (Dialect::Ffi, 1) => "root type",
        (Dialect::Ffi, _) => "root types",
    }
}

/// Up to this many renumbered SDP messages get a warning each; more become one warning
/// (inserting a struct at the top of a 5,000-struct file renumbers every later message:
/// 5,000 warnings would bury everything else in the Problems panel).
const RENUMBERED_ONE_BY_ONE: usize = 3;
/// The related-information entries of that one warning (the message gives the count).
const RENUMBERED_LISTED: usize = 20;

/// One warning lists at most this many affected messages as related information; its
/// message gives their number, and the hover of each type lists its changes.
const AFFECTED_LISTED: usize = 20;
/// All the warnings of one publication together list at most this many: a change in
/// each struct of a chain of N that nest each other affects N(N+1)/2 messages in all
/// (N = 1,000: 500,500 related locations, 105 MB of JSON per publication).
const RELATED_BUDGET: usize = 500;

/// One warning per break located in the current text, except that many renumbered
/// messages are one warning. A removed field is reported on its struct's name; a removed
/// type at the start of the file. What one publication carries is bounded: see
/// [`AFFECTED_LISTED`] and [`RELATED_BUDGET`].
pub fn warnings(snap: &Arc<Snapshot>, base: &Baseline) -> Vec<WireWarning> {
    let Some(report) = report(snap, base).filter(|r| !r.breaks.is_empty()) else {
        return Vec::new();
    };
    let schema = &snap.analysis.schema;
    let d = schema.dialect;
    // One index, not a search per break (inserting a struct at the top of a 5,000-struct
    // file renumbers 5,000 messages).
    let names: HashMap<&str, &Range<usize>> = schema
        .types
        .iter()
        .rev()
        .map(|t| (t.name.as_str(), &t.name_range))
        .collect();
    let name_range = |name: &str| names.get(name).map(|r| (*r).clone());
    // Messages renumbered by a struct inserted above them are reported once, on that
    // struct (where the fix is: move it to the end); the others as before.
    let inserted = inserted_before_messages(&report);
    let by_insertion = |b: &wirelens_core::compat::Break| {
        inserted.first().is_some_and(|(_, at)| {
            b.kind == BreakKind::MessageIdChanged && new_id(&report, &b.type_name).is_some_and(|id| id > *at)
        })
    };
    let renumbered: Vec<&wirelens_core::compat::Break> = report
        .breaks
        .iter()
        .filter(|b| b.kind == BreakKind::MessageIdChanged && !by_insertion(b))
        .collect();
    let collapse = renumbered.len() > RENUMBERED_ONE_BY_ONE;
    let mut budget = RELATED_BUDGET;
    let mut out: Vec<WireWarning> = report
        .breaks
        .iter()
        .filter(|b| !by_insertion(b))
        .filter(|b| !(collapse && b.kind == BreakKind::MessageIdChanged))
        .map(|b| {
            let range = b.new_range.clone().or_else(|| name_range(&b.type_name)).unwrap_or(0..0);
            let listed = b.affects.len().min(AFFECTED_LISTED).min(budget);
            budget -= listed;
            let related: Vec<(Range<usize>, String)> = b
                .affects
                .iter()
                .take(listed)
                .filter_map(|m| {
                    let r = name_range(m)?;
                    let what = match b.kind {
                        BreakKind::MessageIdChanged => format!("readers of `{m}` expect its old type id"),
                        BreakKind::RootChanged => format!("`{m}` is (or was) a message type"),
                        _ => format!("{} `{m}` is encoded differently", messages_word(d, 1)),
                    };
                    Some((r, what))
                })
                .collect();
            let mut message = format!("wire break against {}: {}", base.label, b.message);
            let n = b.affects.len();
            if listed < n {
                message.push_str(&format!(
                    " (affects {n} {}; {} listed: hover a type for its changes)",
                    messages_word(d, n),
                    if listed == 0 {
                        "none".to_string()
                    } else {
                        format!("the first {listed}")
                    }
                ));
            }
            WireWarning {
                range,
                code: b.kind.code(),
                message,
                related,
            }
        })
        .collect();
    if collapse {
        out.push(renumbered_warning(&report, &renumbered, &name_range, &base.label));
    }
    for (name, at) in &inserted {
        let after: Vec<&wirelens_core::compat::Break> = report
            .breaks
            .iter()
            .filter(|b| {
                b.kind == BreakKind::MessageIdChanged && new_id(&report, &b.type_name).is_some_and(|id| id > *at)
            })
            .collect();
        if after.is_empty() {
            continue;
        }
        let mut w = renumbered_warning(&report, &after, &name_range, &base.label);
        w.range = name_range(name).unwrap_or(w.range);
        let n = after.len();
        w.message = format!(
            "wire break against {}: inserting `{name}` here renumbers the {n} {} after it (SDP ids are positions in the file, and readers expect the old ids); move it to the end of the file to keep them",
            base.label,
            messages_word(d, n)
        );
        out.push(w);
    }
    out
}

/// The new message id of type `name`, if it has one.
fn new_id(report: &Report, name: &str) -> Option<u16> {
    report.get(name).and_then(|t| t.message_id.new)
}

/// SDP structs added since the baseline that sit before a message whose id changed
/// (they renumber it), with their new ids, in file order.
fn inserted_before_messages(report: &Report) -> Vec<(String, u16)> {
    if report.dialect != Dialect::Sdp {
        return Vec::new();
    }
    let last_renumbered = report
        .breaks
        .iter()
        .filter(|b| b.kind == BreakKind::MessageIdChanged)
        .filter_map(|b| new_id(report, &b.type_name))
        .max();
    let Some(last) = last_renumbered else {
        return Vec::new();
    };
    report
        .types
        .iter()
        .filter(|t| t.status == Status::Added)
        .filter_map(|t| Some((t.name.clone(), t.message_id.new?)))
        .filter(|(_, id)| *id < last)
        .collect()
}

/// The compatible alternative to each wire break that has one, offered with the cursor
/// where the break is reported:
///
/// | break | alternative |
/// |---|---|
/// | `message-id-changed`, a struct inserted above messages | move it to the end of the file |
/// | `message-id-changed`, a struct moved | move it back (before the struct that followed it) |
/// | `message-id-changed` after a removal, `type-removed` | restore the type where it was |
/// | `field-reordered` (written order) | put the struct's fields back in their old order |
/// | `field-removed` | restore the field where it was |
/// | `rename-moved` (ffire canonical order) | keep the old name |
///
/// The others have none: a field added anywhere (even last) changes the struct's bytes
/// (SDP and ffire structs carry no length and decoders reject trailing bytes), and a
/// changed type, optional-ness, kind or root-ness is the change itself.
pub fn actions(snap: &Arc<Snapshot>, base: &Baseline, range: &Range<usize>) -> Vec<super::Action> {
    let Some(report) = report(snap, base) else {
        return Vec::new();
    };
    let schema = &snap.analysis.schema;
    let text = &snap.source.text;
    let touches = |r: &Range<usize>| r.start <= range.end && range.start <= r.end;
    let mut out = Vec::new();
    for (name, _) in inserted_before_messages(&report) {
        let Some(def) = schema.type_id(&name).and_then(|id| schema.types.get(id)) else {
            continue;
        };
        if !touches(&def.range) {
            continue;
        }
        let (start, end) = declaration_lines(text, &def.range);
        let moved = text[start..end].trim_end();
        let (tail_at, tail) = super::append_at_end(text, moved);
        let tail = format!("{tail}\n");
        out.push(super::Action {
            title: format!("Move `{name}` to the end of the file (keeps every message id)"),
            kind: super::ActionKind::QuickFix,
            preferred: true,
            select: None,
            edits: vec![(start..end, String::new()), (tail_at, tail)],
        });
    }
    let mut done: Vec<String> = Vec::new();
    for b in &report.breaks {
        let action = match b.kind {
            BreakKind::MessageIdChanged => {
                let def = schema.type_id(&b.type_name).and_then(|id| schema.types.get(id));
                match def {
                    Some(def) if touches(&def.range) => move_back(snap, base, &report, &b.type_name),
                    _ => None,
                }
            }
            BreakKind::FieldReordered => {
                let def = schema.type_id(&b.type_name).and_then(|id| schema.types.get(id));
                match def {
                    Some(def) if touches(&def.range) => fields_back_in_order(snap, base, &b.type_name),
                    _ => None,
                }
            }
            BreakKind::FieldRemoved => {
                let def = schema.type_id(&b.type_name).and_then(|id| schema.types.get(id));
                match (def, &b.field) {
                    (Some(def), Some(field)) if touches(&def.range) => restore_field(snap, base, &b.type_name, field),
                    _ => None,
                }
            }
            BreakKind::RenameMoved => match (&b.new_range, &b.field) {
                (Some(r), Some(field)) if touches(r) => keep_old_name(snap, base, &b.type_name, field),
                _ => None,
            },
            BreakKind::TypeRemoved => {
                // Reported at the start of the file; in SDP also where it renumbers.
                let here = touches(&(0..0))
                    || report.breaks.iter().any(|m| {
                        m.kind == BreakKind::MessageIdChanged
                            && schema
                                .type_id(&m.type_name)
                                .and_then(|id| schema.types.get(id))
                                .is_some_and(|d| touches(&d.range))
                    });
                if here {
                    restore_type(snap, base, &b.type_name)
                } else {
                    None
                }
            }
            _ => None,
        };
        if let Some(a) = action {
            if !done.contains(&a.title) {
                done.push(a.title.clone());
                out.push(a);
            }
        }
    }
    out
}

/// The lines of a declaration at `range`: from the comment lines right above it through
/// the end of its line and the blank lines after it.
fn declaration_lines(text: &str, range: &Range<usize>) -> (usize, usize) {
    let mut start = text.get(..range.start).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    while start > 0 {
        let prev = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        if text[prev..start].trim_start().starts_with("//") {
            start = prev;
        } else {
            break;
        }
    }
    let mut end = text
        .get(range.end..)
        .and_then(|t| t.find('\n'))
        .map_or(text.len(), |i| range.end + i + 1);
    while let Some(rest) = text.get(end..) {
        let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        if line_len > 0 && rest[..line_len].trim().is_empty() {
            end += line_len;
        } else {
            break;
        }
    }
    (start, end)
}

/// SDP: struct `name` moved since the baseline (same structs, another order): the move
/// that puts it back where it was, before the struct that followed it then (or after
/// the one that preceded it). Offered only when that gives it its old id back.
fn move_back(snap: &Snapshot, base: &Baseline, report: &Report, name: &str) -> Option<super::Action> {
    if report.dialect != Dialect::Sdp
        || report
            .types
            .iter()
            .any(|t| matches!(t.status, Status::Added | Status::Removed))
    {
        return None; // an insertion or a removal: moved to the end, or restored
    }
    let (old, new) = (&base.analysis.schema, &snap.analysis.schema);
    let old_pos = old.type_id(name)?;
    let order: Vec<&str> = new.types.iter().map(|t| t.name.as_str()).collect();
    let here = order.iter().position(|n| *n == name)?;
    let mut rest = order.clone();
    rest.remove(here);
    // Before the struct that followed it, or after the one before it.
    let (slot, anchor_before) = match old.types.get(old_pos + 1) {
        Some(next) => (rest.iter().position(|n| *n == next.name)?, true),
        None => {
            let prev = &old.types.get(old_pos.checked_sub(1)?)?.name;
            (rest.iter().position(|n| n == prev)? + 1, false)
        }
    };
    if slot != old_pos {
        return None; // other structs moved too: this move alone does not restore its id
    }
    let text = &snap.source.text;
    let def = new.types.get(here)?;
    let (start, end) = declaration_lines(text, &def.range);
    let moved = text[start..end].trim_end();
    let edit = if anchor_before {
        let next = new.types.get(new.type_id(&old.types.get(old_pos + 1)?.name)?)?;
        let (at, _) = declaration_lines(text, &next.range);
        (at..at, format!("{moved}\n\n"))
    } else {
        let prev = new.types.get(new.type_id(&old.types.get(old_pos - 1)?.name)?)?;
        let (_, at) = declaration_lines(text, &prev.range);
        if at == text.len() {
            super::append_at_end(text, &format!("{moved}\n"))
        } else {
            (at..at, format!("{moved}\n\n"))
        }
    };
    Some(super::Action {
        title: format!("Move `{name}` back to where it was (keeps every message id)"),
        kind: super::ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![(start..end, String::new()), edit],
    })
}

/// Struct `name`'s fields moved among themselves (written order is wire order): the edit
/// that puts them back in the baseline's order. Only when no field was added, removed
/// or renamed (those are breaks of their own).
fn fields_back_in_order(snap: &Snapshot, base: &Baseline, name: &str) -> Option<super::Action> {
    let (old, new) = (&base.analysis.schema, &snap.analysis.schema);
    if new.order != wirelens_core::FieldOrder::Declaration || old.order != new.order {
        return None; // ffire canonical order, or an order setting that changed
    }
    let odef = old.types.get(old.type_id(name)?)?;
    let ndef = new.types.get(new.type_id(name)?)?;
    let (ofields, nfields) = (odef.fields(), ndef.fields());
    if ofields.len() != nfields.len() {
        return None;
    }
    let mut order: Vec<(usize, usize)> = Vec::with_capacity(nfields.len());
    for (ni, f) in nfields.iter().enumerate() {
        order.push((ofields.iter().position(|o| o.name == f.name)?, ni));
    }
    order.sort_unstable();
    let pieces: Vec<super::Piece> = order.into_iter().map(|(_, ni)| super::Piece::Kept(ni)).collect();
    let edit = super::rebuild_fields(snap, ndef, &pieces)?;
    Some(super::Action {
        title: format!(
            "Put `{name}`'s fields back in their {} order (keeps the wire)",
            base.label
        ),
        kind: super::ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![edit],
    })
}

/// A field as its dialect writes it: `x: Option<u32>`, `` X *int32 `json:"x"` ``.
fn field_decl(d: Dialect, f: &wirelens_core::model::Field) -> String {
    match d {
        Dialect::Sdp => format!("{}: {}", f.name, f.ty.display(d)),
        Dialect::Ffi => match &f.tag {
            Some(tag) => format!("{} {} `{tag}`", f.name, f.ty.display(d)),
            None => format!("{} {}", f.name, f.ty.display(d)),
        },
    }
}

/// Field `field` of struct `name` was removed: the edit that puts it back where it was
/// (before the field that followed it then, or last).
fn restore_field(snap: &Snapshot, base: &Baseline, name: &str, field: &str) -> Option<super::Action> {
    let (old, new) = (&base.analysis.schema, &snap.analysis.schema);
    let odef = old.types.get(old.type_id(name)?)?;
    let ndef = new.types.get(new.type_id(name)?)?;
    let (ofields, nfields) = (odef.fields(), ndef.fields());
    let oi = ofields.iter().position(|f| f.name == field)?;
    if nfields.iter().any(|f| f.name == field) {
        return None;
    }
    // Before the first field that followed it then and is still there.
    let at = ofields[oi + 1..]
        .iter()
        .find_map(|f| nfields.iter().position(|n| n.name == f.name))
        .unwrap_or(nfields.len());
    let of = &ofields[oi];
    let mut pieces: Vec<super::Piece> = (0..nfields.len()).map(super::Piece::Kept).collect();
    pieces.insert(
        at,
        super::Piece::New {
            decl: field_decl(snap.dialect, of),
            docs: of.docs.clone(),
        },
    );
    let edit = super::rebuild_fields(snap, ndef, &pieces)?;
    Some(super::Action {
        title: format!("Restore field `{name}.{field}` as in {} (keeps the wire)", base.label),
        kind: super::ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![edit],
    })
}

/// ffire canonical order: renaming field `field` of `name` moved it on the wire; the edit
/// that gives it its old name back.
fn keep_old_name(snap: &Snapshot, base: &Baseline, name: &str, field: &str) -> Option<super::Action> {
    let (old, new) = (&base.analysis.schema, &snap.analysis.schema);
    let odef = old.types.get(old.type_id(name)?)?;
    let ndef = new.types.get(new.type_id(name)?)?;
    // A rename is a field at the same written position under another name.
    let ni = ndef.fields().iter().position(|f| f.name == field)?;
    let nf = &ndef.fields()[ni];
    let old_name = &odef.fields().get(ni)?.name;
    Some(super::Action {
        title: format!("Keep the name `{old_name}` (renaming moves `{name}.{old_name}` on the wire)"),
        kind: super::ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![(nf.name_range.clone(), old_name.clone())],
    })
}

/// A type of the baseline as its dialect writes it, with its doc lines.
fn type_text(d: Dialect, t: &wirelens_core::model::TypeDef) -> String {
    let marker = if d == Dialect::Sdp { "///" } else { "//" };
    let mut s: String = t.docs.iter().map(|l| format!("{marker} {l}\n")).collect();
    match (&t.kind, d) {
        (TypeKind::Struct { fields, .. }, _) => {
            match d {
                Dialect::Sdp => s.push_str(&format!("struct {} {{\n", t.name)),
                Dialect::Ffi => s.push_str(&format!("type {} struct {{\n", t.name)),
            }
            let (indent, sep) = if d == Dialect::Sdp { ("    ", ",") } else { ("\t", "") };
            for f in fields {
                for l in &f.docs {
                    s.push_str(&format!("{indent}{marker} {l}\n"));
                }
                s.push_str(&format!("{indent}{}{sep}\n", field_decl(d, f)));
            }
            s.push('}');
        }
        (TypeKind::Alias { target, is_alias_decl }, _) => {
            let eq = if *is_alias_decl { "= " } else { "" };
            s.push_str(&format!("type {} {eq}{}", t.name, target.display(d)));
        }
    }
    s
}

/// Type `name` was removed: the edit that restores it where it was (before the first
/// type that followed it then and is still there, or at the end), keeping SDP ids.
fn restore_type(snap: &Snapshot, base: &Baseline, name: &str) -> Option<super::Action> {
    let (old, new) = (&base.analysis.schema, &snap.analysis.schema);
    let oid = old.type_id(name)?;
    if new.type_id(name).is_some() {
        return None;
    }
    let restored = type_text(snap.dialect, old.types.get(oid)?);
    let text = &snap.source.text;
    let next = old.types[oid + 1..]
        .iter()
        .find_map(|t| new.type_id(&t.name).and_then(|id| new.types.get(id)));
    let edit = match next {
        Some(next) => {
            let (at, _) = declaration_lines(text, &next.range);
            (at..at, format!("{restored}\n\n"))
        }
        None => super::append_at_end(text, &format!("{restored}\n")),
    };
    Some(super::Action {
        title: format!("Restore `{name}` as in {} (keeps the wire)", base.label),
        kind: super::ActionKind::QuickFix,
        preferred: true,
        select: None,
        edits: vec![edit],
    })
}

/// The one warning for many renumbered messages: at the first of them, listing the first
/// [`RENUMBERED_LISTED`] with their old and new ids.
fn renumbered_warning(
    report: &wirelens_core::compat::Report,
    renumbered: &[&wirelens_core::compat::Break],
    name_range: &dyn Fn(&str) -> Option<Range<usize>>,
    label: &str,
) -> WireWarning {
    let ids: HashMap<&str, (Option<u16>, Option<u16>)> = report
        .types
        .iter()
        .map(|t| (t.name.as_str(), (t.message_id.old, t.message_id.new)))
        .collect();
    let change = |name: &str| match ids.get(name) {
        Some((Some(a), Some(b))) => format!("`{name}`: type id {a} → {b}"),
        _ => format!("`{name}`: type id changed"),
    };
    let first = renumbered[0];
    let range = first
        .new_range
        .clone()
        .or_else(|| name_range(&first.type_name))
        .unwrap_or(0..0);
    let related = renumbered
        .iter()
        .take(RENUMBERED_LISTED)
        .filter_map(|b| Some((name_range(&b.type_name)?, change(&b.type_name))))
        .collect();
    WireWarning {
        range,
        code: BreakKind::MessageIdChanged.code(),
        message: format!(
            "wire break against {label}: {} messages renumbered (the first: {}): SDP ids are positions in the file, and readers expect the old ids",
            renumbered.len(),
            change(&first.type_name)
        ),
        related,
    }
}

/// The compatibility lens of each type of the current text, in declaration order:
/// `(type name's range, title)`.
pub fn lenses(snap: &Arc<Snapshot>, base: &Baseline) -> Vec<(Range<usize>, String, String)> {
    let Some(report) = report(snap, base) else {
        return Vec::new();
    };
    let schema = &snap.analysis.schema;
    let d = schema.dialect;
    let label = &base.label;
    let mut breaks_in: HashMap<&str, Vec<&wirelens_core::compat::Break>> = HashMap::new();
    for b in &report.breaks {
        breaks_in.entry(b.type_name.as_str()).or_default().push(b);
    }
    report
        .types
        .iter()
        .filter_map(|t| {
            let def = schema.types.get(t.id.new?)?;
            let title = match t.status {
                // Once a file has a baseline, "compatible" on every struct is noise: a
                // lens says only what changed.
                Status::Compatible => return None,
                Status::Added => format!("new since {label}"),
                Status::Breaks => {
                    let mut affected: Vec<&str> = breaks_in
                        .get(t.name.as_str())
                        .into_iter()
                        .flatten()
                        .flat_map(|b| b.affects.iter().map(String::as_str))
                        .collect();
                    affected.sort_unstable();
                    affected.dedup();
                    if affected.is_empty() {
                        let by: Vec<String> = t.broken_by.iter().map(|n| format!("`{n}`")).collect();
                        format!("wire changed by {} since {label}", by.join(", "))
                    } else {
                        let n = affected.len();
                        format!("breaks {n} {} since {label}", messages_word(d, n))
                    }
                }
                Status::Removed | Status::Unknown => return None,
            };
            Some((def.name_range.clone(), title, def.name.clone()))
        })
        .collect()
}

/// `#1 · @8 · 2+len B`: a field's place in one version, its size in the notation of
/// hints and hovers (read with that version's layout).
fn place_text(layout: &wirelens_core::layout::Layout, p: &Option<FieldPlace>) -> String {
    match p {
        None => "—".into(),
        Some(p) => format!(
            "#{} · @{} · {}",
            p.wire_index,
            p.offset_expr(),
            wirelens_core::layout::size_short(layout, &p.wire)
        )
        .replace('|', "\\|"),
    }
}

/// The hover section for the type whose name (or a use of it) is under `offset`.
pub fn hover_at(snap: &Arc<Snapshot>, base: &Baseline, offset: usize) -> Option<String> {
    let id = super::type_at(&snap.analysis.schema, offset)?;
    hover_section(snap, base, &snap.analysis.schema.types[id].name)
}

/// The hover section of type `name`: compatible, new, or its breaks with a table of
/// old vs new wire positions, offsets and sizes.
pub fn hover_section(snap: &Arc<Snapshot>, base: &Baseline, name: &str) -> Option<String> {
    let report = report(snap, base)?;
    let t = report.get(name)?;
    let label = &base.label;
    let mut s = String::new();
    match t.status {
        Status::Compatible => {
            let _ = writeln!(s, "Wire-compatible with `{label}`.");
            return Some(s);
        }
        Status::Added => {
            let _ = writeln!(s, "New since `{label}`.");
            return Some(s);
        }
        Status::Removed | Status::Unknown => return None,
        Status::Breaks => {}
    }
    let _ = writeln!(s, "**Wire changes since `{label}`**\n");
    for b in report.breaks_in(name) {
        let _ = writeln!(s, "- {}", b.message);
    }
    let others: Vec<&String> = t.broken_by.iter().filter(|n| *n != name).collect();
    if !others.is_empty() {
        let names: Vec<String> = others.iter().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(s, "- contains changed {}", names.join(", "));
    }
    // A changed message id is one of the breaks listed above: not repeated.
    let fields = field_offsets(&base.analysis, &snap.analysis, name);
    if !fields.is_empty() {
        let _ = writeln!(s, "\n| field | {label} | now |\n|---|---|---|");
        for f in &fields {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} |",
                f.name,
                place_text(&base.analysis.layout, &f.old),
                place_text(&snap.analysis.layout, &f.new)
            );
        }
    }
    Some(s)
}
