//! `wirelens fmt [--check] FILE…`: one canonical style per dialect. Every file is read
//! and formatted in memory first; if any cannot be (unreadable, syntax errors), nothing
//! is written. Writes go through `wirelens_project::files::replace_user_file`: atomic, through
//! symbolic links to the real file, keeping permissions and owner; read-only files,
//! hard-linked files and anything that is not a regular file are refused.

use std::path::PathBuf;
use std::process::ExitCode;

use wirelens_core::fmt::format;

use super::human::Human;
use super::{find_schemas, load};
use wirelens_project::files::replace_user_file;

pub fn run(paths: &[PathBuf], check: bool) -> Result<ExitCode, String> {
    let files = find_schemas(paths).map_err(|e| e.to_string())?;
    let mut changed: Vec<(PathBuf, String)> = Vec::new();
    let mut failed = 0usize;
    for path in &files {
        let loaded = match load(path, None) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error[{}]: {e}", e.code);
                failed += 1;
                continue;
            }
        };
        let syntax: Vec<_> = loaded
            .analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == "SYNTAX")
            .collect();
        if !syntax.is_empty() {
            let mut shown = Human::new(path, &loaded.source);
            for d in syntax {
                if let Some(text) = shown.next(d) {
                    eprint!("{text}");
                }
            }
            if let Some(rest) = shown.rest() {
                eprint!("{rest}");
            }
            eprintln!("error: {}: not formatted: the file has syntax errors", path.display());
            failed += 1;
            continue;
        }
        match format(loaded.analysis.schema.dialect, &loaded.source.text) {
            Ok(text) if text != loaded.source.text => changed.push((path.clone(), text)),
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                failed += 1;
            }
        }
    }
    if failed > 0 {
        return Err(format!("{failed} file(s) could not be formatted; nothing was written"));
    }
    if check {
        for (path, _) in &changed {
            crate::write_stdout(format!("would reformat {}\n", path.display()).as_bytes())?;
        }
        return Ok(if changed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    for (path, text) in &changed {
        replace_user_file(path, text.as_bytes()).map_err(|e| e.to_string())?;
        crate::write_stdout(format!("formatted {}\n", path.display()).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
