//! Reading and writing files safely; every reader and writer of wirelens goes through
//! here (see SECURITY.md).
//!
//! - Reads take regular files only (never a FIFO, device or socket, which could block or
//!   never end) and enforce their size limit while reading, not from metadata.
//! - Generated files are written to a temporary file beside the target and renamed over
//!   it ([`write_temp`]); temporary files of a killed wirelens in that folder are removed
//!   by the next writer there ([`remove_stale_temps`]).
//! - A user's own file ([`replace_user_file`], used by `fmt`) is written through a
//!   symbolic link to the real file, keeps its permissions and owner, and is refused if
//!   it is read-only, not a regular file, or has several hard links (replacing it would
//!   split them).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use wirelens_core::source::{SourceFile, MAX_SOURCE_BYTES};
use wirelens_core::FileError;

/// Reads a schema file: a regular file (never a FIFO or device) of at most
/// [`MAX_SOURCE_BYTES`], counted while reading, in UTF-8 (else the position of the
/// first bad byte).
pub fn read_source(path: &Path) -> Result<SourceFile, FileError> {
    let bytes = read_regular(path, MAX_SOURCE_BYTES)?;
    SourceFile::from_bytes(path, bytes)
}

/// Reads `path`, a regular file (after following links) of at most `limit` bytes.
pub fn read_regular(path: &Path, limit: usize) -> Result<Vec<u8>, FileError> {
    read_regular_within(path, limit)?.ok_or_else(|| {
        FileError::new(
            path,
            "file-read",
            format!("file is larger than the limit of {limit} bytes"),
        )
    })
}

/// [`read_regular`], except that a file larger than `limit` is `Ok(None)`, read no
/// further than that: a caller comparing the file with `limit` expected bytes knows
/// enough (`gen --check`).
pub fn read_regular_within(path: &Path, limit: usize) -> Result<Option<Vec<u8>>, FileError> {
    let fail = |message: String| FileError::new(path, "file-read", message);
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if meta.is_dir() {
        return Err(fail("is a directory".into()));
    }
    if !meta.is_file() {
        return Err(fail(
            "not a regular file (a device, FIFO or socket); refusing to read it".into(),
        ));
    }
    // A fast answer where the size is known; the real bound is counted while reading.
    if meta.len() > limit as u64 {
        return Ok(None);
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Should the file be swapped for a FIFO after the check, opening must not block.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| fail(e.to_string()))?;
    if !file.metadata().map_err(|e| fail(e.to_string()))?.is_file() {
        return Err(fail("not a regular file; refusing to read it".into()));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() > limit {
        return Ok(None);
    }
    Ok(Some(bytes))
}

/// Writes `bytes` to a new temporary file beside `path` (created exclusively, so never
/// through a planted link), with `path`'s permissions if it exists, synced to disk.
/// Rename it over `path` to publish it. Named `.NAME.wirelens-PID-N.tmp`, so
/// [`remove_stale_temps`] can tell whose it is.
pub fn write_temp(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write as _;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.wirelens-{}-{n}.tmp", std::process::id()));
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
    remove_stale_temps(parent_dir(path));
    let tmp = write_temp(path, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Rewrites a user's file in place of the old one (see the module docs): returns the
/// file actually written (the target of a symbolic link).
pub fn replace_user_file(path: &Path, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let refuse = |why: String| FileError::new(path, "file-write", format!("not written: {why}"));
    let target = std::fs::canonicalize(path).map_err(|e| refuse(e.to_string()))?;
    let meta = std::fs::metadata(&target).map_err(|e| refuse(e.to_string()))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.permissions().readonly() {
        return Err(refuse("the file is read-only".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if meta.nlink() > 1 {
            return Err(refuse(format!(
                "the file has {} hard links and replacing it would split them; format a copy instead",
                meta.nlink()
            )));
        }
    }
    remove_stale_temps(parent_dir(&target));
    let tmp = write_temp(&target, bytes).map_err(|e| refuse(e.to_string()))?;
    let publish = || -> Result<(), String> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            let mine = std::fs::metadata(&tmp).map_err(|e| e.to_string())?;
            if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
                std::os::unix::fs::chown(&tmp, Some(meta.uid()), Some(meta.gid()))
                    .map_err(|e| format!("cannot keep the file's owner and group: {e}"))?;
            }
        }
        std::fs::rename(&tmp, &target).map_err(|e| e.to_string())
    };
    publish().map_err(|why| {
        let _ = std::fs::remove_file(&tmp);
        refuse(why)
    })?;
    Ok(target)
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Removes the temporary files a killed wirelens left in `dir` (whatever file they were
/// for): `.NAME.wirelens-PID[-N].tmp` whose process no longer runs. Where liveness
/// cannot be told (not Linux, or no `/proc`), nothing is removed: a running writer's file
/// must never go. Only on Linux do `/proc`'s numbers mean the PIDs `std::process::id`
/// writes: under Wine `/proc` is the host's (its Z: drive is `/`) while the PIDs are
/// Windows', and every temp file of the running process looked stale.
pub fn remove_stale_temps(dir: &Path) {
    let proc = Path::new("/proc");
    if !cfg!(target_os = "linux") || !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .filter(|f| f.starts_with('.'))
            .and_then(|f| f.strip_suffix(".tmp"))
            .and_then(|f| f.rsplit_once(".wirelens-"))
            .and_then(|(_, tag)| tag.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
