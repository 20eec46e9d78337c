//! The engines the harness can drive. `cli` runs the `wirelens` binary (path from
//! `WIRELENS_BIN`); `rust` compiles the Rust emitter's output (see `rust_engine`); the
//! C and C++ engines come with their code generators and build with the compilers in
//! [`Tools`].

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;
use wirelens_core::codec::Mode;
use wirelens_core::FieldOrder;

use wirelens_generators::cpp::{Memory, OwnedStrings};

use crate::toolchain::Toolchain;
use crate::{Case, Engine};

/// The compilers of the C and C++ engines and what runs the programs they build.
pub struct Tools {
    pub cc: String,
    pub cxx: String,
    pub runner: Vec<String>,
}

pub fn by_name(name: &str, tools: &Tools) -> Result<Box<dyn Engine>, String> {
    let cxx = || Toolchain::new(&tools.cxx, "g++", &tools.runner);
    match name {
        "cli" => Ok(Box::new(Cli {
            bin: std::env::var("WIRELENS_BIN").unwrap_or_else(|_| "wirelens".into()),
        })),
        "rust" => Ok(Box::new(crate::rust_engine::RustEngine::new())),
        "cpp" => Ok(Box::new(crate::cpp_engine::CppEngine::new(
            OwnedStrings::Std,
            Memory::Std,
            cxx(),
        ))),
        "cpp-compact" => Ok(Box::new(crate::cpp_engine::CppEngine::new(
            OwnedStrings::Compact,
            Memory::Std,
            cxx(),
        ))),
        // Views in a wirelens::Arena ([generate.cpp] memory = "arena"), also with compact strings.
        "cpp-arena" => Ok(Box::new(crate::cpp_engine::CppEngine::new(
            OwnedStrings::Std,
            Memory::Arena,
            cxx(),
        ))),
        "cpp-compact-arena" => Ok(Box::new(crate::cpp_engine::CppEngine::new(
            OwnedStrings::Compact,
            Memory::Arena,
            cxx(),
        ))),
        "c" => Ok(Box::new(crate::c_engine::CEngine::new(Toolchain::new(
            &tools.cc,
            "gcc",
            &tools.runner,
        )))),
        other => Err(format!(
            "unknown engine `{other}` (engines: cli, c, cpp, cpp-compact, cpp-arena, cpp-compact-arena, rust)"
        )),
    }
}

struct Cli {
    bin: String,
}

impl Cli {
    fn run(&self, command: &str, case: &Case, stdin: &[u8]) -> Result<Vec<u8>, String> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg(command)
            .arg("--schema")
            .arg(&case.schema)
            .args(["--root", &case.root])
            .args(["--mode", if case.mode == Mode::Message { "message" } else { "byte" }])
            .args([
                "--order",
                if case.order == FieldOrder::Declaration {
                    "declaration"
                } else {
                    "canonical"
                },
            ]);
        if case.all {
            cmd.arg("--all");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", self.bin))?;
        let mut input = child.stdin.take().ok_or("no stdin")?;
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || input.write_all(&data));
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(format!(
                "exit {}: {}",
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    }
}

impl Engine for Cli {
    fn name(&self) -> &str {
        "cli"
    }

    fn encode(&self, case: &Case) -> Result<Vec<u8>, String> {
        let json = serde_json::to_vec(&case.value).map_err(|e| e.to_string())?;
        self.run("encode", case, &json)
    }

    fn decode(&self, case: &Case) -> Result<Value, String> {
        let out = self.run("decode", case, &case.bytes)?;
        serde_json::from_slice(&out).map_err(|e| format!("decode printed invalid JSON: {e}"))
    }
}
