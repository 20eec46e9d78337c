//! `wirelens check` and `wirelens layout` on every golden schema, run as a user runs
//! them (the real binary), snapshotted with insta. ffire schemas in both field orders.

use std::path::{Path, PathBuf};
use std::process::Command;

fn vectors() -> PathBuf {
    std::env::var_os("WIRELENS_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors"))
}

fn schemas(dialect: &str) -> Vec<PathBuf> {
    let dir = vectors().join(dialect).join("schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 10, "expected the golden schemas in {}", dir.display());
    files
}

fn wirelens(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn run_all(dialect: &str, orders: &[&str]) {
    for path in schemas(dialect) {
        let dir = path.parent().unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();

        let (code, stdout, stderr) = wirelens(&["check", "--format", "json", file], dir);
        assert_eq!(code, 0, "{file}: check failed\n{stdout}\n{stderr}");
        let diags: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(
            diags.as_array().unwrap().iter().all(|d| d["severity"] != "error"),
            "{file}: golden schema has errors: {stdout}"
        );
        insta::assert_snapshot!(format!("check_{dialect}_{stem}"), stdout);

        for order in orders {
            let mut args = vec!["layout", file];
            if !order.is_empty() {
                args.extend(["--order", order]);
            }
            let (code, table, stderr) = wirelens(&args, dir);
            assert_eq!(code, 0, "{file}: layout failed: {stderr}");
            args.extend(["--format", "json"]);
            let (code, json, stderr) = wirelens(&args, dir);
            assert_eq!(code, 0, "{file}: layout --format json failed: {stderr}");
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(value["dialect"], dialect);
            let suffix = if order.is_empty() {
                String::new()
            } else {
                format!("_{order}")
            };
            insta::assert_snapshot!(format!("layout_{dialect}_{stem}{suffix}"), table);
            insta::assert_snapshot!(format!("layout_json_{dialect}_{stem}{suffix}"), json);
        }
    }
}

#[test]
fn sdp_schemas() {
    run_all("sdp", &[""]);
}

#[test]
fn ffi_schemas_both_orders() {
    run_all("ffi", &["canonical", "declaration"]);
}
