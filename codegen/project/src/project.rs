//! The project service: everything that depends on where a schema lives. The CLI, the
//! `build.rs` `wirelens_build::Builder` and the language server all ask it, so a
//! schema gets the same settings, the same files and the same bytes whoever asks and
//! whether or not it is open in an editor:
//!
//! - [`Project::settings`]: the effective settings of one schema, by one precedence,
//!   highest first: command-line flag (or command argument) > the file's own
//!   `//wirelens:order` directive > a client setting the user explicitly set >
//!   `wirelens.toml` > default. (The directive only exists for the ffire order.)
//! - [`find_schemas`] / [`workspace_schemas`]: schema files under folders, with
//!   symbolic-link loop detection and a bound on the walk.
//! - [`Project::prepare`] + [`write_prepared`]: generation — check, emit in memory, merge
//!   the outputs of every schema per output folder (refusing collisions), then write
//!   safely, one writer per output folder at a time.
//!
//! Plain synchronous Rust with no editor types: the server calls it off its state lock.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::Config;
use crate::generate::{
    file_name, generate_files_in, lock, map_in_parallel, merge_outputs, schema_errors, write_files_staged, Staged,
    WriteReport,
};
pub use wirelens_core::FileError;
use wirelens_core::{analyze, Analysis, Dialect, FieldOrder, OrderChoice, SourceFile};
use wirelens_generators::cpp::CppOptions;
use wirelens_generators::rust::RustOptions;
use wirelens_generators::{EmitError, Lang, OutputFile};
use wirelens_generators::{Memory, OwnedStrings};

/// The [`FileError::code`] of a generation stopped by [`Project::prepare_cancellable`].
pub const CANCELLED: &str = "cancelled";

/// Settings from an editor. `None` means the user did not set the value, so it never
/// hides `wirelens.toml` (editors must send only what the user set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientSettings {
    pub order: Option<FieldOrder>,
    pub languages: Option<Vec<Lang>>,
    /// Relative to the schema's workspace folder.
    pub out_dir: Option<String>,
    pub on_save: Option<bool>,
    /// `compat.against`: the wire baseline (`HEAD`, a ref, `file:PATH` relative to the
    /// workspace folder).
    pub against: Option<String>,
}

/// Command-line flags, `Builder` options or the arguments of one editor command: they
/// beat everything else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flags {
    pub order: Option<FieldOrder>,
    pub languages: Option<Vec<Lang>>,
    /// Relative to the working directory (CLI) or to the workspace folder (editor).
    pub out_dir: Option<PathBuf>,
}

/// The effective settings of one schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// What the analysis gets; the file's directive is applied inside it.
    pub order: OrderChoice,
    pub languages: Vec<Lang>,
    pub out_dir: PathBuf,
    pub on_save: bool,
    /// The Rust generator's options (`[generate.rust]`, or [`Project::with_rust_strings`]).
    pub rust: RustOptions,
    /// The C++ generator's options (`[generate.cpp]`, or [`Project::with_cpp_strings`]).
    pub cpp: CppOptions,
}

/// The default output folder, beside the schema.
pub const DEFAULT_OUT_DIR: &str = "generated";

/// The layers below the flags and the directive: client over `wirelens.toml` over default.
pub fn order_choice(flag: Option<FieldOrder>, client: Option<FieldOrder>, toml: Option<FieldOrder>) -> OrderChoice {
    match flag {
        Some(o) => OrderChoice {
            order: Some(o),
            overrides_directive: true,
        },
        None => OrderChoice {
            order: client.or(toml),
            overrides_directive: false,
        },
    }
}

/// Where schemas are and who asks: the CLI and `build.rs` ([`Project::local`]) trust
/// their own paths; an editor ([`Project::workspace`]) may only generate for files
/// inside its workspace folders, into folders inside them.
#[derive(Debug, Default)]
pub struct Project {
    roots: Vec<PathBuf>,
    confined: bool,
    client: ClientSettings,
    /// The nearest `wirelens.toml` per schema folder (`None`: there is none).
    configs: Mutex<HashMap<PathBuf, Option<(PathBuf, Config)>>>,
    /// Emit a schema's languages on their own threads. A command-line run or a build
    /// script waits for the result; an editor generates in the background and leaves the
    /// other core to the analysis of the next keystroke.
    parallel_languages: bool,
    /// Write each language's files to temporary files as soon as they are emitted
    /// ([`Staged`]); for a caller that writes what it prepares (not `gen --check`).
    staging: bool,
    /// `Builder::rust_strings`: beats `[generate.rust] strings`.
    rust_strings: Option<OwnedStrings>,
    /// `Builder::cpp_strings`: beats `[generate.cpp] strings`.
    cpp_strings: Option<OwnedStrings>,
    /// `Builder::rust_memory`: beats `[generate.rust] memory`.
    rust_memory: Option<Memory>,
    /// `Builder::cpp_memory`: beats `[generate.cpp] memory`.
    cpp_memory: Option<Memory>,
}

impl Project {
    /// For the CLI and `build.rs`: no client settings, output anywhere the caller says.
    pub fn local() -> Project {
        Project {
            parallel_languages: true,
            ..Project::default()
        }
    }

    /// For an editor: generation only inside `roots`.
    pub fn workspace(roots: Vec<PathBuf>, client: ClientSettings) -> Project {
        Project {
            roots,
            confined: true,
            client,
            configs: Mutex::default(),
            parallel_languages: false,
            staging: false,
            rust_strings: None,
            cpp_strings: None,
            rust_memory: None,
            cpp_memory: None,
        }
    }

    /// Stage generated files while the other languages are emitted (see [`Staged`]):
    /// for a command-line run or a build script that writes what it prepares.
    #[must_use]
    pub fn with_staging(mut self, on: bool) -> Project {
        self.staging = on;
        self
    }

    /// The owned string type of generated Rust, over `wirelens.toml`'s (`None`: keep it).
    #[must_use]
    pub fn with_rust_strings(mut self, strings: Option<OwnedStrings>) -> Project {
        self.rust_strings = strings;
        self
    }

    /// Where generated Rust views keep their arrays, over `wirelens.toml`'s (`None`:
    /// keep it).
    #[must_use]
    pub fn with_rust_memory(mut self, memory: Option<Memory>) -> Project {
        self.rust_memory = memory;
        self
    }

    /// Where generated C++ decoders keep arrays (and strings), over `wirelens.toml`'s
    /// (`None`: keep it).
    #[must_use]
    pub fn with_cpp_memory(mut self, memory: Option<Memory>) -> Project {
        self.cpp_memory = memory;
        self
    }

    /// The owned string type of generated C++, over `wirelens.toml`'s (`None`: keep it).
    #[must_use]
    pub fn with_cpp_strings(mut self, strings: Option<OwnedStrings>) -> Project {
        self.cpp_strings = strings;
        self
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    pub fn client(&self) -> &ClientSettings {
        &self.client
    }

    /// Forgets cached `wirelens.toml` files (one changed on disk).
    pub fn forget_configs(&self) {
        lock(&self.configs).clear();
    }

    /// The nearest `wirelens.toml` of `schema` and its contents (cached per folder).
    fn config(&self, schema: &Path) -> Result<Option<(PathBuf, Config)>, FileError> {
        let dir = schema_dir(schema);
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        if let Some(hit) = lock(&self.configs).get(&dir) {
            return Ok(hit.clone());
        }
        let found = match Config::find(&dir) {
            Some(path) => Some((path.clone(), Config::load(&path)?)),
            None => None,
        };
        lock(&self.configs).insert(dir, found.clone());
        Ok(found)
    }

    /// The ffire order choice of `schema` (cheap after the first call per folder: the
    /// editor asks on every keystroke). A broken `wirelens.toml` counts as absent here;
    /// [`Project::settings`] reports it.
    pub fn order_for(&self, schema: &Path, flag: Option<FieldOrder>) -> OrderChoice {
        let toml = self.config(schema).ok().flatten().and_then(|(_, c)| c.ffi.order);
        order_choice(flag, self.client.order, toml)
    }

    /// The effective settings of `schema` (see the module docs for the precedence).
    pub fn settings(&self, schema: &Path, flags: &Flags) -> Result<Settings, FileError> {
        let root = self.root_of(schema);
        if self.confined && root.is_none() {
            return Err(FileError::new(
                schema,
                "not-in-workspace",
                "not inside a workspace folder; open the folder that contains it to generate code",
            ));
        }
        let config = self.config(schema)?;
        let (toml_dir, toml) = match &config {
            Some((path, c)) => (path.parent().map(Path::to_path_buf), Some(c)),
            None => (None, None),
        };
        let toml_order = toml.and_then(|c| c.ffi.order);
        let toml_langs = toml.and_then(|c| c.generate.languages.as_ref()).and_then(|names| {
            let mut l: Vec<Lang> = names.iter().filter_map(|n| Lang::parse(n)).collect();
            l.sort();
            l.dedup();
            (!l.is_empty()).then_some(l)
        });
        let languages = flags
            .languages
            .clone()
            .or_else(|| self.client.languages.clone())
            .or(toml_langs)
            .unwrap_or_else(|| Lang::ALL.to_vec());
        // Relative folders count from where they were set: the workspace folder for the
        // editor's, the working directory for a command line, the `wirelens.toml`'s own
        // folder for the file's.
        let client_base = root.clone().unwrap_or_else(|| schema_dir(schema));
        let out_dir = match (
            &flags.out_dir,
            &self.client.out_dir,
            toml.and_then(|c| c.generate.out_dir.as_ref()),
        ) {
            (Some(d), _, _) if self.confined => client_base.join(d),
            (Some(d), _, _) => d.clone(),
            (None, Some(d), _) => client_base.join(d),
            (None, None, Some(d)) => toml_dir.clone().unwrap_or_else(|| schema_dir(schema)).join(d),
            _ => schema_dir(schema).join(DEFAULT_OUT_DIR),
        };
        let out_dir = match (&root, self.confined) {
            (Some(root), true) => confine(&out_dir, root).map_err(|m| FileError::new(schema, "out-dir", m))?,
            _ => out_dir,
        };
        Ok(Settings {
            order: order_choice(flags.order, self.client.order, toml_order),
            languages,
            out_dir,
            on_save: self
                .client
                .on_save
                .or(toml.and_then(|c| c.generate.on_save))
                .unwrap_or(false),
            rust: RustOptions {
                strings: self
                    .rust_strings
                    .or(toml.and_then(|c| c.generate.rust.strings))
                    .unwrap_or_default(),
                memory: self
                    .rust_memory
                    .or(toml.and_then(|c| c.generate.rust.memory))
                    .unwrap_or_default(),
                ..RustOptions::default()
            },
            cpp: CppOptions {
                strings: self
                    .cpp_strings
                    .or(toml.and_then(|c| c.generate.cpp.strings))
                    .unwrap_or_default(),
                memory: self
                    .cpp_memory
                    .or(toml.and_then(|c| c.generate.cpp.memory))
                    .unwrap_or_default(),
            },
        })
    }

    /// What the wire changes of `schema` are measured against: a client setting the
    /// user set > `[compat] against` of `wirelens.toml` > `HEAD`. A `file:` path counts
    /// from where it was set (the workspace folder, the `wirelens.toml`'s folder). A
    /// broken `wirelens.toml` counts as absent here, as in [`Project::order_for`].
    pub fn against_for(&self, schema: &Path) -> crate::baseline::Against {
        use crate::baseline::Against;
        if let Some(spec) = &self.client.against {
            let base = self.root_of(schema).unwrap_or_else(|| schema_dir(schema));
            return Against::parse(spec, &base);
        }
        match self.config(schema).ok().flatten() {
            Some((path, c)) => match c.compat.against {
                Some(spec) => Against::parse(&spec, path.parent().unwrap_or(Path::new("."))),
                None => Against::default(),
            },
            None => Against::default(),
        }
    }

    /// Whether code may be generated for `schema` here: inside a workspace folder when the
    /// service is confined to them. Decided from the path alone (no disk access), so the
    /// language server can ask under its state lock.
    pub fn may_generate(&self, schema: &Path) -> bool {
        !self.confined || self.root_of(schema).is_some()
    }

    /// The innermost workspace folder containing `schema`.
    fn root_of(&self, schema: &Path) -> Option<PathBuf> {
        self.roots
            .iter()
            .filter(|r| schema.starts_with(r))
            .max_by_key(|r| r.components().count())
            .cloned()
    }

    /// Reads (or takes from `text`, the editor's unsaved contents) and analyses `schema`
    /// with its effective order.
    pub fn load(&self, schema: &Path, flags: &Flags, text: Option<&str>) -> Result<Loaded, FileError> {
        let dialect = dialect_of(schema)?;
        let source = match text {
            Some(t) => SourceFile::new(schema, t),
            None => crate::files::read_source(schema)?,
        };
        let order = match (flags.order, dialect) {
            (Some(_), _) | (None, Dialect::Ffi) => {
                let toml = self.config(schema)?.and_then(|(_, c)| c.ffi.order);
                order_choice(flags.order, self.client.order, toml)
            }
            (None, Dialect::Sdp) => OrderChoice::default(),
        };
        let analysis = analyze(dialect, &source.text, None, order);
        Ok(Loaded { source, analysis })
    }

    /// Checks and generates `schemas` in memory, grouped by output folder; the outputs
    /// of one folder are merged ([`merge_outputs`]: shared identical files, refused
    /// collisions). `texts` gives the editor's unsaved text of open schemas. Nothing is
    /// produced if any schema fails.
    pub fn prepare(
        &self,
        schemas: &[PathBuf],
        flags: &Flags,
        texts: &HashMap<PathBuf, String>,
    ) -> Result<Prepared, Vec<FileError>> {
        self.prepare_as(Ticket::now(), schemas, flags, texts)
    }

    /// [`Project::prepare`] for inputs taken at the time of `ticket` (an editor takes
    /// it with the unsaved texts, so that the newest texts win).
    pub fn prepare_as(
        &self,
        ticket: Ticket,
        schemas: &[PathBuf],
        flags: &Flags,
        texts: &HashMap<PathBuf, String>,
    ) -> Result<Prepared, Vec<FileError>> {
        self.prepare_cancellable(ticket, schemas, flags, texts, &|| false)
    }

    /// [`Project::prepare_as`] that asks `cancelled` before each schema and again after
    /// emitting its languages, and stops with one [`FileError`] of code [`CANCELLED`] when it says yes
    /// (an editor's request was cancelled). Nothing is written either way.
    pub fn prepare_cancellable(
        &self,
        ticket: Ticket,
        schemas: &[PathBuf],
        flags: &Flags,
        texts: &HashMap<PathBuf, String>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Prepared, Vec<FileError>> {
        let ticket = ticket.0;
        let mut errors = Vec::new();
        let mut per_dir: BTreeMap<PathBuf, Vec<(PathBuf, Vec<OutputFile>)>> = BTreeMap::new();
        let staged = self.staging.then(|| Arc::new(Staged::default()));
        let stop = || vec![FileError::new("", CANCELLED, "generation cancelled")];
        for path in schemas {
            if cancelled() {
                return Err(stop());
            }
            let result = (|| -> Result<_, Vec<FileError>> {
                let settings = self.settings(path, flags)?;
                let loaded = self.load(path, flags, texts.get(path).map(String::as_str))?;
                let errs = schema_errors(&loaded.source, &loaded.analysis);
                if !errs.is_empty() {
                    return Err(errs);
                }
                if cancelled() {
                    return Err(stop());
                }
                let files = emit_languages(
                    &loaded.analysis,
                    &file_name(path),
                    &settings.languages,
                    &settings.rust,
                    &settings.cpp,
                    self.parallel_languages,
                    staged.as_deref().map(|s| (s, settings.out_dir.as_path())),
                )
                .map_err(|e| vec![FileError::new(path, "generate", e.0)])?;
                if cancelled() {
                    return Err(stop());
                }
                Ok((settings.out_dir, files))
            })();
            match result {
                Ok((dir, files)) => per_dir.entry(dir).or_default().push((path.clone(), files)),
                Err(e) if e.iter().any(|e| e.code == CANCELLED) => return Err(e),
                Err(e) => errors.extend(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut dirs = Vec::new();
        for (out_dir, per_schema) in per_dir {
            let schemas = per_schema.iter().map(|(p, _)| p.clone()).collect();
            match merge_outputs(per_schema) {
                Ok(files) => dirs.push(PreparedDir {
                    out_dir,
                    schemas,
                    files,
                }),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(Prepared { ticket, dirs, staged })
        } else {
            Err(errors)
        }
    }
}

/// Every language's files for one schema, in `langs` order. With `parallel`, the
/// languages are emitted on their own threads: they only read the analysis, and for a
/// large schema emitting (tens of MB of text per language) is most of `gen`'s time.
/// With `stage`, each language's files are staged into its output folder as soon as
/// they are emitted.
fn emit_languages(
    analysis: &Analysis,
    source_name: &str,
    langs: &[Lang],
    rust: &RustOptions,
    cpp: &CppOptions,
    parallel: bool,
    stage: Option<(&Staged, &Path)>,
) -> Result<Vec<OutputFile>, EmitError> {
    let threads = if parallel { langs.len() } else { 1 };
    let per_lang = map_in_parallel(langs, threads, |lang| {
        let files = generate_files_in(analysis, source_name, std::slice::from_ref(lang), rust, cpp, parallel)?;
        if let Some((staged, out_dir)) = stage {
            staged.stage(out_dir, &files);
        }
        Ok(files)
    });
    let mut files = Vec::new();
    for result in per_lang {
        files.extend(result?);
    }
    Ok(files)
}

/// Generation in memory, ready to write.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// When it was prepared: a later preparation of the same schema wins.
    ticket: u64,
    pub dirs: Vec<PreparedDir>,
    /// Files already written to temporary files ([`Project::with_staging`]).
    staged: Option<Arc<Staged>>,
}

#[derive(Debug, Clone)]
pub struct PreparedDir {
    pub out_dir: PathBuf,
    /// The schemas whose outputs these are.
    pub schemas: Vec<PathBuf>,
    pub files: Vec<OutputFile>,
}

/// What [`write_prepared`] did in one output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub out_dir: PathBuf,
    pub report: WriteReport,
    /// A generation prepared later had already written these schemas' files, so this
    /// one wrote nothing (the newest request wins as a whole).
    pub superseded: bool,
}

static NEXT_TICKET: AtomicU64 = AtomicU64::new(1);

/// When a generation's inputs were taken; later tickets win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket(u64);

impl Ticket {
    /// Nanoseconds since the Unix epoch, made strictly increasing within the process:
    /// tickets of different processes (two `wirelens gen`, a `gen` and an editor)
    /// compare by when their inputs were taken.
    pub fn now() -> Ticket {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let mut current = NEXT_TICKET.load(Ordering::Relaxed);
        loop {
            let next = wall.max(current.saturating_add(1));
            match NEXT_TICKET.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Ticket(next),
                Err(seen) => current = seen,
            }
        }
    }
}

/// The lock file a generation holds in each of its output folders while it writes
/// there (`flock`, so it holds across processes: two `wirelens gen`, a `gen` and an
/// editor). It also records, per schema, the ticket of the last set written into that
/// folder (`TICKET<TAB>SCHEMA` lines), so an older set never replaces a newer one.
/// Not a generated file: `gen --check` does not look at it.
pub const LOCK_FILE: &str = ".wirelens.lock";

/// At most this much of a lock file is read (a file written by someone else or grown
/// huge is then taken as empty, never read without bound).
const LOCK_FILE_LIMIT: u64 = 16 << 20;

/// An output folder's [`LOCK_FILE`], held: the tickets it recorded.
struct FolderLock {
    file: std::fs::File,
    path: PathBuf,
    tickets: BTreeMap<PathBuf, u64>,
}

impl FolderLock {
    /// Opens (creating it) and locks `out_dir`'s lock file, waiting for any other
    /// writer; refuses a lock file that is a link or not a regular file. `None` in a
    /// folder where it cannot be created (read-only: a generation with nothing to change
    /// still succeeds there, as before; one with something to write fails as before).
    fn acquire(out_dir: &Path) -> Result<Option<FolderLock>, FileError> {
        use std::io::Read as _;
        let path = out_dir.join(LOCK_FILE);
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            FileError::new(
                &path,
                "file-io",
                format!("cannot use the output folder's lock file ({what}): {e}"),
            )
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Never through a link, never waiting on a FIFO.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o644);
            options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        // Windows: open a symbolic link or junction itself, not its target
        // (FILE_FLAG_OPEN_REPARSE_POINT); it is then refused below as not a regular file.
        // Windows has no FIFOs in the file system. The lock is LockFileEx (std's
        // `File::lock`), exclusive across processes as flock is.
        #[cfg(windows)]
        {
            use std::os::windows::fs::OpenOptionsExt as _;
            const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
            options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
        }
        let mut file = match options.open(&path) {
            Ok(f) => f,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(fail("open", &e)),
        };
        if !file.metadata().map_err(|e| fail("metadata", &e))?.is_file() {
            return Err(fail("open", &"not a regular file"));
        }
        match file.lock() {
            Ok(()) => {}
            // A file system without locks: the per-process lock still holds.
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {}
            Err(e) => return Err(fail("lock", &e)),
        }
        let mut text = String::new();
        let read = (&mut file).take(LOCK_FILE_LIMIT + 1).read_to_string(&mut text);
        let tickets = if read.is_ok() && (text.len() as u64) <= LOCK_FILE_LIMIT {
            text.lines()
                .filter_map(|l| {
                    let (t, schema) = l.split_once('\t')?;
                    Some((PathBuf::from(schema), t.parse().ok()?))
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        Ok(Some(FolderLock { file, path, tickets }))
    }

    /// Records `ticket` for `schemas` (best effort: a lock file that cannot be written
    /// only loses the ordering against other processes, never the files).
    fn record(&mut self, schemas: &[PathBuf], ticket: u64) {
        use std::io::{Seek as _, Write as _};
        for s in schemas {
            // Names with a line break cannot be recorded (and are not real schemas).
            if s.to_str().is_some_and(|n| !n.contains('\n')) {
                self.tickets.insert(s.clone(), ticket);
            }
        }
        let text: String = self
            .tickets
            .iter()
            .filter_map(|(s, t)| Some(format!("{t}\t{}\n", s.to_str()?)))
            .collect();
        let written = self
            .file
            .set_len(0)
            .and_then(|()| self.file.rewind())
            .and_then(|()| self.file.write_all(text.as_bytes()));
        if let Err(e) = written {
            eprintln!("wirelens: cannot record the generation in {}: {e}", self.path.display());
        }
    }
}

/// Per output folder (canonical path): the ticket of the last generation written for
/// each schema. Its lock is held for a whole write, so concurrent generations into one
/// folder (save-all with generation on save) take turns and each set lands complete.
type DirLock = Arc<Mutex<HashMap<PathBuf, u64>>>;

fn dir_lock(out_dir: &Path) -> DirLock {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, DirLock>>> = OnceLock::new();
    let key = std::fs::canonicalize(out_dir).unwrap_or_else(|_| out_dir.to_path_buf());
    let mut locks = lock(LOCKS.get_or_init(Mutex::default));
    locks.entry(key).or_default().clone()
}

/// Writes every folder of `prepared` ([`write_files`]), one writer per folder at a time,
/// also across processes: the lock files of all its folders ([`LOCK_FILE`]) are taken
/// first (in path order, so two writers never wait on each other) and held until the
/// whole set is written. A folder whose schemas were already written by a newer
/// preparation (of this process or another) is left alone.
pub fn write_prepared(prepared: &Prepared) -> Result<Vec<Written>, FileError> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for dir in &prepared.dirs {
        std::fs::create_dir_all(&dir.out_dir)
            .map_err(|e| FileError::io(&dir.out_dir, "cannot create the output directory", &e))?;
        folders.push(std::fs::canonicalize(&dir.out_dir).unwrap_or_else(|_| dir.out_dir.clone()));
    }
    let mut order: Vec<&PathBuf> = folders.iter().collect();
    order.sort();
    order.dedup();
    let mut held: HashMap<PathBuf, FolderLock> = HashMap::new();
    for folder in order {
        if let Some(l) = FolderLock::acquire(folder)? {
            held.insert(folder.clone(), l);
        }
    }
    let mut out = Vec::new();
    for (dir, folder) in prepared.dirs.iter().zip(&folders) {
        let dir_mutex = dir_lock(&dir.out_dir);
        let mut last = lock(&dir_mutex);
        let mut folder_lock = held.get_mut(folder);
        let newer = |t: Option<&u64>| t.is_some_and(|&t| t > prepared.ticket);
        if dir
            .schemas
            .iter()
            .any(|s| newer(last.get(s)) || newer(folder_lock.as_ref().and_then(|l| l.tickets.get(s))))
        {
            out.push(Written {
                out_dir: dir.out_dir.clone(),
                report: WriteReport::default(),
                superseded: true,
            });
            continue;
        }
        let report = write_files_staged(&dir.out_dir, &dir.files, prepared.staged.as_deref())?;
        for s in &dir.schemas {
            last.insert(s.clone(), prepared.ticket);
        }
        if let Some(l) = folder_lock.as_mut() {
            l.record(&dir.schemas, prepared.ticket);
        }
        out.push(Written {
            out_dir: dir.out_dir.clone(),
            report,
            superseded: false,
        });
    }
    Ok(out)
}

/// A schema file read and analysed with the settings that apply to it.
pub struct Loaded {
    pub source: SourceFile,
    pub analysis: Analysis,
}

pub fn dialect_of(path: &Path) -> Result<Dialect, FileError> {
    Dialect::from_path(path).ok_or_else(|| {
        FileError::new(
            path,
            "file-type",
            "not a schema file: expected a .sdp or .ffi extension",
        )
    })
}

/// [`Project::load`] for the command line: `order_flag` beats everything.
pub fn load(path: &Path, order_flag: Option<FieldOrder>) -> Result<Loaded, FileError> {
    let flags = Flags {
        order: order_flag,
        ..Flags::default()
    };
    Project::local().load(path, &flags, None)
}

fn schema_dir(schema: &Path) -> PathBuf {
    schema
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// At most this many schema files are taken from one walk of a folder tree, and folders
/// are entered at most this deep: a huge or adversarial tree ends the walk, never hangs it.
pub const MAX_WALK_FILES: usize = 100_000;
pub const MAX_WALK_DEPTH: usize = 64;

/// Schema files under `dir`, sorted: hidden folders, `target` and `node_modules` are
/// skipped; symbolic links are followed, but a link back to a folder being walked is
/// not (walkdir detects the loop). Stops after the first `max` files in path order
/// (`truncated`).
fn walk(dir: &Path, max: usize) -> Result<(Vec<PathBuf>, bool), FileError> {
    let mut found = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .max_depth(MAX_WALK_DEPTH)
        // In path order, so a walk cut at `max` keeps the first `max` files by path
        // (not whichever the directory listing gave first).
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || {
                let name = e.file_name().to_string_lossy();
                !(name.starts_with('.') || name == "target" || name == "node_modules")
            }
        });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            // A loop is not an error of the user's schemas: the folder was walked once.
            Err(e) if e.loop_ancestor().is_some() => continue,
            Err(e) if e.depth() == 0 => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                let message = e.io_error().map_or_else(|| e.to_string(), ToString::to_string);
                return Err(FileError::new(path, "file-read", message));
            }
            // Unreadable subfolders and dangling links are skipped, as `git` does.
            Err(_) => continue,
        };
        if entry.file_type().is_file() && Dialect::from_path(entry.path()).is_some() {
            if found.len() >= max {
                found.sort();
                return Ok((found, true));
            }
            found.push(entry.into_path());
        }
    }
    found.sort();
    Ok((found, false))
}

/// The schema files named by `paths` (the CLI): files as given, folders searched
/// recursively (see [`walk`]); an error if a folder holds more than [`MAX_WALK_FILES`].
pub fn find_schemas(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FileError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let (found, truncated) = walk(p, MAX_WALK_FILES)?;
            if truncated {
                return Err(FileError::new(
                    p,
                    "too-many-files",
                    format!("more than {MAX_WALK_FILES} schema files; name a narrower folder"),
                ));
            }
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// The schema files of an editor's workspace folders: the first `max` in path order,
/// and exactly what was left out beyond them (an editor must answer, not list a whole
/// disk, and must say what it did not take). Unreadable folders are skipped.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WorkspaceSchemas {
    /// The first `max` schema files, sorted by path.
    pub files: Vec<PathBuf>,
    /// How many schema files come after them (every one from [`first_left_out`] on, in
    /// path order); counted up to [`MAX_WALK_FILES`] per folder.
    ///
    /// [`first_left_out`]: WorkspaceSchemas::first_left_out
    pub left_out: usize,
    /// The first file left out, if any: every schema file sorting at or after it.
    pub first_left_out: Option<PathBuf>,
    /// A folder held more than [`MAX_WALK_FILES`] schema files: `left_out` is a lower bound.
    pub more: bool,
}

impl WorkspaceSchemas {
    /// Whether a schema file at `path` would have been left out.
    pub fn leaves_out(&self, path: &Path) -> bool {
        self.first_left_out.as_deref().is_some_and(|first| path >= first)
    }

    /// One line for the user naming what was left out; `None` when nothing was.
    pub fn left_out_message(&self, what: &str) -> Option<String> {
        let first = self.first_left_out.as_ref()?;
        Some(format!(
            "{what} cover the first {} schema files of the workspace (in path order); {}{} from {} on were left out",
            self.files.len(),
            if self.more { "at least " } else { "" },
            self.left_out,
            first.display()
        ))
    }
}

pub fn workspace_schemas(roots: &[PathBuf], max: usize) -> WorkspaceSchemas {
    let mut all = Vec::new();
    let mut more = false;
    for root in roots {
        // One more than `max`, so a folder over the bound still shows as left out.
        if let Ok((found, truncated)) = walk(root, MAX_WALK_FILES.max(max.saturating_add(1))) {
            all.extend(found);
            more |= truncated;
        }
    }
    all.sort();
    all.dedup();
    let rest = if all.len() > max {
        all.split_off(max)
    } else {
        Vec::new()
    };
    WorkspaceSchemas {
        files: all,
        left_out: rest.len(),
        first_left_out: rest.into_iter().next(),
        more,
    }
}

/// `dir` with `.`/`..` resolved lexically, if it stays inside `base` — also after
/// following symbolic links of the part that exists.
fn confine(dir: &Path, base: &Path) -> Result<PathBuf, String> {
    let normal = normalize(dir);
    let refuse = || {
        format!(
            "output directory {} is outside {}; generated code stays inside the workspace",
            normal.display(),
            base.display()
        )
    };
    let base_normal = normalize(base);
    if !normal.starts_with(&base_normal) {
        return Err(refuse());
    }
    // The longest existing ancestor, resolved, must still be inside the resolved base.
    let real_base = std::fs::canonicalize(&base_normal).unwrap_or_else(|_| base_normal.clone());
    // Only the part at or below the base can lead out of it (a base that does not exist
    // yet has nothing to resolve).
    let inside = normal.ancestors().take_while(|a| a.starts_with(&base_normal));
    if let Some(existing) = inside.into_iter().find(|a| a.exists()) {
        let real = std::fs::canonicalize(existing).map_err(|e| format!("{}: {e}", existing.display()))?;
        if !real.starts_with(&real_base) {
            return Err(refuse());
        }
    }
    Ok(normal)
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_emitted_in_parallel_equal_those_emitted_one_after_another() {
        let text = "struct Inner { s: str, v: []u16 }\nstruct Outer { a: Inner, l: []Inner, o: Option<Inner> }\n";
        let analysis = analyze(Dialect::Sdp, text, None, OrderChoice::default());
        let (rust, cpp) = (RustOptions::default(), CppOptions::default());
        let one_thread = emit_languages(&analysis, "m.sdp", &Lang::ALL, &rust, &cpp, false, None).expect("emits");
        let parallel = emit_languages(&analysis, "m.sdp", &Lang::ALL, &rust, &cpp, true, None).expect("emits");
        assert_eq!(parallel, one_thread);
        let names: Vec<&str> = parallel.iter().map(|f| f.name.as_str()).collect();
        for name in ["m.h", "m.c", "m.hpp", "m.rs"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
    }
}
