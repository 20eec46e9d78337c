//! Wire-change awareness in the editor: what the current text does to the bytes other
//! programs expect, against the document's baseline (git `HEAD` by default). The
//! comparison is `codegen::compat`'s; this module only decides what the editor shows of
//! it: a warning per break, a lens per type, a hover section with old vs new offsets.
//!
//! The baseline is loaded off the store's lock by the LSP layer (git runs in a
//! background task); here it is plain data.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::{Arc, Mutex, Weak};

use codegen::compat::{compare_with, field_offsets, BreakKind, FieldPlace, Fields, Report, Status};
use codegen::{Analysis, Dialect};

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
    let renumbered: Vec<&codegen::compat::Break> = report
        .breaks
        .iter()
        .filter(|b| b.kind == BreakKind::MessageIdChanged)
        .collect();
    let collapse = renumbered.len() > RENUMBERED_ONE_BY_ONE;
    let mut budget = RELATED_BUDGET;
    let mut out: Vec<WireWarning> = report
        .breaks
        .iter()
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
    out
}

/// The one warning for many renumbered messages: at the first of them, listing the first
/// [`RENUMBERED_LISTED`] with their old and new ids.
fn renumbered_warning(
    report: &codegen::compat::Report,
    renumbered: &[&codegen::compat::Break],
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
    let mut breaks_in: HashMap<&str, Vec<&codegen::compat::Break>> = HashMap::new();
    for b in &report.breaks {
        breaks_in.entry(b.type_name.as_str()).or_default().push(b);
    }
    report
        .types
        .iter()
        .filter_map(|t| {
            let def = schema.types.get(t.id.new?)?;
            let title = match t.status {
                Status::Compatible => format!("wire-compatible with {label}"),
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

fn place_text(p: &Option<FieldPlace>) -> String {
    match p {
        None => "—".into(),
        Some(p) => {
            let size = match (p.size.fixed, p.size.max) {
                (Some(n), _) => format!("{n} B"),
                (None, Some(max)) => format!("{}–{max} B", p.size.min),
                (None, None) => format!("≥ {} B", p.size.min),
            };
            format!("#{} · @{} · {size}", p.wire_index, p.offset_expr()).replace('|', "\\|")
        }
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
    if let (Some(a), Some(b)) = (t.message_id.old, t.message_id.new) {
        if a != b {
            let _ = writeln!(s, "- message type id {a} → {b}");
        }
    }
    let fields = field_offsets(&base.analysis, &snap.analysis, name);
    if !fields.is_empty() {
        let _ = writeln!(s, "\n| field | {label} | now |\n|---|---|---|");
        for f in &fields {
            let _ = writeln!(s, "| `{}` | {} | {} |", f.name, place_text(&f.old), place_text(&f.new));
        }
    }
    Some(s)
}
