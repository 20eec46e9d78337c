//! The two schema dialects and what differs between their wire formats.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// SDP (`.sdp`): Rust-like structs, u32 length prefixes, declaration order.
    Sdp,
    /// ffire (`.ffi`): Go type declarations, u16 length prefixes, canonical or declaration order.
    Ffi,
}

impl Dialect {
    /// The dialect of a schema file, from its extension.
    pub fn from_path(path: &Path) -> Option<Dialect> {
        match path.extension()?.to_str()? {
            "sdp" => Some(Dialect::Sdp),
            "ffi" => Some(Dialect::Ffi),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sdp => "sdp",
            Dialect::Ffi => "ffi",
        }
    }

    pub fn language(self) -> tree_sitter::Language {
        match self {
            Dialect::Sdp => tree_sitter_wirelens::LANGUAGE_SDP.into(),
            Dialect::Ffi => tree_sitter_wirelens::LANGUAGE_FFI.into(),
        }
    }

    /// Bytes of the length prefix of strings and the count prefix of arrays.
    pub fn length_prefix(self) -> u64 {
        match self {
            Dialect::Sdp => 4,
            Dialect::Ffi => 2,
        }
    }

    /// Largest string byte length / array element count the prefix can express,
    /// or `None` when the limit is not worth modelling (SDP's u32).
    pub fn max_length(self) -> Option<u64> {
        match self {
            Dialect::Sdp => None,
            Dialect::Ffi => Some(u16::MAX as u64),
        }
    }
}
