//! The C emitter, used the way a user would: generate `<module>.h`/`.c` for every golden
//! schema (ffire in both field orders) and an "extra constructs" schema per dialect,
//! compile all of them into one program with BOTH gcc and clang (`-std=c11 -Wall
//! -Wextra -Werror -pedantic`, AddressSanitizer + UndefinedBehaviorSanitizer, no
//! recovery), plus a gcc build that forces the portable (big-endian-safe) load/store
//! path, and run a driver that round-trips every golden case through the generated
//! code: decode → re-encode gives the same bytes, `_size` is exact, `_encode` refuses a
//! short buffer, the view decoder re-encodes to the same bytes, every truncation (of
//! the first 256 bytes, each in an exactly sized heap buffer) and a trailing byte are
//! rejected, 300 randomly mutated copies either fail to decode or re-encode to exactly
//! themselves (the encoding is canonical); SDP message cases go through the message API and the dispatcher. Hand
//! written checks cover the ffire 65,535 limits, huge counts, bad bool / presence
//! bytes, bad UTF-8 and bad message headers.
//!
//! Needs `gcc` and `clang` on PATH (or `WIRELENS_GCC` / `WIRELENS_CLANG`): a missing
//! compiler fails the test.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};
use wirelens_generators::c::{generate, runtime_files, Names};

mod build_common;
use build_common::{compiler, run, workspace};

/// Constructs the golden schemas do not cover (nested arrays, arrays of options, `Box`,
/// keyword field names, a nested variable struct inlined into its parent's blocks).
/// Their cases are encoded by the reference codec (`wirelens_core::codec`).
const EXTRA_SDP: &str = "/// A fixed-size struct.
struct Inner {
    v: u32,
    okay: bool,
}

/// A variable-size struct with fixed fields (inlined into its parent's blocks).
struct Label {
    id: u16,
    text: str,
    weight: f32,
}

/// Every SDP construct.
struct Holder {
    grid: [][]u32,
    names: [][]str,
    maybe: []Option<Inner>,
    boxed: Box<Inner>,
    opt_boxed: Option<Box<Inner>>,
    flags: []bool,
    inners: [][]Inner,
    tail: i8,
    label: Label,
    after: u64,
    floats: []f32,
    bytes: []i8,
}
";

const EXTRA_FFI: &str = "package extra

type Id int64

type Matrix [][]float64

// Inner has keyword-named fields.
type Inner struct {
\tInt     string
\tStruct  int32
\tDefault bool
}

type Point struct {
\tX float32
\tY float32
}

// Everything is a root with every optional kind.
type Everything struct {
\tPtr      *int32
\tPtrStr   *string
\tPtrArr   *[]int16
\tPtrInner *Inner
\tPtrPtr   **bool
\tArrPtr   []*Inner
\tNested   [][]string
\tFixed    Point
\tFn       []int8
\tMatch    Matrix
\tCount    Id
\tPts      []Point
\tFlags    []bool
}

type Stamp int64

type Grid [][]int32

type Words []string
";

/// (schema file, root, message mode, JSON value) for the extra schemas.
fn extra_values() -> Vec<(&'static str, &'static str, bool, serde_json::Value)> {
    use serde_json::json;
    let holder = json!({
        "grid": [[1, 2, 3], [], [4294967295u32]],
        "names": [["a", "héllo"], [], ["\u{0}"]],
        "maybe": [{"v": 1, "okay": true}, null, {"v": 2, "okay": false}],
        "boxed": {"v": 7, "okay": true},
        "opt_boxed": {"v": 8, "okay": false},
        "flags": [true, false, true],
        "inners": [[{"v": 3, "okay": true}], []],
        "tail": -5,
        "label": {"id": 300, "text": "lbl", "weight": 0.5},
        "after": 18446744073709551615u64,
        "floats": [1.5, -0.0, 3.4028235e38],
        "bytes": [-128, 0, 127]
    });
    let holder_empty = json!({
        "grid": [], "names": [], "maybe": [], "boxed": {"v": 0, "okay": false},
        "opt_boxed": null, "flags": [], "inners": [], "tail": 0,
        "label": {"id": 0, "text": "", "weight": 0.0}, "after": 0, "floats": [], "bytes": []
    });
    let everything = json!({
        "Ptr": -3, "PtrStr": "s", "PtrArr": [1, -2, 32767], "PtrInner": {"Int": "t", "Struct": 5, "Default": true},
        "PtrPtr": false, "ArrPtr": [null, {"Int": "", "Struct": -1, "Default": false}],
        "Nested": [["x", "y"], []], "Fixed": {"X": 1.5, "Y": -0.0}, "Fn": [-128, 127],
        "Match": [[1.25, -2.5], []], "Count": 9007199254740993i64,
        "Pts": [{"X": 1.0, "Y": 2.0}], "Flags": [true, true, false]
    });
    let nothing = json!({
        "ArrPtr": [], "Nested": [], "Fixed": {"X": 0.0, "Y": 0.0}, "Fn": [], "Match": [], "Count": 0,
        "Pts": [], "Flags": []
    });
    vec![
        ("extra.sdp", "Holder", false, holder.clone()),
        ("extra.sdp", "Holder", false, holder_empty),
        ("extra.sdp", "Holder", true, holder),
        ("extra.sdp", "Inner", true, json!({"v": 1, "okay": true})),
        ("extra.sdp", "Label", true, json!({"id": 1, "text": "x", "weight": 2.0})),
        ("extra.ffi", "Everything", false, everything),
        ("extra.ffi", "Everything", false, nothing),
        ("extra.ffi", "Stamp", false, json!(-42)),
        ("extra.ffi", "Grid", false, json!([[1, 2], [], [-3]])),
        ("extra.ffi", "Words", false, json!(["a", "", "ü"])),
    ]
}

struct Module {
    /// Also the module prefix of every symbol (`sdp_arrays`, `ffi_complex_canon`).
    name: String,
    dialect: Dialect,
    schema_file: String,
    order: FieldOrder,
    files: Vec<(String, String)>,
    /// Schema type name → (C type name, has its own view type).
    names: Vec<(String, String, bool)>,
    /// Extra cases: (root, message mode, bytes from the reference codec).
    bins: Vec<(String, bool, Vec<u8>)>,
}

fn extra_bins(a: &wirelens_core::Analysis, file: &str, order: FieldOrder) -> Vec<(String, bool, Vec<u8>)> {
    let codec = wirelens_core::codec::Codec::new(&a.schema, &a.layout);
    extra_values()
        .into_iter()
        .filter(|(f, ..)| *f == file)
        .map(|(_, root, message, value)| {
            let id = codec.root(root).expect("root");
            let mode = if message {
                wirelens_core::codec::Mode::Message
            } else {
                wirelens_core::codec::Mode::Byte
            };
            let bytes = codec
                .encode(id, &value, mode)
                .unwrap_or_else(|e| panic!("{file} {root} ({order:?}): {e}"));
            (root.to_string(), message, bytes)
        })
        .collect()
}

fn modules(vectors: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    for (dialect, dir) in [(Dialect::Sdp, "sdp"), (Dialect::Ffi, "ffi")] {
        let mut files: Vec<(String, String, String)> = std::fs::read_dir(vectors.join(dir).join("schemas"))
            .expect("schemas dir")
            .map(|e| {
                let path = e.expect("entry").path();
                let stem = path.file_stem().and_then(|s| s.to_str()).expect("stem").to_string();
                let file = path.file_name().and_then(|s| s.to_str()).expect("name").to_string();
                (stem, file, std::fs::read_to_string(&path).expect("read schema"))
            })
            .collect();
        files.sort();
        let extra = if dialect == Dialect::Sdp { EXTRA_SDP } else { EXTRA_FFI };
        files.push(("extra".into(), format!("extra.{dir}"), extra.into()));
        for (stem, file, text) in files {
            let orders: &[(FieldOrder, &str)] = match dialect {
                Dialect::Sdp => &[(FieldOrder::Declaration, "")],
                Dialect::Ffi => &[(FieldOrder::Canonical, "_canon"), (FieldOrder::Declaration, "_decla")],
            };
            for &(order, suffix) in orders {
                let choice = OrderChoice {
                    order: Some(order),
                    overrides_directive: true,
                };
                let a = analyze(dialect, &text, None, choice);
                assert!(!a.has_errors(), "{file}: {:?}", a.diagnostics);
                let name = format!("{dir}_{stem}{suffix}");
                let source = format!("{name}.{dir}");
                let generated = generate(&a.schema, &a.layout, &source).unwrap_or_else(|e| panic!("{file}: {e}"));
                for f in &generated {
                    assert!(
                        f.contents.starts_with(wirelens_generators::GENERATED_HEADER),
                        "{}",
                        f.name
                    );
                }
                let c_names = Names::new(&a.schema, &a.layout, &source);
                assert_eq!(c_names.prefix, name);
                let names = (0..a.schema.types.len())
                    .map(|id| {
                        let has_view = a.layout.get(id).is_some_and(|t| c_names.has_view_wire(&t.wire));
                        (a.schema.types[id].name.clone(), c_names.type_name(id), has_view)
                    })
                    .collect();
                out.push(Module {
                    name,
                    dialect,
                    schema_file: file.clone(),
                    order,
                    files: generated.into_iter().map(|f| (f.name, f.contents)).collect(),
                    names,
                    bins: extra_bins(&a, &file, order),
                });
            }
        }
    }
    out
}

struct Case {
    name: String,
    /// C type name and whether it has its own view type.
    ty: String,
    has_view: bool,
    module: String,
    message: bool,
    bin: PathBuf,
}

fn find_type(m: &Module, root: &str) -> Option<(String, bool)> {
    m.names
        .iter()
        .find(|(n, ..)| n == root)
        .map(|(_, t, v)| (t.clone(), *v))
}

fn cases(vectors: &Path, modules: &[Module], scratch: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for m in modules {
        for (i, (root, message, bytes)) in m.bins.iter().enumerate() {
            let bin = scratch.join(format!("{}_{i}.bin", m.name));
            std::fs::write(&bin, bytes).expect("write extra case");
            let (ty, has_view) = find_type(m, root).expect("root type");
            out.push(Case {
                name: format!("{}/{i}-{root}", m.name),
                ty,
                has_view,
                module: m.name.clone(),
                message: *message,
                bin,
            });
        }
    }
    for dir in ["sdp", "ffi"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(vectors.join(dir).join("cases"))
            .expect("cases dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for path in files {
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).expect("read case")).expect("case json");
            let schema = json["schema"].as_str().expect("schema");
            let root = json["root"].as_str().expect("root");
            let order = match json["order"].as_str() {
                Some("declaration") => FieldOrder::Declaration,
                _ if dir == "ffi" => FieldOrder::Canonical,
                _ => FieldOrder::Declaration,
            };
            let module = modules
                .iter()
                .find(|m| m.schema_file == schema && (m.dialect == Dialect::Sdp || m.order == order))
                .unwrap_or_else(|| panic!("{}: no module for {schema}", path.display()));
            let (ty, has_view) =
                find_type(module, root).unwrap_or_else(|| panic!("{}: no type {root}", path.display()));
            out.push(Case {
                name: format!("{dir}/{}", path.file_stem().and_then(|s| s.to_str()).expect("stem")),
                ty,
                has_view,
                module: module.name.clone(),
                message: json["mode"].as_str() == Some("message"),
                bin: path.with_extension("bin"),
            });
        }
    }
    out
}

/// Helpers and the two case macros. A case body returns NULL on success or a message.
const DRIVER_PRELUDE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_msg[1024];
static char g_err[1024];
static uint64_t g_seed = 0x2545F4914F6CDD1Du;

static uint8_t *load(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *more;
            cap = cap ? cap * 2 : 4096;
            more = (uint8_t *)realloc(data, cap);
            if (!more) { free(data); fclose(f); return NULL; }
            data = more;
        }
        got = fread(data + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    *len = n;
    return data;
}

/* An exactly sized heap copy, so AddressSanitizer sees any read past the end. */
static uint8_t *copy_of(const uint8_t *p, size_t n, size_t extra) {
    uint8_t *c = (uint8_t *)malloc(n + extra ? n + extra : 1);
    if (!c) abort();
    if (n) memcpy(c, p, n);
    if (extra) memset(c + n, 0, extra);
    return c;
}

static const char *fail_err(const char *what, const wl_error *err) {
    char text[512];
    wl_error_format(err, text, sizeof text);
    snprintf(g_err, sizeof g_err, "%s: %s", what, text);
    return g_err;
}

#define FAIL(...) do { snprintf(g_msg, sizeof g_msg, __VA_ARGS__); result = g_msg; goto done; } while (0)
#define FAIL_ERR(what) do { snprintf(g_msg, sizeof g_msg, "%s", fail_err(what, &err)); result = g_msg; goto done; } while (0)

/* Byte mode: back-to-back records of type T; VENC re-encodes a T_view. */
#define BYTE_CASE(T, VENC, PATH)                                                                   \
    const char *result = NULL;                                                                     \
    size_t len = 0, at = 0, records = 0;                                                           \
    uint8_t *bytes = load(PATH, &len);                                                             \
    wl_buf out, again;                                                                             \
    wl_arena arena;                                                                                \
    wl_error err;                                                                                  \
    wl_buf_init(&out);                                                                             \
    wl_buf_init(&again);                                                                           \
    wl_arena_init_heap(&arena);                                                                    \
    if (!bytes) FAIL("cannot read %s", PATH);                                                      \
    while (at < len) {                                                                             \
        T value;                                                                                   \
        T##_view view;                                                                             \
        size_t used = 0, vused = 0, w = 0, k;                                                      \
        const uint8_t *rest = bytes + at;                                                          \
        uint8_t *buf;                                                                              \
        wl_status st;                                                                              \
        if (T##_decode_prefix(rest, len - at, &value, &used, &arena, &err) != WL_OK)               \
            FAIL_ERR("decode_prefix");                                                             \
        if (used == 0) FAIL("a record used no bytes");                                             \
        if (T##_size(&value) != used) FAIL("size %zu, record %zu bytes", T##_size(&value), used);  \
        if (T##_encode_buf(&value, &out, &err) != WL_OK) FAIL_ERR("encode_buf");                   \
        buf = (uint8_t *)malloc(used + 3);                                                         \
        st = T##_encode(&value, buf, used + 3, &w, &err);                                          \
        if (st != WL_OK || w != used || memcmp(buf, rest, used) != 0) {                            \
            free(buf);                                                                             \
            FAIL("encode wrote different bytes");                                                  \
        }                                                                                          \
        st = T##_encode(&value, buf, used - 1, &w, &err);                                          \
        free(buf);                                                                                 \
        if (st != WL_ERR_BUFFER_TOO_SMALL) FAIL("encode accepted a too-small buffer");             \
        if (T##_decode_view_prefix(rest, len - at, &view, &vused, &arena, &err) != WL_OK)          \
            FAIL_ERR("decode_view_prefix");                                                        \
        wl_buf_clear(&again);                                                                      \
        if (vused != used || VENC(&view, &again, &err) != WL_OK || again.len != used ||            \
            memcmp(again.data, rest, used) != 0)                                                   \
            FAIL("the view decoder disagrees with the owned decoder");                             \
        buf = copy_of(rest, used, 0);                                                              \
        st = T##_decode(buf, used, &value, &arena, &err);                                          \
        if (st == WL_OK) st = T##_decode_view(buf, used, &view, &arena, &err);                     \
        if (st == WL_OK && T##_size(&value) != used) st = WL_ERR_LENGTH;                           \
        free(buf);                                                                                 \
        if (st != WL_OK) FAIL_ERR("decode (exact)");                                               \
        if (records == 0) {                                                                        \
            for (k = 0; k < used && k < 256; k++) {                                                \
                buf = copy_of(rest, k, 0);                                                         \
                st = T##_decode(buf, k, &value, &arena, &err);                                     \
                if (st != WL_OK && T##_decode_view(buf, k, &view, &arena, &err) == WL_OK)          \
                    st = WL_OK;                                                                    \
                free(buf);                                                                         \
                if (st == WL_OK) FAIL("decode accepted a truncation to %zu bytes", k);             \
            }                                                                                      \
            for (k = 0; k < 300; k++) { /* hostile bytes: a decode either fails or is exact */    \
                size_t at2;                                                                        \
                g_seed = g_seed * 6364136223846793005u + 1442695040888963407u;                     \
                at2 = (size_t)(g_seed >> 33) % used;                                               \
                buf = copy_of(rest, used, 0);                                                      \
                buf[at2] = (uint8_t)(g_seed >> 13);                                                \
                if (k % 3 == 0) buf[(size_t)(g_seed >> 40) % used] = 0xff;                         \
                if (T##_decode(buf, used, &value, &arena, &err) == WL_OK) {                        \
                    wl_buf_clear(&again);                                                          \
                    if (T##_encode_buf(&value, &again, &err) != WL_OK || again.len != used ||      \
                        memcmp(again.data, buf, used) != 0) {                                      \
                        free(buf);                                                                 \
                        FAIL("a mutated input decoded but does not re-encode to itself");          \
                    }                                                                              \
                }                                                                                  \
                if (T##_decode_view(buf, used, &view, &arena, &err) == WL_OK) {                    \
                    wl_buf_clear(&again);                                                          \
                    if (VENC(&view, &again, &err) != WL_OK || again.len != used ||                 \
                        memcmp(again.data, buf, used) != 0) {                                      \
                        free(buf);                                                                 \
                        FAIL("a mutated input decoded as a view but does not re-encode to itself");\
                    }                                                                              \
                }                                                                                  \
                free(buf);                                                                         \
                wl_arena_reset(&arena);                                                            \
            }                                                                                      \
            buf = copy_of(rest, used, 1);                                                          \
            st = T##_decode(buf, used + 1, &value, &arena, &err);                                  \
            if (st != WL_ERR_TRAILING || err.offset != used) st = WL_OK;                           \
            else if (T##_decode_view(buf, used + 1, &view, &arena, &err) != WL_ERR_TRAILING)       \
                st = WL_OK;                                                                        \
            free(buf);                                                                             \
            if (st == WL_OK) FAIL("decode accepted a trailing byte");                              \
        }                                                                                          \
        wl_arena_reset(&arena);                                                                    \
        at += used;                                                                                \
        records++;                                                                                 \
    }                                                                                              \
    if (out.len != len || memcmp(out.data, bytes, len) != 0) FAIL("re-encoding gave different bytes"); \
    snprintf(g_msg, sizeof g_msg, "%zu record(s)", records);                                       \
done:                                                                                              \
    free(bytes);                                                                                   \
    wl_buf_free(&out);                                                                             \
    wl_buf_free(&again);                                                                           \
    wl_arena_free(&arena);                                                                         \
    return result;

/* Message mode: one SDP message of type T, through its API and the dispatcher M. */
#define MESSAGE_CASE(T, M, VENC, PATH)                                                             \
    const char *result = NULL;                                                                     \
    size_t len = 0, w = 0, k;                                                                      \
    uint8_t *bytes = load(PATH, &len);                                                             \
    uint8_t *buf = NULL;                                                                           \
    wl_buf out;                                                                                    \
    wl_arena arena;                                                                                \
    wl_error err;                                                                                  \
    T value;                                                                                       \
    T##_view view;                                                                                 \
    M any;                                                                                         \
    wl_status st;                                                                                  \
    wl_buf_init(&out);                                                                             \
    wl_arena_init_heap(&arena);                                                                    \
    if (!bytes) FAIL("cannot read %s", PATH);                                                      \
    if (T##_decode_message(bytes, len, &value, &arena, &err) != WL_OK) FAIL_ERR("decode_message"); \
    if (T##_encode_message_buf(&value, &out, &err) != WL_OK) FAIL_ERR("encode_message_buf");       \
    if (out.len != len || memcmp(out.data, bytes, len) != 0) FAIL("encode_message gave different bytes"); \
    if (T##_size(&value) + 10 != len) FAIL("size + header differs from the message length");       \
    buf = (uint8_t *)malloc(len);                                                                  \
    if (T##_encode_message(&value, buf, len, &w, &err) != WL_OK || w != len ||                     \
        memcmp(buf, bytes, len) != 0)                                                              \
        FAIL("encode_message into a buffer differs");                                              \
    if (T##_encode_message(&value, buf, len - 1, &w, &err) != WL_ERR_BUFFER_TOO_SMALL)             \
        FAIL("encode_message accepted a too-small buffer");                                        \
    if (T##_decode_message_view(bytes, len, &view, &arena, &err) != WL_OK)                         \
        FAIL_ERR("decode_message_view");                                                           \
    wl_buf_clear(&out);                                                                            \
    if (VENC(&view, &out, &err) != WL_OK || out.len + 10 != len ||                                 \
        memcmp(out.data, bytes + 10, out.len) != 0)                                                \
        FAIL("the view decoder disagrees");                                                        \
    if (M##_decode(bytes, len, &any, &arena, &err) != WL_OK) FAIL_ERR("dispatcher decode");        \
    if (any.kind != T##_MESSAGE_ID) FAIL("the dispatcher picked type id %d", (int)any.kind);       \
    wl_buf_clear(&out);                                                                            \
    if (M##_encode_buf(&any, &out, &err) != WL_OK || out.len != len ||                             \
        memcmp(out.data, bytes, len) != 0)                                                         \
        FAIL("the dispatcher's encode gave different bytes");                                      \
    if (M##_encode(&any, buf, len, &w, &err) != WL_OK || w != len || memcmp(buf, bytes, len) != 0) \
        FAIL("the dispatcher's encode into a buffer differs");                                     \
    for (k = 0; k < len && k < 256; k++) {                                                         \
        uint8_t *t = copy_of(bytes, k, 0);                                                         \
        st = T##_decode_message(t, k, &value, &arena, &err);                                       \
        if (st != WL_OK && M##_decode(t, k, &any, &arena, &err) == WL_OK) st = WL_OK;               \
        if (st != WL_OK && T##_decode_message_view(t, k, &view, &arena, &err) == WL_OK) st = WL_OK; \
        free(t);                                                                                   \
        if (st == WL_OK) FAIL("decode accepted a truncation to %zu bytes", k);                     \
    }                                                                                              \
    {                                                                                              \
        uint8_t *t = copy_of(bytes, len, 1);                                                       \
        st = T##_decode_message(t, len + 1, &value, &arena, &err);                                 \
        if (st == WL_OK || M##_decode(t, len + 1, &any, &arena, &err) == WL_OK) st = WL_OK;        \
        free(t);                                                                                   \
        if (st == WL_OK) FAIL("decode accepted a trailing byte");                                  \
    }                                                                                              \
    snprintf(g_msg, sizeof g_msg, "1 record(s)");                                                  \
done:                                                                                              \
    free(bytes);                                                                                   \
    free(buf);                                                                                     \
    wl_buf_free(&out);                                                                             \
    wl_arena_free(&arena);                                                                         \
    return result;
"#;

/// Limits and hostile input (spec §4.2, §4.3), on a few generated types.
const SPECIAL_CHECKS: &str = r#"
static int path_is(const wl_error *e, const char *want) {
    char p[256];
    wl_error_path(e, p, sizeof p);
    return strcmp(p, want) == 0;
}

static const char *special_checks(void) {
    const char *result = NULL;
    wl_error err;
    wl_arena arena;
    wl_buf out;
    uint8_t small[64];
    unsigned char mem[256];
    char *big = (char *)malloc(65536);
    int32_t *ints = (int32_t *)calloc(65536, sizeof(int32_t));
    size_t w = 0, k;
    wl_arena_init_heap(&arena);
    wl_buf_init(&out);
    if (!big || !ints) FAIL("out of memory");
    memset(big, 'x', 65536);

    /* ffire: 65,535 is the limit for strings and arrays; encoders refuse more. */
    {
        wl_str s;
        ffi_array_string_canon_StringListMessage list;
        s.ptr = big;
        s.len = 65536;
        list.ptr = &s;
        list.len = 1;
        wl_buf_append(&out, "\x07", 1);
        if (ffi_array_string_canon_StringListMessage_encode_buf(&list, &out, &err) != WL_ERR_TOO_LONG ||
            err.value != 65536 || err.limit != 65535 || !path_is(&err, "[0]"))
            FAIL("a 65,536-byte ffire string was not refused");
        if (out.len != 1) FAIL("a failed encode left bytes in the buffer");
        if (ffi_array_string_canon_StringListMessage_size(&list) != 0) FAIL("size of an unencodable value");
        s.len = 65535;
        if (ffi_array_string_canon_StringListMessage_encode_buf(&list, &out, &err) != WL_OK)
            FAIL_ERR("a 65,535-byte ffire string");
        if (out.len != 1 + 2 + 2 + 65535) FAIL("65,535-byte string: %zu bytes", out.len);
    }
    {
        ffi_array_int_canon_IntListMessage list;
        uint8_t *buf = (uint8_t *)malloc(1 << 20);
        wl_status st;
        list.ptr = ints;
        list.len = 65536;
        st = ffi_array_int_canon_IntListMessage_encode(&list, buf, 1 << 20, &w, &err);
        if (st != WL_ERR_TOO_LONG) { free(buf); FAIL("a 65,536-element ffire array was encoded"); }
        list.len = 65535;
        st = ffi_array_int_canon_IntListMessage_encode(&list, buf, 1 << 20, &w, &err);
        free(buf);
        if (st != WL_OK || w != 2 + 4 * 65535) FAIL("a 65,535-element ffire array: %zu bytes", w);
    }

    /* A count the input cannot justify. */
    {
        static const uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
        sdp_arrays_ArraysOfPrimitives v;
        if (sdp_arrays_ArraysOfPrimitives_decode(huge, 4, &v, &arena, &err) != WL_ERR_COUNT ||
            err.value != 4294967295u || err.offset != 0 || !path_is(&err, "u8_array"))
            FAIL("huge count: %s", fail_err("", &err));
    }
    /* bool bytes other than 0/1. */
    {
        sdp_arrays_ArraysOfPrimitives v;
        sdp_arrays_ArraysOfPrimitives_view view;
        static const bool one[1] = {true};
        size_t last;
        memset(&v, 0, sizeof v);
        v.bool_array.ptr = one;
        v.bool_array.len = 1;
        if (sdp_arrays_ArraysOfPrimitives_encode(&v, small, sizeof small, &w, &err) != WL_OK) FAIL_ERR("encode");
        last = w - 1;
        small[last] = 2;
        if (sdp_arrays_ArraysOfPrimitives_decode(small, w, &v, &arena, &err) != WL_ERR_BOOL || err.value != 2 ||
            err.offset != last || !path_is(&err, "bool_array[0]"))
            FAIL("bad bool: %s", fail_err("", &err));
        if (sdp_arrays_ArraysOfPrimitives_decode_view(small, w, &view, &arena, &err) != WL_ERR_BOOL)
            FAIL("the view accepted bool 2");
    }
    /* A bool inside a fixed block, and inside a nested fixed struct. */
    {
        sdp_extra_Inner in;
        sdp_extra_Holder h;
        memset(&in, 0, sizeof in);
        if (sdp_extra_Inner_encode(&in, small, sizeof small, &w, &err) != WL_OK || w != 5) FAIL_ERR("encode Inner");
        small[4] = 7;
        if (sdp_extra_Inner_decode(small, w, &in, &arena, &err) != WL_ERR_BOOL || err.offset != 4 ||
            !path_is(&err, "okay"))
            FAIL("bad bool in a block: %s", fail_err("", &err));
        memset(&h, 0, sizeof h);
        if (sdp_extra_Holder_encode(&h, small, sizeof small, &w, &err) != WL_OK) FAIL_ERR("encode Holder");
        /* grid, names, maybe: 12 bytes of counts; boxed at 12: v (4) then okay */
        small[16] = 9;
        if (sdp_extra_Holder_decode(small, w, &h, &arena, &err) != WL_ERR_BOOL || err.offset != 16 ||
            !path_is(&err, "boxed.okay"))
            FAIL("bad bool in a nested struct: %s", fail_err("", &err));
    }
    /* Invalid UTF-8. */
    {
        sdp_arrays_Item item;
        item.id = 1;
        item.name.ptr = "ab";
        item.name.len = 2;
        if (sdp_arrays_Item_encode(&item, small, sizeof small, &w, &err) != WL_OK) FAIL_ERR("encode Item");
        small[9] = 0xff;
        if (sdp_arrays_Item_decode(small, w, &item, &arena, &err) != WL_ERR_UTF8 || err.offset != 9 ||
            !path_is(&err, "name"))
            FAIL("bad UTF-8: %s", fail_err("", &err));
        small[8] = 0xed; small[9] = 0xa0; /* a surrogate */
        if (sdp_arrays_Item_decode(small, w, &item, &arena, &err) != WL_ERR_UTF8) FAIL("a UTF-8 surrogate");
    }
    /* Presence bytes other than 0/1. */
    {
        sdp_optional_Request req;
        memset(&req, 0, sizeof req);
        req.id = 1;
        if (sdp_optional_Request_encode(&req, small, sizeof small, &w, &err) != WL_OK) FAIL_ERR("encode Request");
        small[4] = 2;
        if (sdp_optional_Request_decode(small, w, &req, &arena, &err) != WL_ERR_PRESENCE || err.offset != 4 ||
            !path_is(&err, "metadata"))
            FAIL("bad presence: %s", fail_err("", &err));
    }
    /* A fixed arena that is too small fails cleanly. */
    {
        sdp_arrays_ArraysOfStructs v;
        sdp_arrays_Item items[3];
        wl_arena tiny;
        size_t i;
        for (i = 0; i < 3; i++) {
            items[i].id = (uint32_t)i;
            items[i].name.ptr = "a longer name than fits";
            items[i].name.len = 23;
        }
        v.items.ptr = items;
        v.items.len = 3;
        v.count = 3;
        if (sdp_arrays_ArraysOfStructs_encode(&v, small, sizeof small, &w, &err) != WL_ERR_BUFFER_TOO_SMALL)
            FAIL("a 64-byte buffer held %zu bytes", w);
        wl_buf_clear(&out);
        if (sdp_arrays_ArraysOfStructs_encode_buf(&v, &out, &err) != WL_OK) FAIL_ERR("encode_buf");
        wl_arena_init(&tiny, mem, 64);
        if (sdp_arrays_ArraysOfStructs_decode(out.data, out.len, &v, &tiny, &err) != WL_ERR_NO_MEMORY)
            FAIL("a full arena: %s", fail_err("", &err));
        wl_arena_init(&tiny, mem, sizeof mem);
        if (sdp_arrays_ArraysOfStructs_decode(out.data, out.len, &v, &tiny, &err) != WL_OK) FAIL_ERR("arena");
        if (v.items.len != 3 || v.items.ptr[2].name.len != 23 || v.items.ptr[2].name.ptr[23] != '\0')
            FAIL("decoded into a fixed arena: wrong value");
        if (sdp_arrays_ArraysOfStructs_decode(out.data, out.len, &v, NULL, &err) != WL_ERR_NO_MEMORY)
            FAIL("decoding strings without an arena");
    }
    /* Message headers: magic, version, type id, length. */
    {
        sdp_arrays_Item item;
        sdp_arrays_Message any;
        uint8_t msg[64];
        size_t n;
        struct { size_t at; uint8_t byte; wl_status want; } bad[] = {
            {0, 'X', WL_ERR_MAGIC}, {3, '1', WL_ERR_VERSION}, {4, 99, WL_ERR_TYPE_ID},
        };
        item.id = 5;
        item.name.ptr = "five";
        item.name.len = 4;
        if (sdp_arrays_Item_encode_message(&item, msg, sizeof msg, &n, &err) != WL_OK) FAIL_ERR("encode_message");
        if (n != 22 || memcmp(msg, "SDP2\x02\x00\x0c\x00\x00\x00\x05\x00\x00\x00\x04\x00\x00\x00" "five", 22) != 0)
            FAIL("the spec example message differs");
        for (k = 0; k < 3; k++) {
            uint8_t m[64];
            memcpy(m, msg, n);
            m[bad[k].at] = bad[k].byte;
            if (sdp_arrays_Item_decode_message(m, n, &item, &arena, &err) != bad[k].want ||
                err.offset != bad[k].at)
                FAIL("bad header byte %zu: %s", bad[k].at, fail_err("", &err));
            if (sdp_arrays_Message_decode(m, n, &any, &arena, &err) != bad[k].want)
                FAIL("bad header byte %zu accepted by the dispatcher", bad[k].at);
        }
        for (k = 0; k < 2; k++) {
            uint8_t m[64];
            memcpy(m, msg, n);
            m[6] = (uint8_t)(k == 0 ? msg[6] + 1 : msg[6] - 1);
            /* Too long: more than the input holds. Too short: the payload ends early. */
            if (sdp_arrays_Item_decode_message(m, n, &item, &arena, &err) == WL_OK ||
                (k == 0 && (err.status != WL_ERR_LENGTH || err.offset != 6)) ||
                sdp_arrays_Message_decode(m, n, &any, &arena, &err) == WL_OK)
                FAIL("a wrong payload length was accepted: %s", fail_err("", &err));
        }
        any.kind = sdp_arrays_Message_NONE;
        if (sdp_arrays_Message_encode(&any, msg, sizeof msg, &n, &err) != WL_ERR_TYPE_ID)
            FAIL("the dispatcher encoded a message without a type");
    }
done:
    free(big);
    free(ints);
    wl_buf_free(&out);
    wl_arena_free(&arena);
    return result;
}
"#;

fn driver(modules: &[Module], cases: &[Case]) -> String {
    let mut s = String::new();
    for m in modules {
        for (name, _) in &m.files {
            if name.ends_with(".c") {
                let _ = writeln!(s, "#include \"{name}\"");
            }
        }
    }
    s.push_str(DRIVER_PRELUDE);
    s.push_str(SPECIAL_CHECKS);
    for (i, c) in cases.iter().enumerate() {
        let venc = if c.has_view {
            format!("{}_view_encode_buf", c.ty)
        } else {
            format!("{}_encode_buf", c.ty)
        };
        let path = format!("{:?}", c.bin.display().to_string());
        let body = if c.message {
            format!("MESSAGE_CASE({}, {}_Message, {venc}, {path})", c.ty, c.module)
        } else {
            format!("BYTE_CASE({}, {venc}, {path})", c.ty)
        };
        let _ = writeln!(s, "\nstatic const char *case_{i}(void) {{\n    {body}\n}}");
    }
    s.push_str("\nint main(void) {\n    int passed = 0, failed = 0;\n    const char *r;\n");
    s.push_str(
        "    r = special_checks();\n    if (r) { failed++; printf(\"FAIL special/limits-and-hostile-input: %s\\n\", r); }\n    else { passed++; printf(\"ok special/limits-and-hostile-input\\n\"); }\n",
    );
    for (i, c) in cases.iter().enumerate() {
        let _ = writeln!(
            s,
            "    r = case_{i}();\n    if (r) {{ failed++; printf(\"FAIL {name}: %s\\n\", r); }}\n    else {{ passed++; printf(\"ok {name} (%s)\\n\", g_msg); }}",
            name = c.name
        );
    }
    s.push_str("    printf(\"passed %d failed %d\\n\", passed, failed);\n    return failed == 0 ? 0 : 1;\n}\n");
    s
}

#[test]
fn generated_c_round_trips_every_golden_case() {
    let root = workspace();
    let vectors = root.join("tests/vectors");
    let gcc = compiler("WIRELENS_GCC", "gcc");
    let clang = compiler("WIRELENS_CLANG", "clang");
    let modules = modules(&vectors);
    // Removed with its contents when `tmp` drops (also when the test fails).
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-emit-c-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path().to_path_buf();
    let cases = cases(&vectors, &modules, &dir);
    let golden = cases.iter().filter(|c| !c.name.contains("extra")).count();
    assert_eq!(golden, 41, "golden cases found");
    for f in runtime_files() {
        std::fs::write(dir.join(&f.name), &f.contents).expect("write runtime");
    }
    for m in &modules {
        for (name, text) in &m.files {
            std::fs::write(dir.join(name), text).expect("write module");
        }
    }
    std::fs::write(dir.join("driver.c"), driver(&modules, &cases)).expect("write driver");

    // Sanitized builds at -O0 (quick to compile), and an optimised build (for the
    // warnings only gcc's optimiser finds) on the portable load/store path.
    let strict = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let sanitize = ["-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
    let builds: Vec<(String, Vec<String>)> = vec![
        (gcc.clone(), args(&sanitize)),
        (clang.clone(), args(&sanitize)),
        (gcc.clone(), args(&["-O2", "-DWL_LITTLE_ENDIAN=0"])),
    ];
    let handles: Vec<_> = builds
        .into_iter()
        .enumerate()
        .map(|(i, (cc, extra))| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let exe = dir.join(format!("driver{i}"));
                let mut cmd = Command::new(&cc);
                cmd.args(strict)
                    .args(&extra)
                    .arg("-I")
                    .arg(&dir)
                    .arg(dir.join("driver.c"))
                    .arg("-o")
                    .arg(&exe);
                let what = format!("{cc} {}", extra.join(" "));
                run(&mut cmd, &format!("compiling the generated C with {what}"));
                let stdout = run(
                    Command::new(&exe)
                        .current_dir(&dir)
                        .env("ASAN_OPTIONS", "detect_leaks=1"),
                    &format!("the driver built with {what}"),
                );
                (what, stdout)
            })
        })
        .collect();
    for h in handles {
        let (what, stdout) = h.join().expect("build thread");
        println!("== {what}\n{stdout}");
        let ok = stdout.lines().filter(|l| l.starts_with("ok ")).count();
        assert_eq!(ok, cases.len() + 1, "{what}:\n{stdout}");
        assert!(
            stdout.contains(&format!("passed {} failed 0", cases.len() + 1)),
            "{what}:\n{stdout}"
        );
    }
    if std::env::var_os("WIRELENS_KEEP_EMIT").is_some() {
        eprintln!("kept {}", tmp.keep().display());
    }
}

/// Snapshots of the generated C for a few schemas (the AudioUnit registry, ffire's
/// complex plugin list, and the two "every construct" schemas), so reviewers see the
/// code users get. `generated_snapshots.rs` can cover all shared schemas per language.
#[test]
fn generated_c_snapshots() {
    let vectors = workspace().join("tests/vectors");
    let mut inputs: Vec<(Dialect, String, String)> = Vec::new();
    for (dialect, dir, file) in [
        (Dialect::Sdp, "sdp", "audiounit.sdp"),
        (Dialect::Ffi, "ffi", "complex.ffi"),
    ] {
        let text = std::fs::read_to_string(vectors.join(dir).join("schemas").join(file)).expect("schema");
        inputs.push((dialect, file.to_string(), text));
    }
    inputs.push((Dialect::Sdp, "extra.sdp".into(), EXTRA_SDP.into()));
    inputs.push((Dialect::Ffi, "extra.ffi".into(), EXTRA_FFI.into()));
    for (dialect, file, text) in inputs {
        let a = analyze(dialect, &text, None, OrderChoice::default());
        let files = generate(&a.schema, &a.layout, &file).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(files.len(), 2, "{file}: a header and a source");
        for f in files {
            let stem = file.replace('.', "_");
            insta::assert_snapshot!(format!("c__{stem}__{}", f.name), f.contents);
        }
    }
}

/// The C example in `runtime/README.md` compiles (strict flags, sanitizers) against the
/// code generated for `examples/audiounit/plugin_registry.sdp`, and runs.
#[test]
fn runtime_readme_example_runs() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("runtime/README.md")).expect("runtime/README.md");
    let section = readme.split("\n## C (").nth(1).expect("a `## C (` section");
    let code = section
        .split("```c\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a ```c block in the C section");
    let schema = root.join("examples/audiounit/plugin_registry.sdp");
    let text = std::fs::read_to_string(&schema).expect("schema");
    let a = analyze(Dialect::Sdp, &text, None, OrderChoice::default());
    // Removed with its contents when `tmp` drops (also when the test fails).
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-c-readme-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path().to_path_buf();
    for f in generate(&a.schema, &a.layout, "plugin_registry.sdp")
        .expect("generate")
        .into_iter()
        .chain(runtime_files())
    {
        std::fs::write(dir.join(&f.name), f.contents).expect("write");
    }
    std::fs::write(
        dir.join("example.c"),
        format!("{code}\nint main(void) {{ return example(); }}\n"),
    )
    .expect("write example");
    let gcc = compiler("WIRELENS_GCC", "gcc");
    let exe = dir.join("example");
    run(
        Command::new(&gcc)
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O0", "-g"])
            .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
            .arg("-I")
            .arg(&dir)
            .arg(dir.join("example.c"))
            .arg(dir.join("plugin_registry.c"))
            .arg("-o")
            .arg(&exe),
        "compiling the runtime/README.md example",
    );
    let stdout = run(&mut Command::new(&exe), "the runtime/README.md example");
    assert_eq!(
        stdout,
        "AUFilter: 2 presets\nApple\nmessage with 1 plugin(s)\n\
         plugins[0].factory_presets[1]: count 8 x 1 byte(s) exceeds the 3 bytes left (at byte offset 73)\n",
        "{stdout}"
    );
}

/// Field names that are keywords of C or C++ and type names that collide with generated
/// names (`Foo` beside `FooView` and `Foo_view`): the C header compiles as C and when
/// included from C++ (g++ and clang++), and the generated C and C++ round-trip them.
#[test]
fn keywords_of_every_language_and_colliding_names_compile_in_c_and_cpp() {
    const SCHEMA: &str = "package names\n\ntype Top struct {\n\tA FooView\n\tB Foo_view\n\tC View\n}\n\n\
type Foo struct {\n\tNew int32\n\tClass string\n\tTemplate []int8\n\tDelete *int16\n\tThis bool\n\tOperator int8\n\tInt int8\n}\n\n\
type FooView struct {\n\tFoo Foo\n\tY int8\n}\n\ntype Foo_view struct {\n\tZ int8\n}\n\n\
type View struct {\n\tEncode int8\n\tMeasure int8\n}\n";
    let a = analyze(Dialect::Ffi, SCHEMA, None, OrderChoice::default());
    let dir = std::env::temp_dir().join(format!("wirelens-emit-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    for f in generate(&a.schema, &a.layout, "names.ffi")
        .expect("C generates")
        .into_iter()
        .chain(runtime_files())
        .chain(wirelens_generators::cpp::generate(&a.schema, &a.layout, "names_cpp.ffi").expect("C++ generates"))
        .chain(wirelens_generators::cpp::runtime_files())
    {
        std::fs::write(dir.join(&f.name), &f.contents).expect("write");
    }
    const C_MAIN: &str = r#"#include <string.h>
#include "names.h"
int c_side(void) {
    names_Foo f;
    names_FooView fv, back;
    names_Foo_view_ fw; /* the schema's Foo_view (Foo's view type is names_Foo_view) */
    uint8_t buf[256];
    size_t n = 0;
    memset(&f, 0, sizeof f);
    memset(&fw, 0, sizeof fw);
    f.new_ = 7;
    f.class_ = wl_str_from_cstr("c");
    f.this_ = true;
    f.int_ = 3;
    fv.foo = f;
    fv.y = 9;
    fw.z = 1;
    if (names_FooView_encode(&fv, buf, sizeof buf, &n, NULL) != WL_OK) return 1;
    {
        wl_arena arena;
        wl_arena_init_heap(&arena);
        if (names_FooView_decode(buf, n, &back, &arena, NULL) != WL_OK) return 3;
        if (back.foo.new_ != 7 || back.y != 9 || !back.foo.this_ || back.foo.int_ != 3) return 4;
        wl_arena_free(&arena);
    }
    if (names_Foo_view__encode(&fw, buf, sizeof buf, &n, NULL) != WL_OK || n != 1) return 5;
    {
        names_View v;
        v.encode = 1;
        v.measure = 2;
        return names_View_size(&v) == 2 ? 0 : 6;
    }
}
"#;
    const CPP_MAIN: &str = r#"#include <cstring>
#include <type_traits>
#include "names.h"
#include "names_cpp.hpp"
extern "C" int c_side(void);
int main() {
    names_Foo f;
    std::memset(&f, 0, sizeof f);
    f.new_ = 1;
    f.class_.ptr = "x";
    f.class_.len = 1;
    f.delete_.has = true;
    f.delete_.value = 2;
    f.template_.len = 0;
    f.operator_ = -1;
    if (names_Foo_size(&f) == 0) return 10;
    names_cpp::Foo g;
    g.new_ = 1;
    g.class_ = "x";
    g.delete_ = 2;
    g.operator_ = -1;
    names_cpp::FooView fv;  // the schema's FooView; Foo's view type is FooView__
    fv.foo = g;
    fv.y = 4;
    auto bytes = fv.to_bytes();
    if (!bytes) return 11;
    auto back = names_cpp::FooView::decode(bytes->data(), bytes->size());
    if (!back || !(*back == fv)) return 12;
    auto view = names_cpp::FooView::decode_view(bytes->data(), bytes->size());
    if (!view || !(view->to_owned() == fv) || view->foo.class_ != "x") return 13;
    names_cpp::FooView__ fview{};  // Foo::View
    static_assert(std::is_same_v<names_cpp::Foo::View, names_cpp::FooView__>, "Foo::View");
    (void)fview;
    names_cpp::FooView_ fw;
    fw.z = 5;
    if (fw.encoded_size() != 1) return 15;
    names_cpp::View_ v;
    v.encode_ = 1;
    v.measure_ = 2;
    if (v.encoded_size() != 2) return 14;
    return c_side();
}
"#;
    std::fs::write(dir.join("c_side.c"), C_MAIN).expect("write");
    std::fs::write(dir.join("main.cpp"), CPP_MAIN).expect("write");
    let strict = ["-Wall", "-Wextra", "-Werror", "-pedantic"];
    for (cc, cxx) in [
        (compiler("WIRELENS_GCC", "gcc"), "g++"),
        (compiler("WIRELENS_CLANG", "clang"), "clang++"),
    ] {
        let exe = dir.join(format!("names-{cxx}"));
        run(
            Command::new(&cc)
                .current_dir(&dir)
                .args(["-std=c11", "-c", "names.c", "-o", "names.o"])
                .args(strict),
            &format!("{cc} names.c"),
        );
        run(
            Command::new(&cc)
                .current_dir(&dir)
                .args(["-std=c11", "-c", "c_side.c", "-o", "c_side.o"])
                .args(strict),
            &format!("{cc} c_side.c"),
        );
        run(
            Command::new(cxx)
                .current_dir(&dir)
                .args(["-std=c++17", "main.cpp", "names.o", "c_side.o", "-o"])
                .arg(&exe)
                .args(strict),
            &format!("{cxx} main.cpp including the C header"),
        );
        let st = Command::new(&exe).status().expect("run");
        assert_eq!(st.code(), Some(0), "{cxx} build: the round trip failed");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
