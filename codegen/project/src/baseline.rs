//! The baseline of a wire comparison ([`wirelens_core::compat`]): the version of a schema that
//! other programs were built from. By default the one committed at `HEAD`; configurable
//! in `wirelens.toml` (`[compat] against = "main"` or `"file:old/schema.sdp"`).
//!
//! Git is read through the `git` executable (`git show REF:path`), never parsed by hand.
//! A schema with no baseline (a new file, a file outside any repository, no commit yet)
//! is [`Baseline::Missing`], not an error; an unknown ref or an unreadable baseline file
//! is an error.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::Config;
use wirelens_core::source::SourceFile;
use wirelens_core::FileError;

/// What to compare against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    /// A git revision (`HEAD`, a branch, a tag, a commit).
    Git(String),
    /// Another schema file.
    File(PathBuf),
}

impl Default for Against {
    fn default() -> Self {
        Against::Git("HEAD".into())
    }
}

impl Against {
    /// `file:PATH` (relative paths resolved against `base`), else a git revision.
    pub fn parse(spec: &str, base: &Path) -> Against {
        match spec.strip_prefix("file:") {
            Some(path) => Against::File(base.join(path)),
            None => Against::Git(spec.to_string()),
        }
    }

    /// The baseline configured for a schema: `[compat] against` of the nearest
    /// `wirelens.toml` (a `file:` path relative to that file's folder), else `HEAD`.
    pub fn for_schema(schema: &Path) -> Result<Against, FileError> {
        let dir = schema
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let Some(toml) = Config::find(&dir) else {
            return Ok(Against::default());
        };
        let config = Config::load(&toml)?;
        let base = toml.parent().unwrap_or(Path::new("."));
        Ok(config
            .compat
            .against
            .map_or_else(Against::default, |s| Against::parse(&s, base)))
    }

    /// `HEAD`, `file:old.sdp`: for messages and lens text.
    pub fn label(&self) -> String {
        match self {
            Against::Git(r) => r.clone(),
            Against::File(p) => format!("file:{}", p.display()),
        }
    }
}

pub enum Baseline {
    /// The baseline text; its path reads `REF:path/in/repo` for a git baseline.
    Found(SourceFile),
    /// Nothing to compare against, and why (`not in a git repository`).
    Missing(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError {
    pub message: String,
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BaselineError {}

fn error(message: impl Into<String>) -> BaselineError {
    BaselineError {
        message: message.into(),
    }
}

/// Reads the baseline of the schema at `schema`.
pub fn load(schema: &Path, against: &Against) -> Result<Baseline, BaselineError> {
    match against {
        Against::File(path) => crate::files::read_source(path)
            .map(Baseline::Found)
            .map_err(|e| error(format!("baseline {}: {}", e.path.display(), e.message))),
        Against::Git(rev) => load_git(schema, rev),
    }
}

fn load_git(schema: &Path, rev: &str) -> Result<Baseline, BaselineError> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(error(format!("`{rev}` is not a git revision")));
    }
    let dir = schema
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = schema.file_name().and_then(|n| n.to_str()) else {
        return Ok(Baseline::Missing(format!(
            "{}: not a UTF-8 file name",
            schema.display()
        )));
    };
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("--no-pager")
            .args(args)
            .current_dir(dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .output()
    };
    let prefix = match git(&["rev-parse", "--show-prefix"]) {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim_end().to_string(),
        Ok(_) => return Ok(Baseline::Missing("not in a git repository".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Baseline::Missing("git is not installed".into()))
        }
        Err(e) => return Err(error(format!("cannot run git: {e}"))),
    };
    let commit = format!("{rev}^{{commit}}");
    let verified =
        git(&["rev-parse", "--verify", "--quiet", &commit]).map_err(|e| error(format!("cannot run git: {e}")))?;
    if !verified.status.success() {
        if rev == "HEAD" {
            return Ok(Baseline::Missing("the repository has no commit yet".into()));
        }
        return Err(error(format!("unknown git revision `{rev}`")));
    }
    let spec = format!("{rev}:{prefix}{name}");
    let exists = git(&["cat-file", "-e", &spec]).map_err(|e| error(format!("cannot run git: {e}")))?;
    if !exists.status.success() {
        return Ok(Baseline::Missing(format!("`{prefix}{name}` is not in {rev}")));
    }
    let out = git(&["show", &spec]).map_err(|e| error(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(error(format!(
            "git show {spec}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    SourceFile::from_bytes(Path::new(&spec), out.stdout)
        .map(Baseline::Found)
        .map_err(|e| error(format!("{}: {}", e.path.display(), e.message)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn against_from_wirelens_toml() {
        let dir = std::env::temp_dir().join(format!("wirelens-baseline-{}", std::process::id()));
        let sub = dir.join("schemas");
        std::fs::create_dir_all(&sub).unwrap();
        let schema = sub.join("a.sdp");
        let toml = dir.join("wirelens.toml");
        let _ = std::fs::remove_file(&toml);
        assert_eq!(
            Against::for_schema(&schema).unwrap(),
            Against::default(),
            "no file: HEAD"
        );

        std::fs::write(&toml, "[compat]\nagainst = \"release\"\n").unwrap();
        assert_eq!(Against::for_schema(&schema).unwrap(), Against::Git("release".into()));

        std::fs::write(&toml, "[compat]\nagainst = \"file:old/a.sdp\"\n").unwrap();
        let base = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(
            Against::for_schema(&schema).unwrap(),
            Against::File(base.join("old/a.sdp")),
            "relative to the folder of wirelens.toml"
        );

        std::fs::write(&toml, "[compat]\nagianst = \"HEAD\"\n").unwrap();
        let e = Against::for_schema(&schema).unwrap_err();
        assert_eq!(e.line_col, Some((2, 1)), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn option_like_revisions_are_refused() {
        let e = load(Path::new("a.sdp"), &Against::Git("--output=/tmp/x".into()))
            .err()
            .unwrap();
        assert!(e.message.contains("not a git revision"), "{e}");
    }
}
