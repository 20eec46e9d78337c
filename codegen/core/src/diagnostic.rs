//! Diagnostics: byte ranges into the source, converted to positions only at the edge.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A secondary location that explains a diagnostic ("first defined here").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub range: Range<usize>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte range in the source text.
    pub range: Range<usize>,
    pub severity: Severity,
    /// Upstream's code where one exists (`UNKNOWN_TYPE`, `E005`), else a kebab-case wirelens code.
    pub code: &'static str,
    pub message: String,
    /// Short text under the caret.
    pub label: Option<String>,
    pub related: Vec<Related>,
    /// Trailing `= note:` / `= help:` lines.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &'static str, range: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            range,
            severity,
            code,
            message: message.into(),
            label: None,
            related: Vec::new(),
            notes: Vec::new(),
        }
    }
    pub fn error(code: &'static str, range: Range<usize>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, range, message)
    }
    pub fn warning(code: &'static str, range: Range<usize>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, range, message)
    }
    pub fn info(code: &'static str, range: Range<usize>, message: impl Into<String>) -> Self {
        Self::new(Severity::Info, code, range, message)
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    pub fn with_related(mut self, range: Range<usize>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            range,
            message: message.into(),
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}
