//! CLI subcommands. Each reads its inputs completely before writing anything, so a
//! failure never leaves partial output.

pub mod check;
pub mod codec;
pub mod diff;
pub mod fmt;
pub mod gen;
pub mod human;
pub mod layout;

use std::path::Path;

use wirelens_core::FieldOrder;
pub use wirelens_project::project::{find_schemas, load, FileError, Loaded};

/// [`load`], then refuse a schema with errors, printing them rustc-style to stderr:
/// layouts and codecs of a broken schema would be guesses.
pub fn load_checked(path: &Path, order_flag: Option<FieldOrder>) -> Result<Loaded, String> {
    let loaded = load(path, order_flag).map_err(|e| e.to_string())?;
    let errors: Vec<_> = loaded
        .analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == wirelens_core::Severity::Error)
        .collect();
    if !errors.is_empty() {
        let mut shown = human::Human::new(path, &loaded.source);
        for d in &errors {
            if let Some(text) = shown.next(d) {
                eprint!("{text}");
            }
        }
        if let Some(rest) = shown.rest() {
            eprint!("{rest}");
        }
        return Err(format!(
            "{}: the schema has {} error(s); fix them first",
            path.display(),
            errors.len()
        ));
    }
    Ok(loaded)
}
