//! rustc-style rendering of one file's diagnostics for a terminal, bounded: at most
//! [`MAX_PRINTED`] diagnostics per file (then one line saying how many more there are),
//! and a line longer than [`LONG_LINE`] bytes is quoted as a window around its labels
//! (as rustc does), not whole. Before, a 40 KB one-line file with many errors printed
//! the whole line under each of them: 802 MB. `--format json` stays complete.

use std::ops::Range;
use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as ReportSeverity};
use codespan_reporting::files::{Error as FilesError, Files, SimpleFile};
use codespan_reporting::term;
use wirelens_core::source::ColumnUnit;
use wirelens_core::{Diagnostic, Severity, SourceFile};

/// A label: its range, its message, whether it is the primary one.
type Shown<'m> = (Range<usize>, &'m str, bool);

/// Diagnostics printed per file; the rest are counted in one closing line.
pub const MAX_PRINTED: usize = 100;

/// Lines longer than this many bytes are quoted as windows around their labels.
pub const LONG_LINE: usize = 400;

/// Bytes quoted on each side of the labels of a long line (and most of one label's
/// own length shown).
const CONTEXT: usize = 60;

/// Marks where a long line was cut.
const CUT: &str = "…";

/// The diagnostics of one file, as they are printed.
pub struct Human<'a> {
    file: SimpleFile<String, &'a str>,
    source: &'a SourceFile,
    printed: usize,
    hidden_errors: usize,
    hidden_others: usize,
}

impl<'a> Human<'a> {
    pub fn new(path: &Path, source: &'a SourceFile) -> Self {
        Human {
            file: SimpleFile::new(path.display().to_string(), source.text.as_str()),
            source,
            printed: 0,
            hidden_errors: 0,
            hidden_others: 0,
        }
    }

    /// The rendering of `d`, or `None` once [`MAX_PRINTED`] have been (it is counted for
    /// [`Human::rest`]).
    pub fn next(&mut self, d: &Diagnostic) -> Option<String> {
        if self.printed >= MAX_PRINTED {
            match d.severity {
                Severity::Error => self.hidden_errors += 1,
                _ => self.hidden_others += 1,
            }
            return None;
        }
        self.printed += 1;
        Some(render(&self.file, self.source, d))
    }

    /// The closing line for the diagnostics [`Human::next`] left out, if any.
    pub fn rest(&self) -> Option<String> {
        let (errors, others) = (self.hidden_errors, self.hidden_others);
        let what = match (errors, others) {
            (0, 0) => return None,
            (e, 0) => format!("{e} more error{}", plural(e)),
            (0, o) => format!("{o} more diagnostic{}", plural(o)),
            (e, o) => format!("{e} more error{} and {o} other diagnostic{}", plural(e), plural(o)),
        };
        Some(format!(
            "… and {what} in {} (the first {MAX_PRINTED} are shown; `--format json` lists them all)\n\n",
            self.file.name()
        ))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// rustc-style rendering: header, `--> file:line:col`, the source line and a caret.
fn render(file: &SimpleFile<String, &str>, source: &SourceFile, d: &Diagnostic) -> String {
    let severity = match d.severity {
        Severity::Error => ReportSeverity::Error,
        Severity::Warning => ReportSeverity::Warning,
        Severity::Info => ReportSeverity::Note,
    };
    let mut labels = vec![(d.range.clone(), d.label.as_deref().unwrap_or(""), true)];
    labels.extend(d.related.iter().map(|r| (r.range.clone(), r.message.as_str(), false)));
    let report = |labels: Vec<Shown>| {
        let labels = labels
            .into_iter()
            .map(|(range, message, primary)| {
                let label = if primary {
                    Label::primary((), range)
                } else {
                    Label::secondary((), range)
                };
                label.with_message(message)
            })
            .collect();
        Report::new(severity)
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(d.notes.clone())
    };
    let config = term::Config::default();
    let fallback = || format!("{}: {}\n", file.name(), d.message);
    let long = labels
        .iter()
        .any(|(range, _, _)| is_long(file, range.start) || is_long(file, range.end));
    if !long {
        return term::emit_into_string(&config, file, &report(labels)).unwrap_or_else(|_| fallback());
    }
    let (clipped, labels) = Clipped::new(file, source, labels);
    term::emit_into_string(&config, &clipped, &report(labels)).unwrap_or_else(|_| fallback())
}

/// Whether the line holding byte `at` is longer than [`LONG_LINE`].
fn is_long(file: &SimpleFile<String, &str>, at: usize) -> bool {
    line_of(file, at).is_some_and(|(_, range)| range.len() > LONG_LINE)
}

/// The index and byte range (with its terminator) of the line holding byte `at`.
fn line_of(file: &SimpleFile<String, &str>, at: usize) -> Option<(usize, Range<usize>)> {
    let index = file.line_index((), at).ok()?;
    Some((index, file.line_range((), index).ok()?))
}

/// A view of a file for codespan-reporting that holds only the windows of the lines a
/// diagnostic quotes (and their neighbours, which codespan may print between two), each
/// long one cut to a window around its labels, with the real line numbers and columns.
struct Clipped<'a> {
    name: String,
    text: String,
    /// Sorted by line (and so by position in `text`).
    windows: Vec<Window>,
    file: &'a SimpleFile<String, &'a str>,
    source: &'a SourceFile,
}

struct Window {
    /// The real line's index.
    line: usize,
    /// Where the window is in `text`, its line break included.
    shown: Range<usize>,
    /// The real offset of the window's first quoted byte.
    real_start: usize,
    /// The bytes before it in `text` (a [`CUT`] mark or nothing).
    lead: usize,
    /// How many bytes of the real line it quotes.
    quoted: usize,
}

impl<'a> Clipped<'a> {
    /// The view, and the labels moved into it: each kept on its first line and within
    /// that line's window.
    fn new<'l>(
        file: &'a SimpleFile<String, &'a str>,
        source: &'a SourceFile,
        labels: Vec<Shown<'l>>,
    ) -> (Self, Vec<Shown<'l>>) {
        let real = *file.source();
        // Per quoted line: the labels' bounds on it (empty for a neighbour).
        let mut lines: std::collections::BTreeMap<usize, (Range<usize>, Vec<usize>)> = Default::default();
        let mut placed = Vec::with_capacity(labels.len());
        for (range, message, primary) in labels {
            let Some((index, line)) = line_of(file, range.start) else {
                continue;
            };
            let content = content_of(real, &line);
            let start = range.start.clamp(content.start, content.end);
            let end = range.end.clamp(start, content.end);
            for neighbour in [index.checked_sub(1), index.checked_add(1)].into_iter().flatten() {
                if let Ok(r) = file.line_range((), neighbour) {
                    lines.entry(neighbour).or_insert_with(|| (r, Vec::new()));
                }
            }
            let points = &mut lines.entry(index).or_insert_with(|| (line, Vec::new())).1;
            points.extend([start, end]);
            placed.push((index, start..end, message, primary));
        }
        let mut text = String::new();
        let mut windows = Vec::with_capacity(lines.len());
        for (index, (line, points)) in lines {
            let content = content_of(real, &line);
            let (from, to) = if content.len() <= LONG_LINE {
                (content.start, content.end)
            } else if let (Some(lo), Some(hi)) = (points.iter().min(), points.iter().max()) {
                let hi = (*hi).min(lo + 2 * CONTEXT);
                (
                    lo.saturating_sub(CONTEXT).max(content.start),
                    (hi + CONTEXT).min(content.end),
                )
            } else {
                (content.start, content.start + 2 * CONTEXT)
            };
            let (from, to) = (floor_boundary(real, from), floor_boundary(real, to));
            let start = text.len();
            let lead = if from > content.start { CUT.len() } else { 0 };
            if lead > 0 {
                text.push_str(CUT);
            }
            text.push_str(&real[from..to]);
            if to < content.end {
                text.push_str(CUT);
            }
            text.push('\n');
            windows.push(Window {
                line: index,
                shown: start..text.len(),
                real_start: from,
                lead,
                quoted: to - from,
            });
        }
        let clipped = Clipped {
            name: file.name().clone(),
            text,
            windows,
            file,
            source,
        };
        let labels = placed
            .into_iter()
            .map(|(index, range, message, primary)| {
                let range = clipped.shown_at(index, range.start)..clipped.shown_at(index, range.end);
                (range, message, primary)
            })
            .collect();
        (clipped, labels)
    }

    fn window(&self, line: usize) -> Option<&Window> {
        let i = self.windows.binary_search_by_key(&line, |w| w.line).ok()?;
        self.windows.get(i)
    }

    /// Where real offset `at` of line `line` is shown (clamped into its window).
    fn shown_at(&self, line: usize, at: usize) -> usize {
        let Some(w) = self.window(line) else {
            return 0;
        };
        let real = floor_boundary(self.file.source(), at.clamp(w.real_start, w.real_start + w.quoted));
        w.shown.start + w.lead + (real - w.real_start)
    }
}

impl<'f> Files<'f> for Clipped<'_> {
    type FileId = ();
    type Name = String;
    type Source = &'f str;

    fn name(&'f self, (): ()) -> Result<String, FilesError> {
        Ok(self.name.clone())
    }

    fn source(&'f self, (): ()) -> Result<&'f str, FilesError> {
        Ok(&self.text)
    }

    fn line_index(&'f self, (): (), byte_index: usize) -> Result<usize, FilesError> {
        let i = self
            .windows
            .partition_point(|w| w.shown.start <= byte_index)
            .saturating_sub(1);
        self.windows.get(i).map(|w| w.line).ok_or(FilesError::FileMissing)
    }

    fn line_range(&'f self, (): (), line_index: usize) -> Result<Range<usize>, FilesError> {
        self.window(line_index)
            .map(|w| w.shown.clone())
            .ok_or(FilesError::LineTooLarge {
                given: line_index,
                max: self.windows.last().map_or(0, |w| w.line),
            })
    }

    /// The real column (in characters), not the one in the window.
    fn column_number(&'f self, (): (), line_index: usize, byte_index: usize) -> Result<usize, FilesError> {
        let w = self.window(line_index).ok_or(FilesError::FileMissing)?;
        let real = w.real_start + byte_index.saturating_sub(w.shown.start + w.lead).min(w.quoted);
        let line_start = self.file.line_range((), line_index)?.start;
        let real = floor_boundary(self.file.source(), real.max(line_start));
        let (at, start) = (
            self.source.position(real, ColumnUnit::Utf32),
            self.source.position(line_start, ColumnUnit::Utf32),
        );
        // The source file also ends lines at a lone `\r`, codespan only at `\n`.
        let column = if at.line == start.line {
            (at.column - start.column) as usize
        } else {
            self.file.source()[line_start..real].chars().count()
        };
        Ok(column + 1)
    }
}

/// A line's range without its terminator.
fn content_of(text: &str, line: &Range<usize>) -> Range<usize> {
    let body = text.get(line.clone()).unwrap_or("");
    let trimmed = body.trim_end_matches(['\n', '\r']);
    line.start..line.start + trimmed.len()
}

fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
