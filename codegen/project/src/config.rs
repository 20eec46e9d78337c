//! `wirelens.toml`: workspace settings. Found by walking up from a schema's folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use wirelens_core::model::FieldOrder;
use wirelens_core::source::FileError;

pub const CONFIG_FILE: &str = "wirelens.toml";

/// A settings file is a few lines; anything past this is not one.
const MAX_CONFIG_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub ffi: FfiConfig,
    #[serde(default)]
    pub generate: GenerateConfig,
    #[serde(default)]
    pub compat: CompatConfig,
}

/// `[compat]`: what a schema's wire changes are measured against.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompatConfig {
    /// A git ref (`HEAD`, `main`, `v1.2`) or `file:PATH` (relative to this file's
    /// folder); see [`crate::baseline::Against`]. Default `HEAD`.
    pub against: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FfiConfig {
    pub order: Option<FieldOrder>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateConfig {
    pub on_save: Option<bool>,
    pub languages: Option<Vec<String>>,
    pub out_dir: Option<PathBuf>,
    /// `[generate.rust]`: options of the Rust generator.
    #[serde(default)]
    pub rust: RustGenerateConfig,
    /// `[generate.cpp]`: options of the C++ generator.
    #[serde(default)]
    pub cpp: CppGenerateConfig,
}

/// `[generate.cpp]`: options of the C++ generator.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CppGenerateConfig {
    /// `strings = "std"` (owned string fields are `std::string`, the default) or
    /// `"compact"` (`wirelens::CompactString` from the runtime header: strings up to 31
    /// bytes inline, so decoding allocates only for longer ones).
    pub strings: Option<wirelens_generators::cpp::OwnedStrings>,
    /// `memory = "std"` (arrays are `std::vector`, the default) or `"arena"` (view arrays
    /// are `wirelens::Span`s in a `wirelens::Arena` the caller passes and resets; owned
    /// arrays and strings `wirelens::ArenaVector` / `ArenaString`, from that arena).
    pub memory: Option<wirelens_generators::Memory>,
}

/// `[generate.rust]`: options of the Rust generator.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RustGenerateConfig {
    /// `strings = "std"` (owned string fields are `String`, the default) or `"compact"`
    /// (`wirelens_runtime::CompactString`: strings up to 24 bytes inline, so decoding
    /// allocates only for longer ones; needs the runtime's `compact-strings` feature).
    pub strings: Option<wirelens_generators::rust::OwnedStrings>,
    /// `memory = "std"` (a view's arrays of struct and string views are `Vec`s, the
    /// default) or `"arena"` (`&'a [T]` in an `rt::Arena` passed to `decode_view_in`;
    /// needs the runtime's `arena` feature).
    pub memory: Option<wirelens_generators::Memory>,
}

impl Config {
    pub fn parse(path: &Path, text: &str) -> Result<Config, FileError> {
        toml::from_str(text).map_err(|e| {
            let line_col = e.span().map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                (line, col)
            });
            FileError {
                path: path.to_path_buf(),
                line_col,
                code: "config",
                message: e.message().to_string(),
            }
        })
    }

    pub fn load(path: &Path) -> Result<Config, FileError> {
        let bytes = crate::files::read_regular(path, MAX_CONFIG_BYTES)?;
        let text = String::from_utf8(bytes).map_err(|_| FileError::new(path, "config", "not valid UTF-8"))?;
        Config::parse(path, &text)
    }

    /// The nearest `wirelens.toml` at or above `dir`. One that is not a regular file
    /// (a FIFO) is found too, so that reading it reports the problem.
    pub fn find(dir: &Path) -> Option<PathBuf> {
        dir.ancestors()
            .map(|d| d.join(CONFIG_FILE))
            .find(|p| p.metadata().is_ok_and(|m| !m.is_dir()))
    }

    /// The settings that apply to a schema file: the nearest `wirelens.toml`, or defaults.
    pub fn for_schema(schema: &Path) -> Result<Config, FileError> {
        let dir = schema
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        match Config::find(&dir) {
            Some(path) => Config::load(&path),
            None => Ok(Config::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_order_and_points_at_errors() {
        let c = Config::parse(Path::new("wirelens.toml"), "[ffi]\norder = \"declaration\"\n").unwrap();
        assert_eq!(c.ffi.order, Some(FieldOrder::Declaration));
        let e = Config::parse(Path::new("wirelens.toml"), "[ffi]\norder = \"sideways\"\n").unwrap_err();
        assert_eq!(e.line_col, Some((2, 9)));
        let c = Config::parse(Path::new("wirelens.toml"), "[generate.rust]\nmemory = \"arena\"\n").unwrap();
        assert_eq!(c.generate.rust.memory, Some(wirelens_generators::Memory::Arena));
        let e = Config::parse(Path::new("wirelens.toml"), "[generate.rust]\nmemory = \"pool\"\n").unwrap_err();
        assert_eq!(e.line_col, Some((2, 10)));
        let e = Config::parse(Path::new("wirelens.toml"), "[ffi]\nodrer = \"canonical\"\n").unwrap_err();
        assert!(e.message.contains("odrer"), "{e}");
    }

    /// `[generate.cpp] memory` in `wirelens.toml`: "std" (the default) or "arena"; anything
    /// else is an error pointing at the value.
    #[test]
    fn cpp_memory_option_is_read_from_wirelens_toml() {
        let path = Path::new("wirelens.toml");
        let c = Config::parse(path, "[generate.cpp]\nmemory = \"arena\"\nstrings = \"compact\"\n").expect("parse");
        assert_eq!(c.generate.cpp.memory, Some(wirelens_generators::Memory::Arena));
        assert_eq!(c.generate.cpp.strings, Some(wirelens_generators::OwnedStrings::Compact));
        let c = Config::parse(path, "[generate.cpp]\nmemory = \"std\"\n").expect("parse");
        assert_eq!(c.generate.cpp.memory, Some(wirelens_generators::Memory::Std));
        assert_eq!(
            wirelens_generators::cpp::CppOptions::default().memory,
            wirelens_generators::Memory::Std
        );
        let e = Config::parse(path, "[generate.cpp]\nmemory = \"pool\"\n").expect_err("refused");
        assert_eq!(e.line_col, Some((2, 10)), "{e}");
    }
}
