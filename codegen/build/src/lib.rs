//! Generate C, C++ and Rust encoders and decoders for SDP and ffire schemas from a
//! `build.rs`, the way `prost-build` does for protobuf:
//!
//! ```toml
//! [build-dependencies]
//! wirelens-build = "0.1"
//! [dependencies]
//! wirelens-runtime = "0.1"
//! ```
//!
//! The schema's settings (`wirelens.toml`, `//wirelens:order`) apply exactly as for
//! `wirelens gen`: the builder asks the same project service
//! ([`wirelens_project::project::Project`]) and writes through the same safe writer.

use std::path::{Path, PathBuf};

use wirelens_project::config::Config;
use wirelens_project::project::{write_prepared, Flags, Project};

pub use wirelens_core::{FieldOrder, FileError};
pub use wirelens_generators::{Lang, Memory, OwnedStrings};

/// Generation from `build.rs`, like `prost-build`:
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     wirelens_build::Builder::new().compile(&["schemas/registry.sdp"])?;
///     Ok(())
/// }
/// // src/lib.rs:
/// // pub mod registry { include!(concat!(env!("OUT_DIR"), "/registry.rs")); }
/// ```
///
/// Defaults: Rust only, into `$OUT_DIR`, ffire order from `wirelens.toml`, and
/// `cargo:rerun-if-changed` lines for every schema (and its `wirelens.toml`).
#[derive(Debug, Clone)]
pub struct Builder {
    langs: Vec<Lang>,
    out_dir: Option<PathBuf>,
    order: Option<FieldOrder>,
    cargo_rerun: bool,
    rust_strings: Option<OwnedStrings>,
    cpp_strings: Option<OwnedStrings>,
    rust_memory: Option<Memory>,
    cpp_memory: Option<Memory>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            langs: vec![Lang::Rust],
            out_dir: None,
            order: None,
            cargo_rerun: true,
            rust_strings: None,
            cpp_strings: None,
            rust_memory: None,
            cpp_memory: None,
        }
    }

    /// The languages to generate (default: Rust).
    pub fn langs(mut self, langs: &[Lang]) -> Builder {
        self.langs = langs.to_vec();
        self
    }

    /// Where to write (default: the `OUT_DIR` cargo gives build scripts).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.out_dir = Some(dir.into());
        self
    }

    /// The ffire field order, overriding `wirelens.toml` and `//wirelens:order`.
    pub fn order(mut self, order: FieldOrder) -> Builder {
        self.order = Some(order);
        self
    }

    /// The owned type of string fields in generated Rust, overriding `wirelens.toml`'s
    /// `[generate.rust] strings` (default `String`). [`OwnedStrings::Compact`] needs the
    /// `wirelens-runtime` feature `compact-strings`.
    pub fn rust_strings(mut self, strings: OwnedStrings) -> Builder {
        self.rust_strings = Some(strings);
        self
    }

    /// Where generated Rust views keep their arrays, overriding `wirelens.toml`'s
    /// `[generate.rust] memory` (default [`Memory::Std`], one `Vec` each).
    /// [`Memory::Arena`]: `&'a [T]` in a `wirelens_runtime::Arena` passed to
    /// `decode_view_in` (runtime feature `arena`).
    pub fn rust_memory(mut self, memory: Memory) -> Builder {
        self.rust_memory = Some(memory);
        self
    }

    /// Where generated C++ decoders keep arrays, overriding `wirelens.toml`'s
    /// `[generate.cpp] memory` (default [`Memory::Std`], `std::vector`/`std::string`).
    /// [`Memory::Arena`]: views' arrays are `wirelens::Span`s and owned arrays and
    /// strings use an allocator over the `wirelens::Arena` passed to the decoder.
    pub fn cpp_memory(mut self, memory: Memory) -> Builder {
        self.cpp_memory = Some(memory);
        self
    }

    /// The owned type of string fields in generated C++, overriding `wirelens.toml`'s
    /// `[generate.cpp] strings` (default `std::string`).
    pub fn cpp_strings(mut self, strings: OwnedStrings) -> Builder {
        self.cpp_strings = Some(strings);
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default: yes).
    pub fn cargo_rerun(mut self, on: bool) -> Builder {
        self.cargo_rerun = on;
        self
    }

    /// Generates every schema; returns the files written or left unchanged. The error
    /// lists every problem, one `file:line:col: message` per line.
    pub fn compile(&self, schemas: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, BuildError> {
        let paths: Vec<PathBuf> = schemas.iter().map(|p| p.as_ref().to_path_buf()).collect();
        if self.cargo_rerun {
            for p in &paths {
                println!("cargo:rerun-if-changed={}", p.display());
                if let Some(config) = p.parent().and_then(Config::find) {
                    println!("cargo:rerun-if-changed={}", config.display());
                }
            }
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR").map(PathBuf::from).ok_or_else(|| {
                BuildError(vec![FileError::new(
                    "OUT_DIR",
                    "out-dir",
                    "not set: call `out_dir` when not running from a build script",
                )])
            })?,
        };
        let flags = Flags {
            order: self.order,
            languages: Some(self.langs.clone()),
            out_dir: Some(out_dir),
        };
        let prepared = Project::local()
            .with_staging(true)
            .with_rust_strings(self.rust_strings)
            .with_rust_memory(self.rust_memory)
            .with_cpp_memory(self.cpp_memory)
            .with_cpp_strings(self.cpp_strings)
            .prepare(&paths, &flags, &Default::default())
            .map_err(BuildError)?;
        let written = write_prepared(&prepared).map_err(|e| BuildError(vec![e]))?;
        let mut all: Vec<PathBuf> = written
            .into_iter()
            .flat_map(|w| w.report.written.into_iter().chain(w.report.unchanged))
            .collect();
        all.sort();
        Ok(all)
    }
}

/// Every problem a [`Builder::compile`] met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub Vec<FileError>);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}
