//! `wirelens gen FILE… --lang c,cpp,rust --out DIR [--check]`: through the project
//! service (`wirelens_project::project`), every schema is read, checked and generated in memory
//! first; if any fails, nothing is written. Writing
//! follows `wirelens_project::generate`'s rules (atomic, confined to DIR, never over a file
//! wirelens did not generate). `--check` writes nothing and exits 1 if DIR is stale.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use wirelens_core::FieldOrder;
use wirelens_generators::Lang;
use wirelens_project::generate::{check_files, Staleness};
use wirelens_project::project::{write_prepared, Flags, Project};

use super::find_schemas;

pub struct Args {
    pub paths: Vec<PathBuf>,
    pub langs: Vec<Lang>,
    pub out: PathBuf,
    pub check: bool,
    pub order: Option<FieldOrder>,
}

pub fn run(args: &Args) -> Result<ExitCode, String> {
    let files = find_schemas(&args.paths).map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err("no .sdp or .ffi files found".into());
    }
    let flags = Flags {
        order: args.order,
        languages: Some(args.langs.clone()),
        out_dir: Some(args.out.clone()),
    };
    let prepared = Project::local()
        .with_staging(!args.check)
        .prepare(&files, &flags, &HashMap::new())
        .map_err(|errors| {
            for e in &errors {
                eprintln!("error: {e}");
            }
            "nothing was written".to_string()
        })?;
    if args.check {
        let mut stale = Vec::new();
        for dir in &prepared.dirs {
            stale.extend(check_files(&dir.out_dir, &dir.files).map_err(|e| e.to_string())?);
        }
        let mut out = String::new();
        for (path, why) in &stale {
            let why = match why {
                Staleness::Missing => "missing",
                Staleness::Differs => "out of date",
            };
            out.push_str(&format!("{why}: {}\n", path.display()));
        }
        crate::write_stdout(out.as_bytes())?;
        return Ok(if stale.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let written = write_prepared(&prepared).map_err(|e| format!("{e}; nothing was written"))?;
    // Printed through `write_stdout`: a closed stdout (`| head -1`) ends with 141, the
    // files written all the same.
    let mut out = String::new();
    for w in &written {
        for path in &w.report.written {
            out.push_str(&format!("wrote {}\n", path.display()));
        }
        if !w.report.unchanged.is_empty() {
            out.push_str(&format!("{} file(s) unchanged\n", w.report.unchanged.len()));
        }
    }
    crate::write_stdout(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The value of `--lang` (one argument, so clap must not treat it as a list itself).
#[derive(Debug, Clone)]
pub struct LangList(pub Vec<Lang>);

/// `c,cpp,rust` → the languages, each once, in that order.
pub fn parse_langs(list: &str) -> Result<LangList, String> {
    let mut langs = Vec::new();
    for part in list.split(',').filter(|p| !p.trim().is_empty()) {
        let lang = Lang::parse(part).ok_or_else(|| format!("unknown language `{part}` (expected c, cpp, rust)"))?;
        if !langs.contains(&lang) {
            langs.push(lang);
        }
    }
    if langs.is_empty() {
        return Err("no language given (expected a list like c,cpp,rust)".into());
    }
    langs.sort();
    Ok(LangList(langs))
}
