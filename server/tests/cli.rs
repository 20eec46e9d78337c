//! The CLI as tools and users drive it: field-order settings and their precedence,
//! encode/decode errors (exit 1, a message with path and offset, nothing on stdout),
//! back-to-back records, unreadable and non-UTF-8 schemas.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn vectors() -> PathBuf {
    std::env::var_os("WIRELENS_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors"))
}

struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn wirelens(args: &[&str], stdin: &[u8]) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The CLI may fail (and close stdin) before reading it all.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn order_of(dir: &Path, file: &str, extra: &[&str]) -> String {
    let path = dir.join(file);
    let mut args = vec!["layout", "--format", "json", path.to_str().unwrap()];
    args.extend(extra);
    let out = wirelens(&args, b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["order"].as_str().unwrap().to_string()
}

#[test]
fn ffi_order_default_toml_directive_flag_precedence() {
    let tmp = tempfile::tempdir().unwrap();
    let schema = "package p\ntype Msg struct {\n\tName string\n\tId int64\n}\n";
    std::fs::write(tmp.path().join("plain.ffi"), schema).unwrap();
    std::fs::write(
        tmp.path().join("directive.ffi"),
        format!("//wirelens:order canonical\n{schema}"),
    )
    .unwrap();
    assert_eq!(order_of(tmp.path(), "plain.ffi", &[]), "canonical", "default");

    std::fs::write(tmp.path().join("wirelens.toml"), "[ffi]\norder = \"declaration\"\n").unwrap();
    assert_eq!(
        order_of(tmp.path(), "plain.ffi", &[]),
        "declaration",
        "wirelens.toml applies"
    );
    assert_eq!(
        order_of(tmp.path(), "directive.ffi", &[]),
        "canonical",
        "the file's directive beats wirelens.toml"
    );
    assert_eq!(
        order_of(tmp.path(), "directive.ffi", &["--order", "declaration"]),
        "declaration",
        "the flag beats both"
    );

    // The order is visible in the fields' wire positions, not just the label.
    let out = wirelens(
        &[
            "layout",
            "--format",
            "json",
            tmp.path().join("plain.ffi").to_str().unwrap(),
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["types"][0]["fields"][0]["name"], "Name");

    std::fs::write(tmp.path().join("wirelens.toml"), "[ffi]\norder = \"sideways\"\n").unwrap();
    let out = wirelens(&["check", tmp.path().join("plain.ffi").to_str().unwrap()], b"");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("wirelens.toml:2:9"),
        "config errors point into the file: {}",
        out.stderr
    );
}

#[test]
fn decode_errors_exit_1_with_path_and_offset_and_no_stdout() {
    let v = vectors();
    let schema = v.join("sdp/schemas/audiounit.sdp");
    let bytes = std::fs::read(v.join("sdp/cases/audiounit_full.bin")).unwrap();
    let args = [
        "decode",
        "--schema",
        schema.to_str().unwrap(),
        "--root",
        "PluginRegistry",
    ];

    let ok = wirelens(&args, &bytes);
    assert_eq!(ok.code, 0, "{}", ok.stderr);

    let truncated = wirelens(&args, &bytes[..bytes.len() / 2]);
    assert_eq!(truncated.code, 1);
    assert!(truncated.stdout.is_empty(), "no partial output");
    assert!(
        truncated.stderr.contains("plugins["),
        "names the path: {}",
        truncated.stderr
    );
    assert!(
        truncated.stderr.contains("offset"),
        "names the offset: {}",
        truncated.stderr
    );

    let mut huge = bytes.clone();
    huge[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let out = wirelens(&args, &huge);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("array count 4294967295"), "{}", out.stderr);

    let annotated = wirelens(&[&args[..], &["--annotate"]].concat(), &bytes[..bytes.len() - 10]);
    assert_eq!(annotated.code, 1);
    assert!(annotated.stdout.is_empty());
    assert!(
        annotated.stderr.contains("display_name"),
        "the dump up to the error goes to stderr: {}",
        annotated.stderr
    );
}

#[test]
fn annotate_shows_paths_offsets_bytes_and_values() {
    let v = vectors();
    let schema = v.join("ffi/schemas/struct.ffi");
    let bytes = std::fs::read(v.join("ffi/cases/struct.canon.bin")).unwrap();
    let out = wirelens(
        &[
            "decode",
            "--annotate",
            "--schema",
            schema.to_str().unwrap(),
            "--root",
            "Config",
        ],
        &bytes,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = String::from_utf8(out.stdout).unwrap();
    // Canonical order: MaxRetries (int32) first, Host (string) last.
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {text}"))
            .to_string()
    };
    assert!(line("MaxRetries = 3").starts_with("00000000  03 00 00 00"), "{text}");
    assert!(
        line("Host = \"localhost\"").starts_with("0000000d  09 00 6c 6f"),
        "{text}"
    );
}

#[test]
fn encode_all_and_decode_all_round_trip_back_to_back_records() {
    let v = vectors();
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(v.join("sdp/cases/arrays_primitives_all.json")).unwrap())
            .unwrap();
    let schema = v.join("sdp/schemas/arrays.sdp");
    let args = [
        "--schema",
        schema.to_str().unwrap(),
        "--root",
        "ArraysOfPrimitives",
        "--all",
    ];
    let enc = wirelens(
        &[&["encode"][..], &args].concat(),
        case["values"].to_string().as_bytes(),
    );
    assert_eq!(enc.code, 0, "{}", enc.stderr);
    assert_eq!(
        enc.stdout,
        std::fs::read(v.join("sdp/cases/arrays_primitives_all.bin")).unwrap()
    );
    let dec = wirelens(&[&["decode"][..], &args].concat(), &enc.stdout);
    assert_eq!(dec.code, 0, "{}", dec.stderr);
    let back: serde_json::Value = serde_json::from_slice(&dec.stdout).unwrap();
    assert_eq!(back.as_array().unwrap().len(), case["values"].as_array().unwrap().len());
    // Without --all the second record is "trailing bytes".
    let single = wirelens(
        &[
            "decode",
            "--schema",
            schema.to_str().unwrap(),
            "--root",
            "ArraysOfPrimitives",
        ],
        &enc.stdout,
    );
    assert_eq!(single.code, 1);
    assert!(single.stderr.contains("trailing byte"), "{}", single.stderr);
}

#[test]
fn encode_errors_name_the_json_path() {
    let schema = vectors().join("ffi/schemas/struct.ffi");
    let out = wirelens(
        &["encode", "--schema", schema.to_str().unwrap(), "--root", "Config"],
        br#"{"host":"h","port":"8080","enableSSL":true,"timeout":1,"maxRetries":3}"#,
    );
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr
            .contains("port: expected an integer for `int32`, found a string"),
        "{}",
        out.stderr
    );
    let out = wirelens(
        &["encode", "--schema", schema.to_str().unwrap(), "--root", "Nope"],
        b"{}",
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no type `Nope`"), "{}", out.stderr);
}

#[test]
fn unreadable_and_non_utf8_schemas_are_errors_with_positions() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.sdp");
    std::fs::write(&bad, b"struct A {\n    n\xff: u8,\n}\n").unwrap();
    let out = wirelens(&["check", "--format", "json", bad.to_str().unwrap()], b"");
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["line"], 2);
    assert_eq!(v[0]["column"], 6);
    assert_eq!(v[0]["code"], "file-encoding");
    let out = wirelens(&["check", tmp.path().join("missing.sdp").to_str().unwrap()], b"");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("missing.sdp"), "{}", out.stderr);
    let out = wirelens(&["layout", tmp.path().join("x.txt").to_str().unwrap()], b"");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("expected a .sdp or .ffi extension"),
        "{}",
        out.stderr
    );
}

#[cfg(unix)]
#[test]
fn check_on_a_folder_with_a_symlink_loop_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("s/inner")).unwrap();
    std::fs::write(root.join("s/a.sdp"), "struct A { x: u8 }\n").unwrap();
    std::os::unix::fs::symlink(root, root.join("s/inner/up")).unwrap();
    // `timeout` ends a hang as a failure instead of a stuck test run.
    let out = Command::new("timeout")
        .args(["60", env!("CARGO_BIN_EXE_wirelens"), "check"])
        .arg(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("checked 1 file: no problems"), "{stderr}");
}
