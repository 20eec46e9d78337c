//! Wire-change checks for CI, like `buf breaking`: `wirelens diff OLD NEW` and
//! `wirelens check --against REF PATH…`. Exit 1 on a break. The comparison itself is
//! `wirelens_core::compat`; the baseline is read by `wirelens_project::baseline`.

use std::path::Path;
use std::process::ExitCode;

use codespan_reporting::diagnostic::{Diagnostic as Cs, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use serde_json::{json, Value};
use wirelens_core::compat::{compare, Break, FieldPlace, Report};
use wirelens_core::report::Seq;
use wirelens_core::source::ColumnUnit;
use wirelens_core::{FieldOrder, SourceFile};
use wirelens_project::baseline::{self, Against, Baseline};
use wirelens_project::project::{Flags, Loaded, Project};

use super::load_checked;
use crate::Format;

/// `wirelens diff OLD NEW`: every wire break of NEW against OLD.
pub fn run(old: &Path, new: &Path, format: Format, order: Option<FieldOrder>) -> Result<ExitCode, String> {
    let (o, n) = (load_checked(old, order)?, load_checked(new, order)?);
    if o.analysis.schema.dialect != n.analysis.schema.dialect {
        return Err(format!(
            "{} and {} are schemas of different dialects",
            old.display(),
            new.display()
        ));
    }
    let report = compare(&o.analysis, &n.analysis);
    match format {
        Format::Json => {
            // Written type by type and field by field: the whole value took 14 times its
            // text (a struct of 250,000 fields: 1.6 GB for 116 MB of JSON).
            let mut text = Vec::new();
            write_report_json(&o, &n, &report, &mut text).map_err(|e| e.to_string())?;
            text.push(b'\n');
            crate::write_stdout(&text)?;
        }
        Format::Human => {
            let mut out = String::new();
            for b in &report.breaks {
                out.push_str(&render(&o.source, &n.source, b));
            }
            out.push_str(&summary(&report));
            out.push('\n');
            crate::write_stdout(out.as_bytes())?;
        }
    }
    Ok(if report.is_compatible() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What `check --against` found for one file.
pub enum Outcome {
    /// Nothing to compare with (a new file, no repository): a note, not a failure.
    NoBaseline(String),
    /// The baseline has errors of its own, so its layout is unknown.
    BrokenBaseline(String),
    Compared {
        old: SourceFile,
        report: Report,
    },
}

/// Compares the schema `new` (already loaded from `path`) with its baseline.
pub fn against_file(
    path: &Path,
    new: &Loaded,
    against: &Against,
    order: Option<FieldOrder>,
) -> Result<Outcome, String> {
    let old = match baseline::load(path, against).map_err(|e| format!("{}: {e}", path.display()))? {
        Baseline::Missing(why) => return Ok(Outcome::NoBaseline(why)),
        Baseline::Found(source) => source,
    };
    // The baseline is analysed with the settings that apply at `path`.
    let flags = Flags {
        order,
        ..Flags::default()
    };
    let mut loaded = Project::local()
        .load(path, &flags, Some(&old.text))
        .map_err(|e| e.to_string())?;
    // Same text; keep the baseline's name (`HEAD:…`) for messages.
    loaded.source = old;
    if loaded.analysis.has_errors() {
        return Ok(Outcome::BrokenBaseline(format!(
            "{}: the baseline has errors; its layout cannot be compared",
            loaded.source.path.display()
        )));
    }
    let report = compare(&loaded.analysis, &new.analysis);
    Ok(Outcome::Compared {
        old: loaded.source,
        report,
    })
}

/// rustc-style: the change in the new text, with where it was in the old one.
pub fn render(old: &SourceFile, new: &SourceFile, b: &Break) -> String {
    let mut files = SimpleFiles::new();
    let o = files.add(old.path.display().to_string(), old.text.as_str());
    let n = files.add(new.path.display().to_string(), new.text.as_str());
    let mut labels = Vec::new();
    if let Some(r) = &b.new_range {
        labels.push(Label::primary(n, r.clone()).with_message("changed here"));
    }
    if let Some(r) = &b.old_range {
        let label = if labels.is_empty() {
            Label::primary(o, r.clone())
        } else {
            Label::secondary(o, r.clone())
        };
        labels.push(label.with_message("was here"));
    }
    let mut notes = Vec::new();
    if !b.affects.is_empty() {
        notes.push(format!("messages affected: {}", b.affects.join(", ")));
    }
    let report = Cs::new(Severity::Error)
        .with_code(code(b))
        .with_message(&b.message)
        .with_labels(labels)
        .with_notes(notes);
    term::emit_into_string(&term::Config::default(), &files, &report)
        .unwrap_or_else(|_| format!("error: {}\n", b.message))
}

/// `wire-field-removed`: the diagnostic code of a break.
pub fn code(b: &Break) -> String {
    format!("wire-{}", b.kind.code())
}

/// One line: `wire-compatible (3 types)` or `2 wire breaks; messages affected: A, B`.
pub fn summary(report: &Report) -> String {
    if report.is_compatible() {
        return format!(
            "wire-compatible ({} type{})",
            report.types.len(),
            if report.types.len() == 1 { "" } else { "s" }
        );
    }
    let affected: Vec<&str> = report
        .types
        .iter()
        .filter(|t| t.is_message && !t.broken_by.is_empty())
        .map(|t| t.name.as_str())
        .collect();
    let n = report.breaks.len();
    format!(
        "{n} wire break{}; messages affected: {}",
        if n == 1 { "" } else { "s" },
        if affected.is_empty() {
            "none".to_string()
        } else {
            affected.join(", ")
        }
    )
}

/// A break as an entry of `check --format json`: at the change in the new file, else at
/// the type it was removed from (a removed type: line 1).
pub fn break_json(path: &Path, new: &Loaded, b: &Break) -> Value {
    let range = b.new_range.clone().or_else(|| {
        let schema = &new.analysis.schema;
        schema
            .type_id(&b.type_name)
            .map(|id| schema.types[id].name_range.clone())
    });
    let (start, end) = new.source.range_positions(&range.unwrap_or(0..0), ColumnUnit::Utf32);
    json!({
        "file": path.display().to_string(),
        "line": start.line + 1,
        "column": start.column + 1,
        "end_line": end.line + 1,
        "end_column": end.column + 1,
        "severity": "error",
        "code": code(b),
        "message": b.message,
    })
}

fn span(source: &SourceFile, range: &Option<std::ops::Range<usize>>) -> Value {
    match range {
        None => Value::Null,
        Some(r) => {
            let (s, e) = source.range_positions(r, ColumnUnit::Utf32);
            json!({"line": s.line + 1, "column": s.column + 1, "end_line": e.line + 1, "end_column": e.column + 1})
        }
    }
}

fn place_json(p: &Option<FieldPlace>) -> Value {
    match p {
        None => Value::Null,
        Some(p) => json!({
            "wire_index": p.wire_index,
            "offset": p.offset,
            "offset_expr": p.offset_expr(),
            "size": p.size.fixed,
            "min_size": p.size.min,
            "max_size": p.size.max,
        }),
    }
}

/// The `diff --format json` document (README, "wirelens diff").
/// The `diff --format json` document, written to `out` as `serde_json::to_writer_pretty`
/// writes the value it describes (README), one type's field at a time.
pub fn write_report_json(
    old: &Loaded,
    new: &Loaded,
    report: &Report,
    out: impl std::io::Write,
) -> serde_json::Result<()> {
    use serde::ser::{SerializeMap as _, Serializer as _};
    let schema = &new.analysis.schema;
    let breaks: Vec<Value> = report
        .breaks
        .iter()
        .map(|b| {
            json!({
                "code": code(b),
                "type": b.type_name,
                "field": b.field,
                "message": b.message,
                "affects": b.affects,
                "old": span(&old.source, &b.old_range),
                "new": span(&new.source, &b.new_range),
            })
        })
        .collect();
    let mut ser = serde_json::Serializer::with_formatter(out, serde_json::ser::PrettyFormatter::with_indent(b"  "));
    let mut m = (&mut ser).serialize_map(Some(7))?;
    m.serialize_entry("old", &old.source.path.display().to_string())?;
    m.serialize_entry("new", &new.source.path.display().to_string())?;
    m.serialize_entry("dialect", schema.dialect.name())?;
    m.serialize_entry("order", schema.order.as_str())?;
    m.serialize_entry("compatible", &report.is_compatible())?;
    m.serialize_entry("breaks", &breaks)?;
    m.serialize_entry("types", &Seq(|| report.types.iter().map(TypeJson)))?;
    m.end()
}

/// One entry of `types`: `{"name","status","message","message_id","broken_by","fields"}`.
struct TypeJson<'r>(&'r wirelens_core::compat::TypeReport);

impl serde::Serialize for TypeJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let t = self.0;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("name", &t.name)?;
        m.serialize_entry("status", t.status.as_str())?;
        m.serialize_entry("message", &t.is_message)?;
        m.serialize_entry("message_id", &json!({"old": t.message_id.old, "new": t.message_id.new}))?;
        m.serialize_entry("broken_by", &t.broken_by)?;
        m.serialize_entry(
            "fields",
            &Seq(|| {
                t.fields
                    .iter()
                    .map(|f| json!({"name": f.name, "old": place_json(&f.old), "new": place_json(&f.new)}))
            }),
        )?;
        m.end()
    }
}
