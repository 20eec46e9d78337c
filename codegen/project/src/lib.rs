//! The wirelens project layer: everything that depends on where a schema lives and on
//! the file system. Layered bottom-up, each module importing only those above it:
//!
//! - [`files`] — the only readers and writers (regular files only, limits counted while
//!   reading, atomic writes);
//! - [`config`] — the `wirelens.toml` settings file;
//! - [`baseline`] — the version of a schema a wire comparison is against (git or a file);
//! - [`generate`] — emit in memory, merge per output folder, write safely;
//! - [`project`] — the project service the CLI, the language server and `wirelens-build`
//!   all ask (effective settings, finding schemas, generation under per-folder locks).

pub mod baseline;
pub mod config;
pub mod files;
pub mod generate;
pub mod project;

pub use config::Config;
pub use wirelens_core::FileError;
