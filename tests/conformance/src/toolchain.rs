//! The C or C++ compiler an engine builds with and how the programs it builds are run:
//! natively by default, or cross-compiled and run through an emulator (`--cc
//! x86_64-w64-mingw32-gcc --runner wine`, `--cc aarch64-linux-gnu-gcc --runner
//! "qemu-aarch64 -L /usr/aarch64-linux-gnu"`).

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Toolchain {
    /// The compiler and the arguments it starts with (`x86_64-w64-mingw32-g++ -static`).
    compiler: Vec<String>,
    /// What runs a built program (`wine`); empty: the program itself.
    runner: Vec<String>,
    /// `.exe` where the compiler targets Windows (MinGW's gcc appends it to `-o NAME`).
    exe: &'static str,
    /// `""` for the default compiler, else `-` and the command: each compiler builds in
    /// its own directory, so no object of one is taken for another's.
    dir_suffix: String,
}

/// Splits a command at white space (no quoting: paths with spaces are not supported).
pub fn words(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_string).collect()
}

impl Toolchain {
    /// `command`: the compiler command, `default` what it is when none was chosen.
    pub fn new(command: &str, default: &str, runner: &[String]) -> Toolchain {
        let compiler = words(command);
        let compiler = if compiler.is_empty() { words(default) } else { compiler };
        let dir_suffix = if compiler == words(default) {
            String::new()
        } else {
            let name: String = compiler
                .iter()
                .map(|w| {
                    Path::new(w)
                        .file_name()
                        .map_or(w.clone(), |n| n.to_string_lossy().into_owned())
                })
                .collect::<Vec<_>>()
                .join("_")
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
                .take(80)
                .collect();
            format!("-{name}")
        };
        let machine = Command::new(&compiler[0])
            .args(&compiler[1..])
            .arg("-dumpmachine")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).to_ascii_lowercase())
            .unwrap_or_default();
        let windows = ["mingw", "windows", "cygwin", "msvc"]
            .iter()
            .any(|w| machine.contains(w));
        Toolchain {
            compiler,
            runner: runner.to_vec(),
            exe: if windows { ".exe" } else { "" },
            dir_suffix,
        }
    }

    /// The compiler's program name, for messages.
    pub fn name(&self) -> &str {
        &self.compiler[0]
    }

    /// A command running the compiler, its leading arguments given.
    pub fn compile(&self) -> Command {
        let mut cmd = Command::new(&self.compiler[0]);
        cmd.args(&self.compiler[1..]);
        cmd
    }

    /// A command running the built program `exe` (through the runner, if any).
    pub fn run(&self, exe: &Path) -> Command {
        match self.runner.split_first() {
            None => Command::new(exe),
            Some((program, args)) => {
                let mut cmd = Command::new(program);
                cmd.args(args).arg(exe);
                cmd
            }
        }
    }

    /// `dir/stem` with the target's executable suffix.
    pub fn exe(&self, dir: &Path, stem: &str) -> PathBuf {
        dir.join(format!("{stem}{}", self.exe))
    }

    /// `base` (a build directory under `target/`) for this compiler.
    pub fn build_dir(&self, base: &Path) -> PathBuf {
        let mut name = base.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(&self.dir_suffix);
        base.with_file_name(name)
    }
}

/// The prologue of a test driver's `main` that makes stdin and stdout binary on Windows
/// (the C runtime would turn `\n` into `\r\n` and stop reading at a 0x1a byte).
pub const BINARY_STDIO_INCLUDES: &str = "#ifdef _WIN32\n#include <fcntl.h>\n#include <io.h>\n#endif\n";
pub const BINARY_STDIO: &str =
    "#ifdef _WIN32\n    _setmode(_fileno(stdin), _O_BINARY);\n    _setmode(_fileno(stdout), _O_BINARY);\n#endif\n";
