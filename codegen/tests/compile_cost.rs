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

use codegen::emit::cpp::{generate, runtime_files};
use codegen::{analyze, Dialect, OrderChoice};

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
