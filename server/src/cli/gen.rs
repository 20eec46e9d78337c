//! `wirelens gen FILE… --lang c,cpp,rust --out DIR [--check]`: every schema is read,
//! checked and generated in memory first; if any fails, nothing is written. Writing
//! follows `codegen::generate`'s rules (atomic, confined to DIR, never over a file
//! wirelens did not generate). `--check` writes nothing and exits 1 if DIR is stale.

use std::path::PathBuf;
use std::process::ExitCode;

use codegen::emit::Lang;
use codegen::generate::{check_files, file_name, generate_files, merge_outputs, write_files, Staleness};
use codegen::FieldOrder;

use super::{expand_paths, load_checked};

pub struct Args {
    pub paths: Vec<PathBuf>,
    pub langs: Vec<Lang>,
    pub out: PathBuf,
    pub check: bool,
    pub order: Option<FieldOrder>,
}

pub fn run(args: &Args) -> Result<ExitCode, String> {
    let files = expand_paths(&args.paths).map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err("no .sdp or .ffi files found".into());
    }
    let mut per_schema = Vec::new();
    let mut failed = 0usize;
    for path in &files {
        let loaded = match load_checked(path, args.order) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        match generate_files(&loaded.analysis, &file_name(path), &args.langs) {
            Ok(out) => per_schema.push((path.clone(), out)),
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                failed += 1;
            }
        }
    }
    if failed > 0 {
        return Err(format!(
            "{failed} schema(s) could not be generated; nothing was written"
        ));
    }
    let outputs = merge_outputs(per_schema).map_err(|errors| {
        for e in &errors {
            eprintln!("error: {e}");
        }
        "nothing was written".to_string()
    })?;
    if args.check {
        let stale = check_files(&args.out, &outputs).map_err(|e| e.to_string())?;
        for (path, why) in &stale {
            let why = match why {
                Staleness::Missing => "missing",
                Staleness::Differs => "out of date",
            };
            println!("{why}: {}", path.display());
        }
        return Ok(if stale.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let report = write_files(&args.out, &outputs).map_err(|e| format!("{e}; nothing was written"))?;
    for path in &report.written {
        println!("wrote {}", path.display());
    }
    if !report.unchanged.is_empty() {
        println!("{} file(s) unchanged", report.unchanged.len());
    }
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
