//! `wirelens fmt [--check] FILE…`
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(_files: &[PathBuf], _check: bool) -> Result<ExitCode, String> {
    Err("fmt: not built yet".into())
}
