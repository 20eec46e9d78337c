//! `wirelens`: the command-line interface and (later) the language server. A thin shell
//! over the `codegen` crate: it reads files, calls the core, and prints.

mod cli;

// Schema analysis makes many small allocations; mimalloc halves the time glibc's
// allocator takes for them on large schemas (BENCHMARKS.md).
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

impl From<OrderArg> for codegen::FieldOrder {
    fn from(o: OrderArg) -> Self {
        match o {
            OrderArg::Canonical => codegen::FieldOrder::Canonical,
            OrderArg::Declaration => codegen::FieldOrder::Declaration,
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
    /// Format schemas in place (or only check that they are formatted).
    Fmt {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Change nothing; exit 1 if a file is not formatted.
        #[arg(long)]
        check: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { paths, format, order } => cli::check::run(&paths, format, order.map(Into::into)),
        Command::Layout {
            file,
            type_name,
            format,
            order,
        } => cli::layout::run(&file, type_name.as_deref(), format, order.map(Into::into)),
        Command::Fmt { files, check } => cli::fmt::run(&files, check),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
