//! `wirelens fmt` as a user runs it: on copies of every golden schema it is idempotent
//! and never changes what `layout` reports; a file with syntax errors is refused and
//! left untouched, and then no other file is written either.

use std::path::{Path, PathBuf};
use std::process::Command;

fn vectors() -> PathBuf {
    std::env::var_os("WIRELENS_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors"))
}

fn wirelens(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn layout_json(path: &Path, order: &str) -> String {
    let p = path.to_str().unwrap();
    let mut args = vec!["layout", "--format", "json", p];
    if !order.is_empty() {
        args.extend(["--order", order]);
    }
    let (code, out, err) = wirelens(&args);
    assert_eq!(code, 0, "{p}: {err}");
    out
}

#[test]
fn idempotent_and_layout_preserving_on_every_golden_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let mut count = 0;
    for dialect in ["sdp", "ffi"] {
        let dir = vectors().join(dialect).join("schemas");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let src = entry.unwrap().path();
            let dst = tmp.path().join(src.file_name().unwrap());
            std::fs::copy(&src, &dst).unwrap();
            let orders: &[&str] = if dialect == "ffi" {
                &["canonical", "declaration"]
            } else {
                &[""]
            };
            let before: Vec<String> = orders.iter().map(|o| layout_json(&dst, o)).collect();
            let original = std::fs::read_to_string(&dst).unwrap();

            let (code, _, err) = wirelens(&["fmt", dst.to_str().unwrap()]);
            assert_eq!(code, 0, "{}: {err}", dst.display());
            let once = std::fs::read_to_string(&dst).unwrap();
            let (code, out, _) = wirelens(&["fmt", "--check", dst.to_str().unwrap()]);
            assert_eq!(code, 0, "{}: not idempotent: {out}", dst.display());
            assert_eq!(std::fs::read_to_string(&dst).unwrap(), once);

            let comments = |t: &str| t.lines().filter(|l| l.trim_start().starts_with("//")).count();
            assert_eq!(comments(&original), comments(&once), "{}: comments lost", dst.display());
            let after: Vec<String> = orders.iter().map(|o| layout_json(&dst, o)).collect();
            assert_eq!(before, after, "{}: fmt changed the layout", dst.display());
            count += 1;
        }
    }
    assert!(count >= 20, "only {count} schemas");
}

#[test]
fn check_mode_reports_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let messy = tmp.path().join("messy.sdp");
    std::fs::write(&messy, "struct A{x:u32,y : []str}\n").unwrap();
    let (code, out, _) = wirelens(&["fmt", "--check", messy.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("would reformat"), "{out}");
    assert_eq!(std::fs::read_to_string(&messy).unwrap(), "struct A{x:u32,y : []str}\n");
    let (code, _, err) = wirelens(&["fmt", messy.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "struct A {\n    x: u32,\n    y: []str,\n}\n"
    );
}

#[test]
fn syntax_errors_refuse_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good.sdp");
    let bad = tmp.path().join("bad.ffi");
    std::fs::write(&good, "struct A{x:u32}\n").unwrap();
    std::fs::write(&bad, "package p\ntype A struct {\n\tX int32 `json:\"x\"`\n\tY [\n}\n").unwrap();
    let (code, _, err) = wirelens(&["fmt", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.ffi:4:"),
        "error must point at the file and line: {err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read_to_string(&good).unwrap(), "struct A{x:u32}\n");
}

/// `fmt` on a symbolic link formats the real file and keeps the link; a FIFO, a
/// read-only file and a hard-linked file are refused without blocking or writing.
#[cfg(unix)]
#[test]
fn fmt_writes_through_links_and_refuses_unsafe_files() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let messy = "struct   A {x:u8}\n";
    let real = root.join("real.sdp");
    std::fs::write(&real, messy).unwrap();
    std::os::unix::fs::symlink(&real, root.join("link.sdp")).unwrap();
    let (code, _, err) = wirelens(&["fmt", root.join("link.sdp").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(root.join("link.sdp"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_ne!(
        std::fs::read_to_string(&real).unwrap(),
        messy,
        "the real file was not formatted"
    );

    let refused = |path: &Path, why: &str| {
        let out = Command::new("timeout")
            .args(["60", env!("CARGO_BIN_EXE_wirelens"), "fmt"])
            .arg(path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
        assert!(err.contains(why), "{}: {err}", path.display());
    };
    let fifo = root.join("pipe.sdp");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    refused(&fifo, "not a regular file");
    let ro = root.join("ro.sdp");
    std::fs::write(&ro, messy).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    refused(&ro, "read-only");
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), messy);
    let linked = root.join("linked.sdp");
    std::fs::write(&linked, messy).unwrap();
    std::fs::hard_link(&linked, root.join("other.sdp")).unwrap();
    refused(&linked, "hard links");
    assert_eq!(std::fs::read_to_string(root.join("other.sdp")).unwrap(), messy);
}
