//! `wirelens check PATH…`: rustc-style diagnostics, or the JSON array of spec §10.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codespan_reporting::term::termcolor;
use serde_json::json;
use wirelens_core::source::ColumnUnit;
use wirelens_core::{Diagnostic, FieldOrder, Severity, SourceFile};

use super::human::Human;
use super::{diff, find_schemas, load, FileError};
use crate::Format;
use wirelens_project::baseline::Against;

/// `against`: also report every wire break against that baseline (`check --against`);
/// without it the output is exactly that of a plain `check`.
pub fn run(
    paths: &[PathBuf],
    format: Format,
    order: Option<FieldOrder>,
    against: Option<&Against>,
) -> Result<ExitCode, String> {
    let files = find_schemas(paths).map_err(|e| e.to_string())?;
    let mut json_out = Vec::new();
    let mut human = termcolor::StandardStream::stderr(termcolor::ColorChoice::Auto);
    let (mut errors, mut warnings, mut breaks) = (0usize, 0usize, 0usize);
    for path in &files {
        match load(path, order) {
            Ok(loaded) => {
                let mut shown = Human::new(path, &loaded.source);
                for d in &loaded.analysis.diagnostics {
                    match d.severity {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                        Severity::Info => {}
                    }
                    match format {
                        Format::Json => json_out.push(diagnostic_json(path, &loaded.source, d)),
                        Format::Human => {
                            if let Some(text) = shown.next(d) {
                                let _ = human.write_all(text.as_bytes());
                            }
                        }
                    }
                }
                if let Some(rest) = shown.rest() {
                    let _ = human.write_all(rest.as_bytes());
                }
                if let Some(against) = against.filter(|_| !loaded.analysis.has_errors()) {
                    match diff::against_file(path, &loaded, against, order)? {
                        diff::Outcome::Compared { old, report } => {
                            breaks += report.breaks.len();
                            for b in &report.breaks {
                                match format {
                                    Format::Json => json_out.push(diff::break_json(path, &loaded, b)),
                                    Format::Human => {
                                        let _ = human.write_all(diff::render(&old, &loaded.source, b).as_bytes());
                                    }
                                }
                            }
                        }
                        diff::Outcome::NoBaseline(why) => {
                            if format == Format::Human {
                                let _ = writeln!(
                                    human,
                                    "note: {}: no baseline at {}: {why}",
                                    path.display(),
                                    against.label()
                                );
                            }
                        }
                        diff::Outcome::BrokenBaseline(why) => {
                            errors += 1;
                            match format {
                                Format::Json => json_out.push(json!({
                                    "file": path.display().to_string(),
                                    "line": 1, "column": 1, "end_line": 1, "end_column": 1,
                                    "severity": "error",
                                    "code": "wire-baseline",
                                    "message": why,
                                })),
                                Format::Human => {
                                    let _ = writeln!(human, "error[wire-baseline]: {why}");
                                }
                            }
                        }
                    }
                }
            }
            Err(fail) => {
                errors += 1;
                match format {
                    Format::Json => json_out.push(failure_json(&fail)),
                    Format::Human => {
                        let _ = writeln!(human, "error[{}]: {fail}", fail.code);
                    }
                }
            }
        }
    }
    match format {
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&json_out).map_err(|e| e.to_string())?;
            text.push('\n');
            crate::write_stdout(text.as_bytes())?;
        }
        Format::Human => {
            let summary = match (errors, warnings) {
                (0, 0) => format!("checked {} file{}: no problems", files.len(), plural(files.len())),
                _ => format!(
                    "checked {} file{}: {errors} error{}, {warnings} warning{}",
                    files.len(),
                    plural(files.len()),
                    plural(errors),
                    plural(warnings)
                ),
            };
            let summary = match against {
                Some(a) if breaks == 0 => format!("{summary}; wire-compatible with {}", a.label()),
                Some(a) => format!("{summary}; {breaks} wire break{} against {}", plural(breaks), a.label()),
                None => summary,
            };
            let _ = writeln!(human, "{summary}");
        }
    }
    Ok(if errors > 0 || breaks > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// One entry of the `--format json` array: 1-based lines, columns in characters.
pub fn diagnostic_json(path: &Path, source: &SourceFile, d: &Diagnostic) -> serde_json::Value {
    let (start, end) = source.range_positions(&d.range, ColumnUnit::Utf32);
    json!({
        "file": path.display().to_string(),
        "line": start.line + 1,
        "column": start.column + 1,
        "end_line": end.line + 1,
        "end_column": end.column + 1,
        "severity": d.severity.as_str(),
        "code": d.code,
        "message": d.message,
    })
}

fn failure_json(fail: &FileError) -> serde_json::Value {
    let (line, column) = fail.line_col.unwrap_or((1, 1));
    json!({
        "file": fail.path.display().to_string(),
        "line": line,
        "column": column,
        "end_line": line,
        "end_column": column,
        "severity": "error",
        "code": fail.code,
        "message": fail.message,
    })
}
