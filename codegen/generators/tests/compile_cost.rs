//! Issue 13, compile cost of the generated C++: a translation unit that includes a
//! generated header compiles only what it uses. Every per-type entry point
//! (`encoded_size`, `encode`, `decode`, …, the message forms and `operator==`) is a
//! template member, so including a header of N structs does not instantiate N copies of
//! the runtime's `encode_append` / `decode_value` / … and N `std::tuple` comparisons
//! (that made the 500-struct header cost 1.6× per struct what the 50-struct one did,
//! docs/benchmarks/history.md "#13 compile scaling"). And `operator==` is a member, not a friend:
//! N friends named `operator==` in one namespace made every `==` search all N.
//!
//! Checked with what g++ emits: `-fkeep-inline-functions` writes out every inline
//! function and every template specialization the translation unit instantiated, so
//! `nm` lists exactly what was compiled. A second translation unit that uses one type
//! shows that the check sees an instantiation when there is one.

use std::path::Path;
use std::process::Command;

use wirelens_core::{analyze, Dialect, OrderChoice};
use wirelens_generators::cpp::{generate, runtime_files};

mod build_common;
use build_common::{compiler, run};

const SCHEMA: &str = "/// Fixed size.
struct Point {
    x: f32,
    y: f32,
}

/// Strings, arrays, nesting, an option.
struct Shape {
    name: str,
    points: []Point,
    tags: []str,
    anchor: Point,
    parent: Option<Point>,
    weights: []u16,
}

/// More of the same, so that a quadratic effect would have something to multiply.
struct Scene {
    title: str,
    shapes: []Shape,
    hero: Shape,
    flags: []bool,
}

/// One field.
struct Tiny {
    v: u8,
}
";

/// The symbols (demangled) that `g++ -O0 -c -fkeep-inline-functions` emits for `source`.
fn compiled_symbols(dir: &Path, stem: &str, source: &str) -> Vec<String> {
    let cxx = compiler("CXX", "g++");
    let cpp = dir.join(format!("{stem}.cpp"));
    let obj = dir.join(format!("{stem}.o"));
    std::fs::write(&cpp, source).expect("write driver");
    run(
        Command::new(&cxx)
            .args(["-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .args(["-fkeep-inline-functions", "-c"])
            .arg(&cpp)
            .arg("-o")
            .arg(&obj),
        "g++ -fkeep-inline-functions",
    );
    run(Command::new("nm").arg("-C").arg(&obj), "nm -C")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The emitted symbols that are per-type entry points or comparisons of schema types.
fn entry_points<'a>(symbols: &'a [String], ty: &str) -> Vec<&'a String> {
    let runtime = [
        "wirelens::encoded_size<",
        "wirelens::encode_append<",
        "wirelens::encode_into<",
        "wirelens::to_bytes<",
        "wirelens::decode_at<",
        "wirelens::decode_value<",
        "wirelens::too_long_error<",
    ];
    symbols
        .iter()
        .filter(|s| {
            (runtime.iter().any(|r| s.contains(r))
                && (s.contains(&format!("shapes::{ty}>")) || s.contains(&format!("shapes::{ty}View>"))))
                || s.contains(&format!("shapes::{ty}::operator=="))
                || s.contains(&format!("operator==(shapes::{ty} const&"))
                || (s.contains("std::tuple<") && s.contains(&format!("shapes::{ty} const&")))
        })
        .collect()
}

#[test]
fn including_a_generated_cpp_header_compiles_no_entry_point() {
    let a = analyze(Dialect::Sdp, SCHEMA, None, OrderChoice::default());
    assert!(!a.has_errors(), "{:?}", a.diagnostics);
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-compile-cost-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    for f in runtime_files()
        .into_iter()
        .chain(generate(&a.schema, &a.layout, "shapes.sdp").expect("generates"))
    {
        std::fs::write(dir.join(&f.name), &f.contents).expect("write header");
    }
    let types = ["Point", "Shape", "Scene", "Tiny"];

    let include_only = compiled_symbols(dir, "include_only", "#include \"shapes.hpp\"\n");
    // The building blocks are compiled (they are ordinary inline functions) ...
    assert!(
        include_only.iter().any(|s| s.contains("shapes::Scene::write_to(")),
        "-fkeep-inline-functions did not keep the inline functions:\n{}",
        include_only.join("\n")
    );
    // ... but no entry point and no comparison of any type.
    for ty in types {
        let found = entry_points(&include_only, ty);
        assert!(
            found.is_empty(),
            "including the header compiled {ty}'s entry points: {found:#?}"
        );
    }

    // One type used: its entry points are compiled, the others' still not.
    let uses_shape = compiled_symbols(
        dir,
        "uses_shape",
        "#include \"shapes.hpp\"
bool use(const uint8_t* data, size_t len, std::vector<uint8_t>& out) {
    auto r = shapes::Shape::decode(data, len);
    if (!r || !r->encode(out).ok() || !r->encode_message(out).ok()) {
        return false;
    }
    auto v = shapes::Shape::decode_view(data, len);
    return v && r->encoded_size() > 0 && *r == v->to_owned() && !(*r != *r);
}
",
    );
    let shape = entry_points(&uses_shape, "Shape");
    for wanted in [
        "wirelens::decode_value<shapes::Shape>",
        "wirelens::encode_append<false, shapes::Shape>",
        "wirelens::encode_append<true, shapes::Shape>",
        "wirelens::encoded_size<shapes::Shape>",
        "shapes::Shape::operator==",
    ] {
        assert!(
            shape.iter().any(|s| s.contains(wanted)),
            "using Shape did not compile {wanted}: {shape:#?}"
        );
    }
    for ty in ["Scene", "Tiny"] {
        let found = entry_points(&uses_shape, ty);
        assert!(found.is_empty(), "using Shape compiled {ty}'s entry points: {found:#?}");
    }
}

/// `type Nest [][]…int32` nested `depth` arrays deep (ffire allows 32).
fn nest_schema(depth: usize) -> String {
    format!("package p\n\ntype Nest {}int32\n", "[]".repeat(depth))
}

/// Writes the C++ generated for [`nest_schema`] (as `nest<depth>.hpp`) and the runtime.
fn write_nest(dir: &Path, depth: usize) {
    let a = analyze(Dialect::Ffi, &nest_schema(depth), None, OrderChoice::default());
    assert!(!a.has_errors(), "{:?}", a.diagnostics);
    for f in runtime_files()
        .into_iter()
        .chain(generate(&a.schema, &a.layout, &format!("nest{depth}.ffi")).expect("generates"))
    {
        std::fs::write(dir.join(&f.name), &f.contents).expect("write header");
    }
}

/// CPU seconds (user + system) of `g++ -std=c++17 -O1 -c` of `source`, or `None` when it
/// did not finish within `limit_s` seconds. Measured by the shell's `times` (the CPU time
/// of its finished children), so other work on the machine does not count.
fn compile_cpu_seconds(dir: &Path, stem: &str, source: &str, limit_s: u32) -> Option<f64> {
    let cxx = compiler("CXX", "g++");
    std::fs::write(dir.join(format!("{stem}.cpp")), source).expect("write source");
    let script = format!(
        "timeout {limit_s} {cxx} -std=c++17 -O1 -Wall -Wextra -Werror -pedantic -c {stem}.cpp -o {stem}.o; s=$?; times; exit $s"
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .output()
        .expect("run sh");
    if out.status.code() == Some(124) {
        return None;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `times`: the shell's user and system time, then its children's: `0m1.234s 0m0.100s`.
    let children = stdout.lines().last().expect("times output");
    let secs = |t: &str| -> f64 {
        let (m, s) = t.trim_end_matches('s').split_once('m').expect("NmS.SSSs");
        m.parse::<f64>().expect("minutes") * 60.0 + s.parse::<f64>().expect("seconds")
    };
    Some(children.split_whitespace().map(secs).sum())
}

/// Issue 39: the compile time of a file that includes a generated header grows linearly
/// with the nesting depth of its arrays. `std::vector<std::vector<…>>` made every
/// argument-dependent lookup of an operator on it visit the element type twice per level
/// (as the vector's and as its allocator's argument): 3.2 s at depth 12, 20 s at 24, not
/// finished after 600 s at 32. Levels past 8 are `wirelens::Nested<T>` now.
#[test]
fn compile_time_of_nested_arrays_is_linear_in_the_depth() {
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-compile-nest-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    let mut times = Vec::new();
    for depth in [8usize, 16, 32] {
        write_nest(dir, depth);
        let t = compile_cpu_seconds(
            dir,
            &format!("nest{depth}_include"),
            &format!("#include \"nest{depth}.hpp\"\n"),
            120,
        );
        let t = t.unwrap_or_else(|| panic!("including the depth-{depth} header took over 120 s to compile"));
        eprintln!("depth {depth}: {t:.2} s CPU");
        times.push(t);
    }
    let (t8, t16, t32) = (times[0], times[1], times[2]);
    // Linear: 16 more levels cost about twice what 8 more did. The slack absorbs timer
    // noise; doubling per level (the old header) exceeds it by far.
    let limit = 3.0 * (t16 - t8).max(0.25) + 1.5;
    assert!(
        t32 - t16 <= limit,
        "depth 8: {t8:.2} s, 16: {t16:.2} s, 32: {t32:.2} s CPU: 16 → 32 added {:.2} s, over {limit:.2} s (not linear)",
        t32 - t16
    );
}

/// The `wirelens::Nested` levels work as the `std::vector`s they replace: a value 12 arrays
/// deep round-trips (owned, view, into an existing value) and compares.
#[test]
fn nested_arrays_past_eight_levels_round_trip() {
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-nest-run-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    write_nest(dir, 12);
    let header = std::fs::read_to_string(dir.join("nest12.hpp")).expect("read header");
    assert!(header.contains("wirelens::Nested<"), "levels past 8 are not Nested");
    let main = "#include \"nest12.hpp\"
#include <cstdio>
int main() {
    nest12::NestMessage m;
    auto* x = &m.value;
    x->resize(2);
    auto& l1 = (*x)[1];
    l1.resize(1);
    l1[0].resize(3);
    l1[0][2].resize(1);
    auto& l4 = l1[0][2][0];
    l4.resize(1);
    l4[0].resize(1);
    l4[0][0].resize(1);
    l4[0][0][0].resize(1);
    l4[0][0][0][0].resize(1);
    l4[0][0][0][0][0].resize(1);
    l4[0][0][0][0][0][0].resize(1);
    l4[0][0][0][0][0][0][0] = std::vector<int32_t>{7, -1, 65536};
    std::vector<uint8_t> out;
    if (!m.encode(out).ok() || out.size() != m.encoded_size()) return 1;
    auto back = nest12::NestMessage::decode(out.data(), out.size());
    if (!back || !(*back == m) || *back != m) return 2;
    auto view = nest12::NestMessage::decode_view(out.data(), out.size());
    if (!view || !(view->to_owned() == m)) return 3;
    nest12::NestMessage again;
    if (!again.decode_from(out.data(), out.size()).ok() || !(again == m)) return 4;
    const std::vector<int32_t>& inner = back->value[1][0][2][0][0][0][0][0][0][0][0];
    std::printf(\"%zu %d\\n\", out.size(), inner[2]);
    return 0;
}
";
    std::fs::write(dir.join("main.cpp"), main).expect("write main.cpp");
    for cxx in [compiler("CXX", "g++"), compiler("CLANGXX", "clang++")] {
        let exe = dir.join("nest-main");
        run(
            Command::new(&cxx)
                .args(["-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                .arg(dir.join("main.cpp"))
                .arg("-o")
                .arg(&exe),
            &format!("{cxx} (nested arrays)"),
        );
        let out = run(&mut Command::new(&exe), "the nested-arrays program");
        assert!(out.trim().ends_with(" 65536"), "{out}");
    }
}
