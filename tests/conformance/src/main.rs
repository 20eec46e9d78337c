//! The conformance harness: every case of a vectors directory (layout of
//! `shared/vectors/README.md`), encode value → exact bytes and decode bytes → the value,
//! through each engine. Engines share one interface, so the generated C, C++ and Rust
//! codecs plug in beside the CLI.

mod c_engine;
mod cpp_engine;
mod engines;
mod rust_engine;
mod toolchain;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use clap::Parser;
use serde_json::Value;
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};

#[derive(Parser)]
#[command(about = "Run every case of a vectors directory through wirelens engines, both directions")]
struct Args {
    /// A directory with `sdp/` and/or `ffi/`, each holding `schemas/` and `cases/`.
    #[arg(long)]
    vectors: PathBuf,
    /// Comma-separated engines: cli, c, cpp, cpp-compact (owned strings as
    /// `wirelens::CompactString`), cpp-arena and cpp-compact-arena (views in a
    /// `wirelens::Arena`), rust.
    #[arg(long, default_value = "cli", value_delimiter = ',')]
    lang: Vec<String>,
    /// The C compiler of the `c` engine, with any leading arguments, split at spaces
    /// (default: `$WIRELENS_CC`, else `gcc`).
    #[arg(long)]
    cc: Option<String>,
    /// The C++ compiler of the `cpp*` engines, with any leading arguments (default:
    /// `$WIRELENS_CXX`, else `$CXX`, else `g++`).
    #[arg(long)]
    cxx: Option<String>,
    /// Runs the programs the C and C++ engines build through this command, split at
    /// spaces: `wine`, `qemu-aarch64 -L /usr/aarch64-linux-gnu` (default:
    /// `$WIRELENS_RUNNER`, else the programs themselves).
    #[arg(long)]
    runner: Option<String>,
    /// Threads: the cases of different schemas run in parallel, those of one schema on
    /// one thread (an engine builds per schema). Default: the CPUs.
    #[arg(long)]
    jobs: Option<usize>,
}

/// One case file, resolved.
pub struct Case {
    pub name: String,
    pub dialect: Dialect,
    pub schema: PathBuf,
    pub root: String,
    pub mode: Mode,
    pub order: FieldOrder,
    /// `values` cases: several records back to back.
    pub all: bool,
    /// The value, or the array of records when `all`.
    pub value: Value,
    pub bytes: Vec<u8>,
}

/// What every engine does: encode a case's value, decode its bytes. Called from several
/// threads, but for the cases of one schema file always from the same one.
pub trait Engine: Sync {
    fn name(&self) -> &str;
    fn encode(&self, case: &Case) -> Result<Vec<u8>, String>;
    fn decode(&self, case: &Case) -> Result<Value, String>;
}

fn load_cases(vectors: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (dir, dialect) in [("sdp", Dialect::Sdp), ("ffi", Dialect::Ffi)] {
        let case_dir = vectors.join(dir).join("cases");
        let Ok(entries) = std::fs::read_dir(&case_dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for json_path in files {
            let fail = |m: String| format!("{}: {m}", json_path.display());
            let text = std::fs::read_to_string(&json_path).map_err(|e| fail(e.to_string()))?;
            let doc: Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
            let field = |k: &str| doc.get(k).and_then(Value::as_str).map(str::to_string);
            let schema = vectors
                .join(dir)
                .join("schemas")
                .join(field("schema").ok_or_else(|| fail("no `schema`".into()))?);
            let mode = match field("mode").as_deref() {
                None | Some("byte") => Mode::Byte,
                Some("message") => Mode::Message,
                Some(m) => return Err(fail(format!("unknown mode `{m}`"))),
            };
            let order = match field("order") {
                None => FieldOrder::Canonical,
                Some(o) => FieldOrder::parse(&o).ok_or_else(|| fail(format!("unknown order `{o}`")))?,
            };
            let (all, value) = match (doc.get("value"), doc.get("values")) {
                (Some(v), None) => (false, v.clone()),
                (None, Some(v)) if v.is_array() => (true, v.clone()),
                _ => return Err(fail("needs exactly one of `value` or `values` (an array)".into())),
            };
            let bin = json_path.with_extension("bin");
            let bytes = std::fs::read(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
            let name = format!(
                "{dir}/{}",
                json_path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            );
            cases.push(Case {
                name,
                dialect,
                schema,
                root: field("root").ok_or_else(|| fail("no `root`".into()))?,
                mode,
                order,
                all,
                value,
                bytes,
            });
        }
    }
    Ok(cases)
}

/// Compares a decoded value with the case's value at the wire types' precision.
fn same_value(case: &Case, decoded: &Value) -> Result<(), String> {
    let text = std::fs::read_to_string(&case.schema).map_err(|e| e.to_string())?;
    let analysis = analyze(
        case.dialect,
        &text,
        None,
        OrderChoice {
            order: Some(case.order),
            overrides_directive: true,
        },
    );
    let codec = Codec::new(&analysis.schema, &analysis.layout);
    let root = codec.root(&case.root)?;
    if case.all {
        let (Value::Array(want), Value::Array(got)) = (&case.value, decoded) else {
            return Err("expected an array of records".into());
        };
        if want.len() != got.len() {
            return Err(format!("{} records decoded, {} expected", got.len(), want.len()));
        }
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            codec.same_value(root, w, g).map_err(|e| format!("record {i}: {e}"))?;
        }
        Ok(())
    } else {
        codec.same_value(root, &case.value, decoded)
    }
}

fn first_difference(want: &[u8], got: &[u8]) -> String {
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let show = |b: &[u8]| {
        b.iter()
            .skip(at)
            .take(8)
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "{} bytes vs {} expected; first difference at offset {at}: [{}] vs [{}]",
        got.len(),
        want.len(),
        show(got),
        show(want)
    )
}

/// `m`'s guard, also after a thread panicked holding it.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One case through one engine: the encode result, then the decode result.
type Checked = [Result<(), String>; 2];

fn check(engine: &dyn Engine, case: &Case) -> Checked {
    let encoded = engine.encode(case).and_then(|b| {
        if b == case.bytes {
            Ok(())
        } else {
            Err(first_difference(&case.bytes, &b))
        }
    });
    let decoded = engine.decode(case).and_then(|v| same_value(case, &v));
    [encoded, decoded]
}

fn main() -> ExitCode {
    let args = Args::parse();
    let cases = match load_cases(&args.vectors) {
        Ok(c) if c.is_empty() => {
            eprintln!("error: no cases under {}", args.vectors.display());
            return ExitCode::from(2);
        }
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let tools = engines::Tools {
        cc: args.cc.or_else(|| env("WIRELENS_CC")).unwrap_or_else(|| "gcc".into()),
        cxx: args
            .cxx
            .or_else(|| env("WIRELENS_CXX"))
            .or_else(|| env("CXX"))
            .unwrap_or_else(|| "g++".into()),
        runner: toolchain::words(&args.runner.or_else(|| env("WIRELENS_RUNNER")).unwrap_or_default()),
    };
    let mut selected: Vec<Box<dyn Engine>> = Vec::new();
    for lang in &args.lang {
        match engines::by_name(lang, &tools) {
            Ok(engine) => selected.push(engine),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // The cases by schema file, in order of first appearance.
    let mut groups: Vec<(&Path, Vec<usize>)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        match groups.iter_mut().find(|(s, _)| *s == case.schema.as_path()) {
            Some((_, g)) => g.push(i),
            None => groups.push((&case.schema, vec![i])),
        }
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, groups.len());
    let (mut passed, mut failed) = (0usize, 0usize);
    for engine in &selected {
        let engine: &dyn Engine = engine.as_ref();
        let results: Vec<Mutex<Option<Checked>>> = cases.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| {
                    while let Some((_, group)) = groups.get(next.fetch_add(1, Ordering::Relaxed)) {
                        for &i in group {
                            *lock(&results[i]) = Some(check(engine, &cases[i]));
                        }
                    }
                });
            }
        });
        for (case, result) in cases.iter().zip(results) {
            let Some(result) = result.into_inner().unwrap_or_else(|p| p.into_inner()) else {
                continue;
            };
            for (direction, r) in ["encode", "decode"].into_iter().zip(result) {
                match r {
                    Ok(()) => passed += 1,
                    Err(e) => {
                        failed += 1;
                        println!("FAIL {} {} {direction}: {e}", engine.name(), case.name);
                    }
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
