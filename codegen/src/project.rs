//! Schema files on disk: finding them, reading them, and analysing each with the
//! settings that apply to it (`wirelens.toml`, an explicit order). Shared by the CLI
//! and the `build.rs` [`crate::generate::Builder`].

use std::path::{Path, PathBuf};

use crate::{analyze, Analysis, Config, Dialect, FieldOrder, OrderChoice, SourceFile};

/// A schema file read and analysed with the settings that apply to it.
pub struct Loaded {
    pub source: SourceFile,
    pub analysis: Analysis,
}

/// Why a file could not be analysed at all; rendered as `file:line:col: message`.
#[derive(Debug, Clone)]
pub struct LoadFailure {
    pub path: PathBuf,
    /// 1-based line and column, when the problem is inside a file.
    pub line_col: Option<(usize, usize)>,
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line_col {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

pub fn dialect_of(path: &Path) -> Result<Dialect, LoadFailure> {
    Dialect::from_path(path).ok_or_else(|| LoadFailure {
        path: path.to_path_buf(),
        line_col: None,
        code: "file-type",
        message: "not a schema file: expected a .sdp or .ffi extension".into(),
    })
}

pub fn load(path: &Path, order_flag: Option<FieldOrder>) -> Result<Loaded, LoadFailure> {
    dialect_of(path)?; // before reading: a wrong extension is the clearer error
    let source = SourceFile::load(path).map_err(|e| LoadFailure {
        path: e.path.clone(),
        line_col: e.position.map(|p| (p.line as usize + 1, p.column as usize + 1)),
        code: if e.position.is_some() {
            "file-encoding"
        } else {
            "file-read"
        },
        message: e.message,
    })?;
    analyze_source(path, source, order_flag)
}

/// Analyses `source` as the schema at `path` with the settings that apply there (the
/// baseline of a wire comparison is text that is not on disk).
pub fn analyze_source(path: &Path, source: SourceFile, order_flag: Option<FieldOrder>) -> Result<Loaded, LoadFailure> {
    let dialect = dialect_of(path)?;
    let order = match order_flag {
        Some(o) => OrderChoice {
            order: Some(o),
            overrides_directive: true,
        },
        None if dialect == Dialect::Ffi => {
            let config = Config::for_schema(path).map_err(|e| LoadFailure {
                path: e.path.clone(),
                line_col: e.line_col,
                code: "config",
                message: e.message,
            })?;
            OrderChoice {
                order: config.ffi.order,
                overrides_directive: false,
            }
        }
        None => OrderChoice::default(),
    };
    let analysis = analyze(dialect, &source.text, None, order);
    Ok(Loaded { source, analysis })
}

/// The schema files named by `paths`: files as given, folders searched recursively for
/// `.sdp` and `.ffi` files (sorted, so output is stable).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadFailure> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            let mut found = Vec::new();
            while let Some(dir) = stack.pop() {
                let entries = std::fs::read_dir(&dir).map_err(|e| LoadFailure {
                    path: dir.clone(),
                    line_col: None,
                    code: "file-read",
                    message: e.to_string(),
                })?;
                for entry in entries.flatten() {
                    let path = entry.path();
                    let name = entry.file_name();
                    if name.to_string_lossy().starts_with('.') || name == "target" || name == "node_modules" {
                        continue;
                    }
                    if path.is_dir() {
                        stack.push(path);
                    } else if Dialect::from_path(&path).is_some() {
                        found.push(path);
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Writes `bytes` to a new temporary file beside `path` (created exclusively, so never
/// through a planted link), with `path`'s permissions if it exists, synced to disk.
/// Rename it over `path` to publish it; see [`write_atomically`].
pub fn write_temp(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write as _;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.wirelens-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    remove_stale_temps(dir, &name);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Replaces `path` with `bytes` so that a reader sees the old file or the new one,
/// never half of it: [`write_temp`], then rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = write_temp(path, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Removes the temporary files of `name` that a killed wirelens left behind in `dir`:
/// `.NAME.wirelens-PID.tmp` whose process no longer runs. Where liveness cannot be told
/// (no `/proc`), nothing is removed: a running writer's file must never go.
fn remove_stale_temps(dir: &Path, name: &str) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let prefix = format!(".{name}.wirelens-");
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
