//! `wirelens layout FILE [--type T]`: the wire layout as a table or as JSON (spec §10).

use std::path::Path;
use std::process::ExitCode;

use codegen::report::{layout_json, layout_table};
use codegen::FieldOrder;

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
            let value = layout_json(schema, &loaded.analysis.layout, only);
            let mut text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
            text.push('\n');
            crate::write_stdout(text.as_bytes())?;
        }
        Format::Human => crate::write_stdout(layout_table(schema, &loaded.analysis.layout, only).as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
