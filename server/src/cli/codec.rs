//! `wirelens encode` / `wirelens decode`: JSON ↔ wire bytes through the reference codec.
//! Input is read completely and checked completely before anything is written; on any
//! error stdout stays empty. `decode --all` (and `--annotate`) checks every record
//! first, then decodes and prints them again one at a time, so memory does not grow
//! with the number of records.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wirelens_core::codec::{Codec, Mode};
use wirelens_core::FieldOrder;

use super::load_checked;

pub struct Args {
    pub schema: PathBuf,
    pub root: String,
    pub mode: Mode,
    pub order: Option<FieldOrder>,
    pub all: bool,
    pub input: Option<PathBuf>,
}

/// Maximum input read (bytes or JSON text): generous, but a typo'd path to a disk image
/// should not exhaust memory.
const MAX_INPUT: u64 = 1 << 30;

fn read_input(input: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let result = match input {
        Some(p) => std::fs::File::open(p).and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut buf)),
        None => std::io::stdin().lock().take(MAX_INPUT + 1).read_to_end(&mut buf),
    };
    let name = input.map_or("<stdin>".to_string(), |p| p.display().to_string());
    result.map_err(|e| format!("{name}: {e}"))?;
    if buf.len() as u64 > MAX_INPUT {
        return Err(format!("{name}: input larger than {MAX_INPUT} bytes"));
    }
    Ok(buf)
}

fn write_stdout(bytes: impl AsRef<[u8]>) -> Result<ExitCode, String> {
    crate::write_stdout(bytes.as_ref())?;
    Ok(ExitCode::SUCCESS)
}

pub fn encode(args: &Args) -> Result<ExitCode, String> {
    let loaded = load_checked(&args.schema, args.order)?;
    let codec = Codec::new(&loaded.analysis.schema, &loaded.analysis.layout);
    let root = codec.root(&args.root)?;
    let text = read_input(args.input.as_deref())?;
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| format!("input JSON: {e}"))?;
    let mut out = Vec::new();
    if args.all {
        let serde_json::Value::Array(records) = &value else {
            return Err("input JSON: --all expects an array of records".into());
        };
        for (i, record) in records.iter().enumerate() {
            codec
                .encode_into(root, record, args.mode, &mut out)
                .map_err(|e| format!("record {i}: {e}"))?;
        }
    } else {
        codec
            .encode_into(root, &value, args.mode, &mut out)
            .map_err(|e| e.to_string())?;
    }
    write_stdout(&out)
}

pub fn decode(args: &Args, annotate: bool) -> Result<ExitCode, String> {
    let loaded = load_checked(&args.schema, args.order)?;
    let codec = Codec::new(&loaded.analysis.schema, &loaded.analysis.layout);
    let root = codec.root(&args.root)?;
    let bytes = read_input(args.input.as_deref())?;
    if annotate {
        return decode_annotated(&codec, root, &bytes, args.mode, args.all);
    }
    if args.all {
        return decode_all(&codec, root, &bytes, args.mode);
    }
    let value = codec.decode(root, &bytes, args.mode).map_err(|e| e.to_string())?;
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    text.push('\n');
    write_stdout(&text)
}

/// `--annotate`: the dump on stdout, or on malformed input the dump up to the problem
/// on stderr and the error. Streamed like `--all`: a first pass finds the error (if
/// any), a second prints, each holding one record's notes at a time.
fn decode_annotated(
    codec: &Codec,
    root: wirelens_core::model::TypeId,
    bytes: &[u8],
    mode: Mode,
    all: bool,
) -> Result<ExitCode, String> {
    let error = codec.annotate_error(root, bytes, mode, all);
    let mut out = String::new();
    let to_stderr = error.is_some();
    let flush = |out: &mut String, last: bool| -> Result<(), String> {
        if out.len() >= 1 << 16 || (last && !out.is_empty()) {
            if to_stderr {
                use std::io::Write as _;
                // Best effort, like `eprint!` (which panics instead on a closed stderr).
                let _ = std::io::stderr().lock().write_all(out.as_bytes());
            } else {
                crate::write_stdout(out.as_bytes())?;
            }
            out.clear();
        }
        Ok(())
    };
    codec.annotate_each(root, bytes, mode, all, |piece| {
        out.push_str(piece);
        flush(&mut out, false)
    })?;
    flush(&mut out, true)?;
    match error {
        None => Ok(ExitCode::SUCCESS),
        Some(e) => Err(format!("at offset {}: {e}", e.offset)),
    }
}

/// `--all`: the same text as pretty-printing the whole array, produced record by record.
fn decode_all(codec: &Codec, root: wirelens_core::model::TypeId, bytes: &[u8], mode: Mode) -> Result<ExitCode, String> {
    // First pass: any malformed record fails before anything is written.
    let mut records = 0usize;
    codec
        .decode_each(root, bytes, mode, |_| {
            records += 1;
            Ok::<(), wirelens_core::codec::CodecError>(())
        })
        .map_err(|e| e.to_string())?;
    if records == 0 {
        return write_stdout("[]\n");
    }
    let mut out = String::from("[\n");
    let mut first = true;
    codec
        .decode_each(root, bytes, mode, |value| {
            if !first {
                out.push_str(",\n");
            }
            first = false;
            let text = serde_json::to_string_pretty(&value)?;
            // Strings are escaped JSON, so every line break is the printer's own.
            out.push_str("  ");
            out.push_str(&text.replace('\n', "\n  "));
            if out.len() >= 1 << 16 {
                crate::write_stdout(out.as_bytes())?;
                out.clear();
            }
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string())?;
    out.push_str("\n]\n");
    write_stdout(&out)
}
