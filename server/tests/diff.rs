//! `wirelens diff OLD NEW` and `wirelens check --against REF` through the real binary:
//! exit codes, the rustc-style report, the JSON document, and a baseline read from a
//! temporary git repository (new files and folders outside git have no baseline).

use std::path::Path;
use std::process::Command;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn wirelens(dir: &Path, args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SDP: &str = "\
/// A point.
struct Point {
    x: u32,
    y: u32,
}

struct Line {
    a: Point,
    b: Point,
}
";

#[test]
fn diff_human_reports_each_break_rustc_style() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("old.sdp"), SDP).unwrap();
    std::fs::write(d.join("new.sdp"), SDP.replace("    x: u32,\n", "")).unwrap();
    let out = wirelens(d, &["diff", "old.sdp", "new.sdp"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "\
error[wire-field-removed]: field `Point.x` was removed from wire #0: every later field moves
  ┌─ old.sdp:3:5
  │
3 │     x: u32,
  │     ^^^^^^ was here
  │
  = messages affected: Point, Line

1 wire break; messages affected: Point, Line
"
    );

    // Comments, docs and formatting: compatible, exit 0.
    let reformatted = SDP
        .replace("/// A point.", "/// A point on the plane.\n// (pixels)")
        .replace("    a: Point,\n    b: Point,\n", "  a :Point, b: Point\n");
    std::fs::write(d.join("new.sdp"), reformatted).unwrap();
    let out = wirelens(d, &["diff", "old.sdp", "new.sdp"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "wire-compatible (2 types)\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn diff_json_document() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let old = "package p\n\ntype Sample struct {\n\tId    int64\n\tCount int32\n\tFlags int32\n}\n\ntype Batch struct {\n\tItems []Sample\n}\n";
    std::fs::write(d.join("old.ffi"), old).unwrap();
    std::fs::write(d.join("new.ffi"), old.replace("Count", "Total")).unwrap();
    let out = wirelens(d, &["diff", "--format", "json", "old.ffi", "new.ffi"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["dialect"], "ffi");
    assert_eq!(v["order"], "canonical");
    assert_eq!(v["compatible"], false);
    let breaks = v["breaks"].as_array().unwrap();
    assert_eq!(breaks.len(), 2, "{breaks:#?}");
    assert_eq!(breaks[0]["code"], "wire-rename-moved");
    assert_eq!(breaks[0]["type"], "Sample");
    assert_eq!(breaks[0]["field"], "Total");
    assert_eq!(breaks[0]["affects"], serde_json::json!(["Batch"]));
    assert_eq!(
        breaks[0]["new"],
        serde_json::json!({"line": 5, "column": 2, "end_line": 5, "end_column": 13})
    );
    assert_eq!(breaks[0]["old"]["line"], 5);
    assert_eq!(breaks[1]["code"], "wire-field-reordered");
    assert_eq!(breaks[1]["field"], "Flags");

    let sample = v["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Sample")
        .unwrap();
    assert_eq!(sample["status"], "breaks");
    assert_eq!(sample["message"], false);
    let total = sample["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "Total")
        .unwrap();
    // Canonical order: Id (8), then the 4-byte fields by name: Count, Flags → Flags, Total.
    assert_eq!(total["old"]["offset"], 8);
    assert_eq!(total["new"]["offset"], 12);
    assert_eq!(total["new"]["wire_index"], 2);
    assert_eq!(total["new"]["size"], 4);
    let batch = v["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Batch")
        .unwrap();
    assert_eq!(batch["status"], "breaks");
    assert_eq!(batch["message"], true);
    assert_eq!(batch["broken_by"], serde_json::json!(["Sample"]));

    // Different dialects: an error, not a comparison.
    std::fs::write(d.join("x.sdp"), SDP).unwrap();
    let out = wirelens(d, &["diff", "x.sdp", "new.ffi"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("different dialects"), "{}", out.stderr);
}

#[test]
fn check_against_head_in_a_git_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    git(d, &["init", "-q", "."]);
    std::fs::create_dir(d.join("schemas")).unwrap();
    std::fs::write(d.join("schemas/a.sdp"), SDP).unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "one"]);

    // Unchanged: compatible.
    let out = wirelens(d, &["check", "--against", "HEAD", "schemas/a.sdp"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "checked 1 file: no problems; wire-compatible with HEAD\n");

    // A struct inserted at the top renumbers every SDP message id.
    let edited = format!("struct Header {{\n    v: u8,\n}}\n\n{SDP}");
    std::fs::write(d.join("schemas/a.sdp"), &edited).unwrap();
    // Run from the subfolder: the path inside the repository comes from git.
    let out = wirelens(&d.join("schemas"), &["check", "--against", "HEAD", "a.sdp"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "error[wire-message-id-changed]: message type id of `Point` changed from 1 to 2: SDP ids are positions in the file\n  ┌─ a.sdp:6:8\n"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("┌─ HEAD:schemas/a.sdp:2:8"), "{}", out.stderr);
    assert!(
        out.stderr
            .ends_with("checked 1 file: no problems; 2 wire breaks against HEAD\n"),
        "{}",
        out.stderr
    );

    // JSON: the breaks are entries of check's array, at the change in the new file.
    let out = wirelens(d, &["check", "--against", "HEAD", "--format", "json", "schemas/a.sdp"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let codes: Vec<(&str, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["code"].as_str().unwrap(), e["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(codes, [("wire-message-id-changed", 6), ("wire-message-id-changed", 11)]);

    // Without --against, check is exactly what it was: no comparison, exit 0.
    let out = wirelens(d, &["check", "schemas/a.sdp"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, "checked 1 file: no problems\n"));

    // Committed: compatible again; an older ref still shows the breaks.
    git(d, &["commit", "-q", "-am", "two"]);
    let out = wirelens(d, &["check", "--against", "HEAD", "schemas/a.sdp"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = wirelens(d, &["check", "--against", "HEAD~1", "schemas/a.sdp"]);
    assert_eq!(out.code, 1, "{}", out.stderr);

    // A file that is not in git has no baseline: a note, not a failure.
    std::fs::write(d.join("schemas/new.sdp"), SDP).unwrap();
    let out = wirelens(d, &["check", "--against", "HEAD", "schemas/new.sdp"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("note: schemas/new.sdp: no baseline at HEAD: `schemas/new.sdp` is not in HEAD\n"),
        "{}",
        out.stderr
    );

    // An unknown ref is an error.
    let out = wirelens(d, &["check", "--against", "nosuchbranch", "schemas/a.sdp"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("unknown git revision `nosuchbranch`"),
        "{}",
        out.stderr
    );
}

#[test]
fn check_against_outside_git_and_against_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("a.sdp"), SDP).unwrap();
    // GIT_CEILING_DIRECTORIES keeps git from finding a repository above the temp dir.
    let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(["check", "--against", "HEAD", "a.sdp"])
        .current_dir(d)
        .env("GIT_CEILING_DIRECTORIES", d.parent().unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with("note: a.sdp: no baseline at HEAD: not in a git repository\n"),
        "{stderr}"
    );

    std::fs::write(d.join("old.sdp"), SDP.replace("x: u32", "x: u16")).unwrap();
    let out = wirelens(d, &["check", "--against", "file:old.sdp", "a.sdp"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error[wire-type-changed]: field `Point.x` changed from `u16` to `u32`, size 2 B → 4 B"),
        "{}",
        out.stderr
    );
}
