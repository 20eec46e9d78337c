//! `wirelens layout FILE [--type T]`: the wire layout as a table or as JSON (spec §10).

use std::path::Path;
use std::process::ExitCode;

use wirelens_core::report::{layout_table, write_layout_json};
use wirelens_core::FieldOrder;

use super::load_checked;
use crate::Format;

pub fn run(
    file: &Path,
    type_name: Option<&str>,
    format: Format,
    order: Option<FieldOrder>,
) -> Result<ExitCode, String> {
    let loaded = load_checked(file, order)?;
    let schema = &loaded.analysis.schema;
    let only = match type_name {
        Some(name) => Some(schema.type_id(name).ok_or_else(|| {
            let names: Vec<&str> = schema.types.iter().map(|t| t.name.as_str()).collect();
            format!("{}: no type `{name}` (types: {})", file.display(), names.join(", "))
        })?),
        None => None,
    };
    match format {
        Format::Json => {
            // Written field by field (the document's value took 15 times its text).
            let mut text = Vec::new();
            write_layout_json(schema, &loaded.analysis.layout, only, &mut text).map_err(|e| e.to_string())?;
            text.push(b'\n');
            crate::write_stdout(&text)?;
        }
        Format::Human => crate::write_stdout(layout_table(schema, &loaded.analysis.layout, only).as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
