#!/usr/bin/env python3
"""Compile cost of generated Rust against generated C++ when a program uses every type.

usage: bench/compile-use.py [--rounds R] SCHEMA...   (SCHEMA: .sdp or .ffi)

For each schema, `wirelens gen --lang rust,cpp` and then, in a scratch directory:
- Rust: a library crate whose lib.rs is the generated module (depending on runtime/rust)
  and a binary crate that, for every message type T, encodes `T::default()`, decodes it
  owned and as a view and compares: `cargo build --release` of both (default release
  profile, dependencies built beforehand, both crates' sources touched);
- C++: one translation unit doing the same through the generated header:
  `g++ -std=c++17 -O2 -c`.
Prints user CPU seconds (the least of R rounds, the two alternating) and
`RATIO compile-use-rust-vs-cpp-NAME R rust/cpp`.

Both sides compile the code of every type, as a program that uses the schema does. (A
header that is only included compiles almost nothing: its functions are inline and
generated where they are used, while a Rust library compiles its non-generic functions
at once; comparing those two measures different work.)

Needs cargo, g++ and a release wirelens (target/release/wirelens; `cargo build --release
-p wirelens`). Installs nothing else.
"""
import argparse
import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
WL = ROOT / "target" / "release" / "wirelens"


def run(cmd, cwd=None, env=None):
    """Runs cmd, returns the user CPU seconds of it and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def message_types(rust_src):
    """The types with an `impl rt::Message for T` in the generated module."""
    return re.findall(r"^impl rt::Message for (\w+) \{", rust_src, re.M)


def rust_main(crate, types):
    blocks = "\n".join(
        f"""    {{
        let v = {crate}::{t}::default();
        let b = v.to_bytes().expect("encodes");
        total += black_box({crate}::{t}::decode(&b).expect("decodes") == v) as usize;
        total += black_box({crate}::{t}::decode_view(&b).expect("views").to_owned_value() == v) as usize;
    }}"""
        for t in types
    )
    return f"""use std::hint::black_box;
use wirelens_runtime::Message as _;

fn main() {{
    let mut total = 0usize;
{blocks}
    assert_eq!(total, {2 * len(types)});
}}
"""


def cpp_main(header, ns, types):
    blocks = "\n".join(
        f"""    {{
        {ns}::{t} v{{}};
        auto b = v.to_bytes();
        if (!b.ok()) return 1;
        auto d = {ns}::{t}::decode(b.value().data(), b.value().size());
        total += d.ok() && d.value() == v;
        auto w = {ns}::{t}::decode_view(b.value().data(), b.value().size());
        total += w.ok() && w.value().to_owned() == v;
    }}"""
        for t in types
    )
    return f"""#include "{header}"
#include <cstdio>

int main() {{
    size_t total = 0;
{blocks}
    return total == {2 * len(types)} ? 0 : 1;
}}
"""


def measure(schema, rounds, scratch):
    name = pathlib.Path(schema).stem
    work = scratch / name
    gen = work / "gen"
    subprocess.run([str(WL), "gen", schema, "--lang", "rust,cpp", "--out", str(gen)], check=True,
                   stdout=subprocess.DEVNULL)
    src = (gen / f"{name}.rs").read_text()
    types = [t for t in message_types(src) if not t.endswith("View")]
    if not types:
        sys.exit(f"{schema}: no message types in the generated Rust")
    lib, app = work / "lib", work / "app"
    (lib / "src").mkdir(parents=True, exist_ok=True)
    (app / "src").mkdir(parents=True, exist_ok=True)
    runtime = ROOT / "runtime" / "rust"
    (lib / "Cargo.toml").write_text(
        f'[package]\nname = "schema_{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f'[dependencies]\nwirelens-runtime = {{ path = "{runtime}" }}\n\n[workspace]\n')
    (lib / "src" / "lib.rs").write_text(src)
    (app / "Cargo.toml").write_text(
        f'[package]\nname = "use_{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f'[dependencies]\nschema_{name} = {{ path = "{lib}" }}\n'
        f'wirelens-runtime = {{ path = "{runtime}" }}\n\n[workspace]\n')
    (app / "src" / "main.rs").write_text(rust_main(f"schema_{name}", types))
    (gen / "use.cpp").write_text(cpp_main(f"{name}.hpp", name, types))
    env = dict(os.environ, CARGO_TARGET_DIR=str(work / "target"))
    build = ["cargo", "build", "--release", "--quiet"]
    run(build, cwd=app, env=env)  # dependencies, and a check that it builds
    subprocess.run([str(work / "target" / "release" / f"use_{name}")], check=True)
    cpp_cmd = ["g++", "-std=c++17", "-O2", "-c", "use.cpp", "-o", "use.o"]
    rust_t, cpp_t = [], []
    for _ in range(rounds):
        (lib / "src" / "lib.rs").touch()
        (app / "src" / "main.rs").touch()
        rust_t.append(run(build, cwd=app, env=env))
        cpp_t.append(run(cpp_cmd, cwd=gen))
    r, c = min(rust_t), min(cpp_t)
    print(f"{name}: {len(types)} message types; Rust lib+use {r:.2f} s user, C++ use {c:.2f} s user "
          f"(rounds: Rust {', '.join(f'{x:.2f}' for x in rust_t)}; C++ {', '.join(f'{x:.2f}' for x in cpp_t)})")
    print(f"RATIO compile-use-rust-vs-cpp-{name} {r / c:.2f} rust-lib+use/cpp-use")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("schemas", nargs="+")
    args = ap.parse_args()
    if not WL.exists():
        sys.exit(f"{WL} missing: cargo build --release -p wirelens")
    for tool in ("cargo", "g++"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found")
    with tempfile.TemporaryDirectory(prefix="wl-compile-use-") as d:
        for s in args.schemas:
            measure(os.path.abspath(s), args.rounds, pathlib.Path(d))


if __name__ == "__main__":
    main()
