//! Issue 36 R1, R2, C1, C2: generated code builds warning-free whatever the schema names
//! its types and fields and whatever part of it a program uses.
//!
//! - Names that one target language folds together: `Point`, `point`, `_Point`, `POINT`
//!   (case twins and a leading `_`, legal in both dialects) must get distinct names in
//!   every language (R2).
//! - Members named like GNU keywords (`typeof`, `asm`, `inline`, `__typeof__`, …) must be
//!   escaped: the C and C++ builds run in ISO *and* GNU modes (C1).
//! - Structs named like the template parameters of the generated C++ (`V`, `F`, `T`)
//!   must not clash with them; the C++ program instantiates every entry point of the
//!   struct that holds them (C2).
//! - A binary crate with `#![deny(warnings)]` that includes the generated modules and
//!   uses one type (not the ffire helper aliases `type User []string`, `type Count int32`)
//!   builds, and passes clippy `-D warnings` (R1); the C and C++ programs that use one
//!   type build with `-Wall -Wextra -Werror -pedantic`.

use std::path::Path;
use std::process::Command;

use wirelens_core::{analyze, Analysis, Dialect, OrderChoice};
use wirelens_generators::{generate, runtime_files, Lang};

mod build_common;
use build_common::{compiler, run, workspace};

const FFI: &str = "package twins

type User []string

type Count int32

type Point struct {
\tX int32
}

type point struct {
\tY int32
}

type _Point struct {
\tZ int32
}

type POINT struct {
\tW int32
}

type V struct {
\tA int8
}

type F struct {
\tB int8
}

type T struct {
\tC int8
}

type PointMessage struct {
\tM int8
}

type Holder struct {
\ttypeof     int32
\tasm        int32
\tinline     int32
\trestrict   int32
\t__typeof__ int32
\t__asm__    int32
\t__inline   int32
\tTypeof     string
\tP          Point
\tQ          point
\tR          _Point
\tS          POINT
\tVv         V
\tFf         *F
\tTt         []T
\tUsers      User
\tN          Count
\tNested     [][]V
\tPm         PointMessage
}

type Ping struct {
\tA int8
}
";

const SDP: &str = "struct Point { x: i32 }
struct point { y: i32 }
struct _Point { z: i32 }
struct POINT { w: i32 }
struct V { a: i8 }
struct F { b: i8 }
struct T { c: i8 }
struct PointView { d: str }
struct Holder {
    p: Point,
    q: point,
    r: _Point,
    s: POINT,
    v: V,
    f: Option<F>,
    t: []T,
    nested: [][]V,
    pv: PointView,
    name: str,
}
struct Ping { a: i8 }
";

/// (module / file stem, dialect, text).
const SCHEMAS: [(&str, Dialect, &str); 2] = [("twins_ffi", Dialect::Ffi, FFI), ("twins_sdp", Dialect::Sdp, SDP)];

fn analysed(dialect: Dialect, text: &str) -> Analysis {
    let a = analyze(dialect, text, None, OrderChoice::default());
    assert!(!a.has_errors(), "{:?}", a.diagnostics);
    a
}

/// Writes every schema's files for `lang` (and the runtime's) into `dir`.
fn emit(lang: Lang, dir: &Path) {
    for f in runtime_files(lang) {
        std::fs::write(dir.join(&f.name), &f.contents).expect("write runtime");
    }
    for (stem, dialect, text) in SCHEMAS {
        let a = analysed(dialect, text);
        let ext = if dialect == Dialect::Sdp { "sdp" } else { "ffi" };
        for f in generate(lang, &a.schema, &a.layout, &format!("{stem}.{ext}")).expect("generates") {
            std::fs::write(dir.join(&f.name), &f.contents).expect("write generated");
        }
    }
}

fn tempdir(what: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("wirelens-names-{what}-"))
        .tempdir()
        .expect("temp dir")
}

#[test]
fn rust_binary_using_one_type_builds_with_deny_warnings_and_clippy() {
    let root = workspace();
    let tmp = tempdir("rust");
    let dir = tmp.path();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    emit(Lang::Rust, &src);
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"names-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nwirelens-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            root.join("runtime/rust").display().to_string()
        ),
    )
    .expect("write Cargo.toml");
    // A binary that includes both modules privately and uses one type of each.
    std::fs::write(
        src.join("main.rs"),
        "#![deny(warnings)]
mod twins_ffi;
mod twins_sdp;

use wirelens_runtime::Message;

fn main() {
    let a = twins_ffi::PingMessage { a: 7 };
    let b = twins_sdp::Ping { a: 9 };
    let wire = a.to_bytes().expect(\"encodes\");
    assert_eq!(twins_ffi::PingMessage::decode(&wire).expect(\"decodes\"), a);
    println!(\"{} {}\", wire.len(), b.to_bytes().expect(\"encodes\").len());
}
",
    )
    .expect("write main.rs");
    let target = root.join("target/generated-names");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_cmd = |args: &[&str]| {
        let mut c = Command::new(&cargo);
        c.args(args)
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
        c
    };
    let out = run(
        &mut cargo_cmd(&["run", "--quiet", "--offline"]),
        "the binary (#![deny(warnings)])",
    );
    assert_eq!(out.trim(), "1 1");
    run(
        &mut cargo_cmd(&["clippy", "--quiet", "--offline", "--", "-D", "warnings"]),
        "cargo clippy -D warnings",
    );
}

/// The C program: uses `Ping` of each schema, and encodes and decodes `Holder`.
const C_MAIN: &str = "#include \"twins_ffi.h\"
#include \"twins_sdp.h\"
#include <stdio.h>

int main(void) {
    twins_ffi_PingMessage p = {0};
    twins_sdp_Ping q = {0};
    twins_ffi_HolderMessage h = {0};
    uint8_t buf[256];
    size_t n = 0;
    wl_error err;
    p.a = 3;
    q.a = 4;
    if (twins_ffi_PingMessage_encode(&p, buf, sizeof buf, &n, &err) != WL_OK) return 1;
    if (twins_sdp_Ping_encode(&q, buf, sizeof buf, &n, &err) != WL_OK) return 1;
    h.typeof_ = 5;
    if (twins_ffi_HolderMessage_encode(&h, buf, sizeof buf, &n, &err) != WL_OK) return 1;
    {
        twins_ffi_HolderMessage back;
        wl_arena arena;
        wl_arena_init_heap(&arena);
        if (twins_ffi_HolderMessage_decode(buf, n, &back, &arena, &err) != WL_OK) return 1;
        if (back.typeof_ != 5) return 1;
        wl_arena_free(&arena);
    }
    printf(\"ok %u\\n\", (unsigned)n);
    return 0;
}
";

#[test]
fn c_builds_in_iso_and_gnu_modes_with_gcc_and_clang() {
    let tmp = tempdir("c");
    let dir = tmp.path();
    emit(Lang::C, dir);
    std::fs::write(dir.join("main.c"), C_MAIN).expect("write main.c");
    for cc in [compiler("CC", "gcc"), compiler("CLANG", "clang")] {
        for std in ["c11", "gnu11", "c17", "gnu17", "c2x", "gnu2x"] {
            let exe = dir.join(format!("main-{std}"));
            run(
                Command::new(&cc)
                    .arg(format!("-std={std}"))
                    .args(["-O1", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                    .arg(dir.join("main.c"))
                    .arg(dir.join("twins_ffi.c"))
                    .arg(dir.join("twins_sdp.c"))
                    .arg("-o")
                    .arg(&exe),
                &format!("{cc} -std={std}"),
            );
            let out = run(&mut Command::new(&exe), &format!("the program ({cc} -std={std})"));
            assert!(out.starts_with("ok "), "{out}");
        }
    }
}

/// The C++ program: every entry point of `Holder` (which holds the structs named `V`,
/// `F` and `T`) instantiated, owned and view; a second translation unit uses only `Ping`.
const CPP_MAIN: &str = "#include \"twins_ffi.hpp\"
#include \"twins_sdp.hpp\"
#include <cstdio>

int only_ping();

template <class H>
int round_trip(H h) {
    std::vector<uint8_t> out;
    if (!h.encode(out).ok()) return 1;
    auto back = H::decode(out.data(), out.size());
    if (!back || !(*back == h) || *back != h) return 1;
    auto view = H::decode_view(out.data(), out.size());
    if (!view || !(view->to_owned() == h)) return 1;
    H again;
    if (!again.decode_from(out.data(), out.size()).ok() || !(again == h)) return 1;
    auto bytes = h.to_bytes();
    if (!bytes || bytes->size() != h.encoded_size()) return 1;
    return 0;
}

int main() {
    twins_ffi::HolderMessage h;
    h.typeof_ = 5;
    h.nested.resize(2);
    h.nested[1].resize(1);
    h.nested[1][0].a = 3;
    h.tt.resize(1);
    h.ff.emplace().b = 4;
    twins_sdp::Holder s;
    s.name = \"x\";
    s.f.emplace().b = 2;
    if (round_trip(h) != 0 || round_trip(s) != 0 || only_ping() != 0) return 1;
    std::printf(\"ok\\n\");
    return 0;
}
";

const CPP_PING: &str = "#include \"twins_ffi.hpp\"
#include \"twins_sdp.hpp\"

int only_ping() {
    twins_ffi::PingMessage p;
    twins_sdp::Ping q;
    p.a = 1;
    q.a = 2;
    std::vector<uint8_t> out;
    return p.encode(out).ok() && q.encode(out).ok() && out.size() == 2 ? 0 : 1;
}
";

#[test]
fn cpp_builds_in_iso_and_gnu_modes_with_gcc_and_clang() {
    let tmp = tempdir("cpp");
    let dir = tmp.path();
    emit(Lang::Cpp, dir);
    std::fs::write(dir.join("main.cpp"), CPP_MAIN).expect("write main.cpp");
    std::fs::write(dir.join("ping.cpp"), CPP_PING).expect("write ping.cpp");
    for cxx in [compiler("CXX", "g++"), compiler("CLANGXX", "clang++")] {
        for std in ["c++17", "gnu++17", "c++20", "gnu++20"] {
            let exe = dir.join(format!("main-{std}"));
            run(
                Command::new(&cxx)
                    .arg(format!("-std={std}"))
                    .args(["-O0", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                    .arg(dir.join("main.cpp"))
                    .arg(dir.join("ping.cpp"))
                    .arg("-o")
                    .arg(&exe),
                &format!("{cxx} -std={std}"),
            );
            let out = run(&mut Command::new(&exe), &format!("the program ({cxx} -std={std})"));
            assert_eq!(out.trim(), "ok");
        }
    }
}
