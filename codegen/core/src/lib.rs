//! The wirelens analysis core: everything that turns schema text into checked, laid-out
//! models and wire bytes, as pure functions of their inputs. It reads no files, runs no
//! processes and spawns no threads (it builds for `wasm32-unknown-unknown`; the
//! architecture test checks its dependencies and its sources). Data flows one way:
//!
//! text → [`syntax`] (tree-sitter CST) → [`model`] (schema + diagnostics, via
//! [`lower`]) → [`check`] → [`layout`] (the one wire-layout engine) → [`plan`] → views
//! ([`report`], [`codec`], [`compat`]; and, in other crates, the emitters, the IDE layer
//! and the CLI).
//!
//! Nothing outside [`layout`] computes a size, an offset or a field order.

pub mod analysis;
pub mod check;
pub mod codec;
pub mod compat;
pub mod diagnostic;
pub mod dialect;
pub mod fmt;
pub mod graph;
pub mod layout;
pub mod lower;
pub mod model;
pub mod plan;
pub mod report;
pub mod reserved;
mod reuse;
pub mod source;
pub mod syntax;

pub use analysis::{analyze, analyze_reusing, Analysis};
pub use diagnostic::{Diagnostic, Severity};
pub use dialect::Dialect;
pub use lower::OrderChoice;
pub use model::FieldOrder;
pub use source::{FileError, SourceFile};
