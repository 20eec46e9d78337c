//! What the tests that build generated code share: the workspace root, a compiler that
//! must be present (a missing one fails the test, it never skips it), and running a
//! command that must succeed.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn workspace() -> PathBuf {
    // codegen/generators → the repository root.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The compiler named by the environment variable `var`, else `default`; fails the test
/// when it cannot run.
pub fn compiler(var: &str, default: &str) -> String {
    let cc = std::env::var(var).unwrap_or_else(|_| default.to_string());
    match Command::new(&cc).arg("--version").output() {
        Ok(o) if o.status.success() => cc,
        _ => panic!(
            "the compiler `{cc}` is not available: install it (Debian/Ubuntu: apt-get install {default}) \
             or point {var} at one"
        ),
    }
}

/// Runs `cmd`, fails the test with its output unless it succeeds, returns its stdout.
pub fn run(cmd: &mut Command, what: &str) -> String {
    succeeded(cmd.output(), what)
}

/// The stdout of a finished process (`Command::output`, `Child::wait_with_output`);
/// fails the test with its output unless it succeeded.
pub fn succeeded(out: std::io::Result<Output>, what: &str) -> String {
    let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
