//! `wirelens`: the command-line interface and (later) the language server. A thin shell
//! over the `codegen` crate: it reads files, calls the core, and prints.

mod cli;
// The IDE layer is its own crate (no LSP types); `crate::ide` keeps its paths short.
use wirelens_ide as ide;
mod lsp;

// Schema analysis makes many small allocations; mimalloc halves the time glibc's
// allocator takes for them on large schemas (docs/benchmarks/history.md, "Earlier
// measurements: `wirelens check` on 5,000 structs").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "wirelens",
    version,
    about = "Schema tooling for SDP (.sdp) and ffire (.ffi) wire formats"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Canonical,
    Declaration,
}

impl From<OrderArg> for wirelens_core::FieldOrder {
    fn from(o: OrderArg) -> Self {
        match o {
            OrderArg::Canonical => wirelens_core::FieldOrder::Canonical,
            OrderArg::Declaration => wirelens_core::FieldOrder::Declaration,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Check schemas (files or folders) and report every problem.
    Check {
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<std::path::PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// ffire field order (overrides wirelens.toml and the file's directive).
        #[arg(long, value_enum)]
        order: Option<OrderArg>,
        /// Also report wire breaks against a baseline: a git ref (`HEAD`, `main`) or
        /// `file:PATH`; exit 1 on a break.
        #[arg(long, value_name = "REF")]
        against: Option<String>,
    },
    /// Compare the wire layouts of two versions of a schema; exit 1 on a break.
    Diff {
        /// The baseline version.
        old: std::path::PathBuf,
        /// The new version.
        new: std::path::PathBuf,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// ffire field order for both (overrides wirelens.toml and the files' directives).
        #[arg(long, value_enum)]
        order: Option<OrderArg>,
    },
    /// Show the wire layout of a schema: offsets, sizes, fixed blocks, wire order.
    Layout {
        file: std::path::PathBuf,
        /// Only this type.
        #[arg(long = "type", value_name = "T")]
        type_name: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// ffire field order (overrides wirelens.toml and the file's directive).
        #[arg(long, value_enum)]
        order: Option<OrderArg>,
    },
    /// Encode one JSON value (stdin) into wire bytes (stdout).
    Encode {
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// Decode wire bytes (stdin) into JSON (stdout), or into an annotated hex dump.
    Decode {
        #[command(flatten)]
        codec: CodecArgs,
        /// Print an annotated hex dump: every field with its offset, bytes and value.
        #[arg(long)]
        annotate: bool,
    },
    /// Run the language server on stdio.
    Lsp {
        /// Accepted and ignored: stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Generate C, C++ and Rust encoders/decoders for schemas (files or folders).
    Gen {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Comma-separated: c, cpp, rust.
        #[arg(long, value_name = "LANGS", default_value = "c,cpp,rust", value_parser = cli::gen::parse_langs)]
        lang: cli::gen::LangList,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// Write nothing; exit 1 if DIR is missing a file or a file is out of date.
        #[arg(long)]
        check: bool,
        /// ffire field order (overrides wirelens.toml and the file's directive).
        #[arg(long, value_enum)]
        order: Option<OrderArg>,
    },
    /// Format schemas in place (or only check that they are formatted).
    Fmt {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Change nothing; exit 1 if a file is not formatted.
        #[arg(long)]
        check: bool,
    },
}

#[derive(clap::Args)]
struct CodecArgs {
    /// The schema file (.sdp or .ffi).
    #[arg(long, value_name = "F")]
    schema: std::path::PathBuf,
    /// The type of the value.
    #[arg(long, value_name = "T")]
    root: String,
    /// SDP: `message` adds the 10-byte header (magic, version, type id, length).
    #[arg(long, value_enum, default_value = "byte")]
    mode: ModeArg,
    /// ffire field order (overrides wirelens.toml and the file's directive).
    #[arg(long, value_enum)]
    order: Option<OrderArg>,
    /// Back-to-back records: a JSON array on the JSON side.
    #[arg(long)]
    all: bool,
    /// Read this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    input: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    Byte,
    Message,
}

impl CodecArgs {
    fn into_args(self) -> cli::codec::Args {
        cli::codec::Args {
            schema: self.schema,
            root: self.root,
            mode: match self.mode {
                ModeArg::Byte => wirelens_core::codec::Mode::Byte,
                ModeArg::Message => wirelens_core::codec::Mode::Message,
            },
            order: self.order.map(Into::into),
            all: self.all,
            input: self.input,
        }
    }
}

/// Writes all of `bytes` to stdout. A closed stdout (`wirelens layout F | head -1`)
/// ends the process quietly with status 141, what a shell reports for a command killed
/// by SIGPIPE: the reader has what it wanted, so neither a panic nor an error message.
/// (Rust ignores SIGPIPE, so without this `print!` panics with status 101.)
pub fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(SIGPIPE_STATUS),
        Err(e) => Err(format!("<stdout>: {e}")),
    }
}

/// 128 + SIGPIPE.
const SIGPIPE_STATUS: i32 = 141;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            paths,
            format,
            order,
            against,
        } => {
            let cwd = std::path::Path::new(".");
            let against = against.map(|a| wirelens_project::baseline::Against::parse(&a, cwd));
            cli::check::run(&paths, format, order.map(Into::into), against.as_ref())
        }
        Command::Diff {
            old,
            new,
            format,
            order,
        } => cli::diff::run(&old, &new, format, order.map(Into::into)),
        Command::Layout {
            file,
            type_name,
            format,
            order,
        } => cli::layout::run(&file, type_name.as_deref(), format, order.map(Into::into)),
        Command::Gen {
            files,
            lang,
            out,
            check,
            order,
        } => cli::gen::run(&cli::gen::Args {
            paths: files,
            langs: lang.0,
            out,
            check,
            order: order.map(Into::into),
        }),
        Command::Fmt { files, check } => cli::fmt::run(&files, check),
        Command::Lsp { .. } => lsp::run().map(|()| ExitCode::SUCCESS),
        Command::Encode { codec } => cli::codec::encode(&codec.into_args()),
        Command::Decode { codec, annotate } => cli::codec::decode(&codec.into_args(), annotate),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
