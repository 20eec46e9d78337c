//! wirelens core. Data flows one way:
//!
//! text → [`syntax`] (tree-sitter CST) → [`model`] (schema + diagnostics, via
//! [`lower`]) → [`check`] → [`layout`] (the one wire-layout engine) → views
//! (CLI tables, the language server, the JSON codec, the emitters).
//!
//! Nothing outside [`layout`] computes a size, an offset or a field order.

pub mod analysis;
pub mod baseline;
pub mod check;
pub mod codec;
pub mod compat;
pub mod config;
pub mod diagnostic;
pub mod dialect;
pub mod emit;
pub mod files;
pub mod fmt;
pub mod generate;
pub mod graph;
pub mod layout;
pub mod lower;
pub mod model;
pub mod plan;
pub mod project;
pub mod report;
pub mod reserved;
mod reuse;
pub mod source;
pub mod syntax;

pub use analysis::{analyze, analyze_reusing, Analysis};
pub use config::{Config, FieldOrder};
pub use diagnostic::{Diagnostic, Severity};
pub use dialect::Dialect;
pub use lower::OrderChoice;
pub use source::SourceFile;
