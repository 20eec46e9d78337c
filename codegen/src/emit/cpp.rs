//! The C++ (C++17) emitter. Not built yet: `generate` reports that.

use super::{EmitError, OutputFile};
use crate::layout::Layout;
use crate::model::Schema;

pub fn generate(_schema: &Schema, _layout: &Layout, source: &str) -> Result<Vec<OutputFile>, EmitError> {
    Err(EmitError(format!("{source}: the C++ (C++17) generator is not built yet")))
}

pub fn runtime_files() -> Vec<OutputFile> {
    Vec::new()
}
