//! Generation as a whole: schema → files in memory → files on disk. The CLI (`wirelens
//! gen`), the language server (code actions, generation on save) and `build.rs` (the
//! [`Builder`]) all go through here, so they produce the same bytes and share one set of
//! write-safety rules:
//!
//! - every output is a plain file name inside the output directory (no separators, no
//!   `..`, no hidden files), so nothing a schema is called can escape it;
//! - an existing file is overwritten only if it starts with the generated-file header,
//!   and never through a symbolic link;
//! - every check runs before the first write; each write is atomic (temp file in the
//!   same directory + rename), and a file whose contents did not change is not touched
//!   (its mtime stays, so builds that depend on it do not rerun).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::files::{remove_stale_temps, write_temp};
use wirelens_core::source::ColumnUnit;
use wirelens_core::FileError;
use wirelens_core::{Analysis, Severity, SourceFile};
use wirelens_generators::cpp::CppOptions;
use wirelens_generators::rust::RustOptions;
use wirelens_generators::{self as emit, is_generated, EmitError, Lang, OutputFile};

/// The schema's errors as [`FileError`]s (empty when it can be generated).
pub fn schema_errors(source: &SourceFile, analysis: &Analysis) -> Vec<FileError> {
    analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let p = source.position(d.range.start, ColumnUnit::Utf32);
            FileError {
                path: source.path.clone(),
                line_col: Some((p.line as usize + 1, p.column as usize + 1)),
                code: "schema",
                message: format!("error[{}]: {}", d.code, d.message),
            }
        })
        .collect()
}

/// The files for one analysed schema in each of `langs`, runtime headers included.
/// `source_name` is the schema's file name (it names the outputs).
pub fn generate_files(analysis: &Analysis, source_name: &str, langs: &[Lang]) -> Result<Vec<OutputFile>, EmitError> {
    generate_files_with(
        analysis,
        source_name,
        langs,
        &RustOptions::default(),
        &CppOptions::default(),
    )
}

/// [`generate_files`] with the Rust and C++ generators' options.
pub fn generate_files_with(
    analysis: &Analysis,
    source_name: &str,
    langs: &[Lang],
    rust: &RustOptions,
    cpp: &CppOptions,
) -> Result<Vec<OutputFile>, EmitError> {
    generate_files_in(analysis, source_name, langs, rust, cpp, false)
}

/// [`generate_files_with`], a language on more than one thread when `parallel`
/// ([`emit::generate_in`]).
pub(crate) fn generate_files_in(
    analysis: &Analysis,
    source_name: &str,
    langs: &[Lang],
    rust: &RustOptions,
    cpp: &CppOptions,
    parallel: bool,
) -> Result<Vec<OutputFile>, EmitError> {
    let mut files = Vec::new();
    for &lang in langs {
        files.extend(emit::generate_in(
            lang,
            &analysis.schema,
            &analysis.layout,
            source_name,
            rust,
            cpp,
            parallel,
        )?);
        files.extend(emit::runtime_files(lang));
    }
    Ok(files)
}

/// A path's file name, as the emitters want it (`plugin_registry.sdp`).
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The union of several schemas' files, each name once: identical files (the runtime
/// headers) are shared; two schemas wanting the same name with different contents is
/// an error naming both.
pub fn merge_outputs(per_schema: Vec<(PathBuf, Vec<OutputFile>)>) -> Result<Vec<OutputFile>, Vec<FileError>> {
    let mut errors = Vec::new();
    let mut by_name: BTreeMap<String, (PathBuf, OutputFile)> = BTreeMap::new();
    for (path, files) in per_schema {
        for file in files {
            match by_name.get(&file.name) {
                Some((_, existing)) if existing.contents == file.contents => {}
                Some((other, _)) => errors.push(FileError {
                    path: path.clone(),
                    line_col: None,
                    code: "collision",
                    message: format!(
                        "its output `{}` would overwrite the one generated from {}; rename one of the schemas",
                        file.name,
                        other.display()
                    ),
                }),
                None => {
                    by_name.insert(file.name.clone(), (path.clone(), file));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(by_name.into_values().map(|(_, f)| f).collect())
    } else {
        Err(errors)
    }
}

/// What [`write_files`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteReport {
    pub written: Vec<PathBuf>,
    pub unchanged: Vec<PathBuf>,
}

/// Why a file in the output directory is not what generation would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staleness {
    Missing,
    Differs,
}

/// Generated files already written to temporary files beside their targets, before
/// the whole generation is ready to publish: a command-line run or a build script
/// stages each language's files as soon as that language is emitted, so their `fsync`s
/// overlap the emitting of the others. [`write_files_staged`] renames a staged file
/// into place instead of writing it again; whatever is not published (unchanged files,
/// a failed or superseded generation) is removed when the last holder drops it, with
/// the output folders staging created, if they are still empty.
#[derive(Default)]
pub struct Staged {
    /// Target path → its temporary file.
    files: Mutex<HashMap<PathBuf, PathBuf>>,
    created_dirs: Mutex<Vec<PathBuf>>,
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.files.lock().map_or(0, |m| m.len());
        write!(f, "Staged({n} files)")
    }
}

impl Staged {
    /// Writes `files` to temporary files in `out_dir`. Best effort: a file that cannot
    /// be staged is written (and its error reported) by [`write_files_staged`].
    pub fn stage(&self, out_dir: &Path, files: &[OutputFile]) {
        if !out_dir.is_dir() {
            if std::fs::create_dir_all(out_dir).is_err() {
                return;
            }
            lock(&self.created_dirs).push(out_dir.to_path_buf());
        }
        for file in files {
            let Ok(target) = target_path(out_dir, &file.name) else {
                continue;
            };
            if lock(&self.files).contains_key(&target) {
                continue; // an identical runtime header of another schema
            }
            if let Ok(tmp) = write_temp(&target, file.contents.as_bytes()) {
                if let Some(twice) = lock(&self.files).insert(target, tmp.clone()) {
                    let _ = std::fs::remove_file(twice);
                }
            }
        }
    }

    /// The temporary file staged for `target`, now the caller's.
    fn take(&self, target: &Path) -> Option<PathBuf> {
        lock(&self.files).remove(target)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (_, tmp) in lock(&self.files).drain() {
            let _ = std::fs::remove_file(tmp);
        }
        for dir in lock(&self.created_dirs).drain(..).rev() {
            let _ = std::fs::remove_dir(dir); // only if empty
        }
    }
}

/// `m`'s guard, also when a thread that panicked while holding it poisoned it: what the
/// crate keeps behind mutexes (caches, maps of files) stays consistent between updates.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes `files` into `out_dir` (created if missing) under the rules in the module
/// docs. On error no target has changed (only a failing final rename, after every
/// file is on disk, can leave the earlier ones renamed).
pub fn write_files(out_dir: &Path, files: &[OutputFile]) -> Result<WriteReport, FileError> {
    write_files_staged(out_dir, files, None)
}

/// [`write_files`] that publishes the files `staging` already holds instead of writing
/// them again.
pub fn write_files_staged(
    out_dir: &Path,
    files: &[OutputFile],
    staging: Option<&Staged>,
) -> Result<WriteReport, FileError> {
    std::fs::create_dir_all(out_dir).map_err(|e| io_error(out_dir, "cannot create the output directory", &e))?;
    // Every run cleans up after killed ones, also when it has nothing to write itself.
    remove_stale_temps(out_dir);
    let mut plan = Vec::with_capacity(files.len());
    for file in files {
        let target = target_path(out_dir, &file.name)?;
        let current = existing_generated(&target)?;
        plan.push((target, file, current.as_deref() == Some(file.contents.as_str())));
    }
    // Every new file goes to a temporary file first; only when all are on disk are they
    // renamed into place, so a failure (disk full) leaves every target as it was.
    let mut report = WriteReport::default();
    let mut jobs: Vec<(&Path, &[u8])> = Vec::new();
    for (target, file, same) in &plan {
        if *same {
            report.unchanged.push(target.clone());
        } else {
            jobs.push((target.as_path(), file.contents.as_bytes()));
        }
    }
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut failure = None;
    // Up to four at a time: a large generation's writes mostly wait for `fsync`, and
    // those waits overlap.
    let results = map_in_parallel(&jobs, 4, |(target, bytes)| match staging.and_then(|s| s.take(target)) {
        Some(tmp) => Ok(tmp),
        None => write_temp(target, bytes),
    });
    for ((target, _), result) in jobs.iter().zip(results) {
        match result {
            Ok(tmp) => staged.push((tmp, target.to_path_buf())),
            Err(e) => {
                failure.get_or_insert_with(|| io_error(target, "cannot write the generated file", &e));
            }
        }
    }
    if let Some(e) = failure {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(e);
    }
    for (i, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            for (tmp, _) in &staged[i..] {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(io_error(target, "cannot move the generated file into place", &e));
        }
        report.written.push(target.clone());
    }
    Ok(report)
}

/// `f` of each item, in `items` order, on up to `threads` threads (each takes one
/// contiguous run of items); on the calling thread alone when one would do. A panic in
/// `f` is raised again here.
pub(crate) fn map_in_parallel<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if threads < 2 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|run| scope.spawn(move || run.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// `--check`: which of `files` are missing from `out_dir` or differ from it. Writes
/// nothing. A file without the generated header counts as differing.
pub fn check_files(out_dir: &Path, files: &[OutputFile]) -> Result<Vec<(PathBuf, Staleness)>, FileError> {
    let mut stale = Vec::new();
    for file in files {
        let target = target_path(out_dir, &file.name)?;
        match std::fs::metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                stale.push((target, Staleness::Missing));
                continue;
            }
            Err(e) => return Err(io_error(&target, "cannot read", &e)),
            Ok(_) => {}
        }
        // Regular files only, read no further than the expected contents: a FIFO there
        // blocked `gen --check` for ever, a link to `/dev/zero` filled memory.
        let expected = file.contents.as_bytes();
        match crate::files::read_regular_within(&target, expected.len())? {
            Some(bytes) if bytes == expected => {}
            _ => stale.push((target, Staleness::Differs)),
        }
    }
    Ok(stale)
}

/// `out_dir/name`, refusing names that are not plain file names.
fn target_path(out_dir: &Path, name: &str) -> Result<PathBuf, FileError> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0', ':'])
        && Path::new(name).components().count() == 1;
    if !plain {
        return Err(FileError {
            path: out_dir.join(name),
            line_col: None,
            code: "file-write",
            message: format!("refusing to write `{name}`: not a plain file name inside the output directory"),
        });
    }
    Ok(out_dir.join(name))
}

/// The current contents of `target` if it may be overwritten (`None` if it does not
/// exist); an error if it is a link, not a file, or not generated by wirelens.
fn existing_generated(target: &Path) -> Result<Option<String>, FileError> {
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(target, "cannot inspect", &e)),
    };
    let refuse = |why: &str| FileError {
        path: target.to_path_buf(),
        line_col: None,
        code: "file-write",
        message: format!("refusing to overwrite: {why}"),
    };
    if meta.file_type().is_symlink() {
        return Err(refuse("it is a symbolic link"));
    }
    if !meta.is_file() {
        return Err(refuse("it is not a regular file"));
    }
    let bytes = std::fs::read(target).map_err(|e| io_error(target, "cannot read", &e))?;
    match String::from_utf8(bytes) {
        Ok(text) if is_generated(&text) => Ok(Some(text)),
        _ => Err(refuse(&format!(
            "it was not generated by wirelens (its first line is not `{}`)",
            emit::GENERATED_HEADER
        ))),
    }
}

fn io_error(path: &Path, what: &str, e: &std::io::Error) -> FileError {
    FileError::io(path, what, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, contents: &str) -> OutputFile {
        OutputFile {
            name: name.into(),
            contents: contents.into(),
        }
    }

    fn generated(body: &str) -> String {
        format!("{}\n{body}", emit::GENERATED_HEADER)
    }

    /// A fresh directory, removed (with everything in it) when the returned guard drops.
    fn tempdir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("wirelens-gen-{tag}-"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn refuses_names_that_leave_the_directory() {
        let tmp = tempdir("names");
        let d = tmp.path().to_path_buf();
        for bad in ["../x.rs", "a/b.rs", "..", ".hidden", "", "c:x", "/etc/passwd"] {
            let e = write_files(&d, &[file(bad, &generated("x"))]).unwrap_err();
            assert!(e.message.contains("not a plain file name"), "{bad}: {e}");
        }
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
    }

    #[test]
    fn never_overwrites_a_hand_written_file_and_writes_nothing_then() {
        let tmp = tempdir("handwritten");
        let d = tmp.path().to_path_buf();
        std::fs::write(d.join("b.rs"), "fn mine() {}\n").unwrap();
        let e = write_files(&d, &[file("a.rs", &generated("a")), file("b.rs", &generated("b"))]).unwrap_err();
        assert!(e.message.contains("not generated by wirelens"), "{e}");
        assert!(!d.join("a.rs").exists(), "a file was written before the refusal");
        assert_eq!(std::fs::read_to_string(d.join("b.rs")).unwrap(), "fn mine() {}\n");
    }

    #[cfg(unix)]
    #[test]
    fn never_writes_through_a_symlink() {
        let tmp = tempdir("symlink");
        let d = tmp.path().to_path_buf();
        let outside_dir = tempdir("symlink-outside");
        let outside = outside_dir.path().join("victim.rs");
        std::fs::write(&outside, generated("victim")).unwrap();
        std::os::unix::fs::symlink(&outside, d.join("a.rs")).unwrap();
        let e = write_files(&d, &[file("a.rs", &generated("new"))]).unwrap_err();
        assert!(e.message.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), generated("victim"));
    }

    #[test]
    fn rewrites_generated_files_and_leaves_identical_ones_alone() {
        let tmp = tempdir("rewrite");
        let d = tmp.path().to_path_buf();
        let first = write_files(&d, &[file("a.rs", &generated("1")), file("b.rs", &generated("1"))]).unwrap();
        assert_eq!(first.written.len(), 2);
        let second = write_files(&d, &[file("a.rs", &generated("2")), file("b.rs", &generated("1"))]).unwrap();
        assert_eq!(second.written, vec![d.join("a.rs")]);
        assert_eq!(second.unchanged, vec![d.join("b.rs")]);
        assert_eq!(std::fs::read_to_string(d.join("a.rs")).unwrap(), generated("2"));
        let leftovers: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temp files left behind: {leftovers:?}");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn temp_files_of_killed_runs_are_removed() {
        let tmp = tempdir("stale");
        let d = tmp.path().to_path_buf();
        write_files(&d, &[file("a.rs", &generated("a"))]).unwrap();
        // 4,194,304 is Linux's largest pid_max: no process can have a pid above it.
        // The killed run was writing other files than this run does, and this run
        // writes nothing at all (a.rs is unchanged): its leftovers still go.
        let stale = [
            d.join(".a.rs.wirelens-4194305.tmp"),
            d.join(".other.h.wirelens-4194305-7.tmp"),
        ];
        let running = d.join(".b.rs.wirelens-1-0.tmp"); // pid 1 always runs
        let mine = d.join(".notes.txt"); // a user's hidden file
        for f in stale.iter().chain([&running, &mine]) {
            std::fs::write(f, "half a file").unwrap();
        }
        let report = write_files(&d, &[file("a.rs", &generated("a"))]).unwrap();
        assert!(report.written.is_empty());
        for f in &stale {
            assert!(!f.exists(), "the killed run's temp file {} stays", f.display());
        }
        assert!(running.exists(), "a running writer's temp file was removed");
        assert!(mine.exists(), "a file that is not a wirelens temp file was removed");
    }

    #[test]
    fn a_failed_write_changes_no_target() {
        let tmp = tempdir("twophase");
        let d = tmp.path().to_path_buf();
        // b's name is legal, but its temporary file's name is too long to create.
        let b = format!("{}.rs", "b".repeat(240));
        std::fs::write(d.join("a.rs"), generated("old a")).unwrap();
        std::fs::write(d.join(&b), generated("old b")).unwrap();
        let e = write_files(&d, &[file("a.rs", &generated("new a")), file(&b, &generated("new b"))]).unwrap_err();
        assert!(e.message.contains("cannot write"), "{e}");
        assert_eq!(std::fs::read_to_string(d.join("a.rs")).unwrap(), generated("old a"));
        assert_eq!(std::fs::read_to_string(d.join(&b)).unwrap(), generated("old b"));
        let stray: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(stray.is_empty(), "temp files left behind: {stray:?}");
    }

    #[test]
    fn check_reports_missing_and_differing_files() {
        let tmp = tempdir("check");
        let d = tmp.path().to_path_buf();
        write_files(&d, &[file("a.rs", &generated("1"))]).unwrap();
        let stale = check_files(&d, &[file("a.rs", &generated("2")), file("b.rs", &generated("1"))]).unwrap();
        assert_eq!(
            stale,
            vec![
                (d.join("a.rs"), Staleness::Differs),
                (d.join("b.rs"), Staleness::Missing)
            ]
        );
        assert!(check_files(&d, &[file("a.rs", &generated("1"))]).unwrap().is_empty());
        assert!(!d.join("b.rs").exists());
    }
}
