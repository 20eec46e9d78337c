use super::generate;
use super::names::ident;
use super::share::shared_bodies;
use crate::{EmitError, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::{analyze, OrderChoice};

fn gen(dialect: Dialect, text: &str) -> Result<(String, String), EmitError> {
    let a = analyze(dialect, text, None, OrderChoice::default());
    let files = generate(&a.schema, &a.layout, "test.x")?;
    Ok((files[0].contents.clone(), files[1].contents.clone()))
}

#[test]
fn keywords_are_escaped_never_rejected() {
    assert_eq!(ident("int"), "int_");
    assert_eq!(ident("default"), "default_");
    assert_eq!(ident("bool"), "bool_");
    assert_eq!(ident("name"), "name");
    assert_eq!(ident("__x"), "x__x");
    assert_eq!(ident("größe"), "gr_u00F6_u00DFe");
    let (h, c) = gen(
        Dialect::Ffi,
        "package p\ntype Thing struct {\n\tInt string\n\tStruct int32\n\tDefault bool\n}\n",
    )
    .expect("generates");
    assert!(h.starts_with(GENERATED_HEADER) && c.starts_with(GENERATED_HEADER));
    assert!(h.contains("wl_str int_;"), "{h}");
    assert!(h.contains("int32_t struct_;"), "{h}");
    assert!(h.contains("bool default_;"), "{h}");
    assert!(h.contains("struct test_ThingMessage {"), "{h}");
}

#[test]
fn wire_order_and_blocks_come_from_the_layout() {
    let (h, c) = gen(
        Dialect::Ffi,
        "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
    )
    .expect("generates");
    // canonical: Id (8-byte), Flag (1-byte), Name (variable); one 9-byte block.
    assert!(h.contains("Fixed blocks: 9 B at 0."), "{h}");
    let id = c.find("out->id = wl_get_i64(p);").expect("id");
    let flag = c.find("out->flag = p[8] != 0;").expect("flag");
    let name = c.find("&out->name) != WL_OK").expect("name");
    assert!(id < flag && flag < name, "{c}");
    assert!(
        c.contains("if (rd->len - rd->at < 9) { return wl_rd_end(rd, 9, \"Id\"); }"),
        "{c}"
    );
}

#[test]
fn schemas_with_errors_are_refused() {
    let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
    assert!(err.0.contains("no layout for A"), "{err}");
}

#[test]
fn names_that_clash_with_generated_ones_are_escaped() {
    let (h, _) = gen(
        Dialect::Sdp,
        "struct A { x: u8 }\nstruct A_size { y: u8 }\nstruct Message { z: [][]A }\n",
    )
    .expect("generates");
    assert!(h.contains("struct test_A_size_ {"), "{h}");
    assert!(h.contains("struct test_Message_ {"), "{h}");
    assert!(h.contains("typedef struct test_Message {"), "{h}");
    assert!(h.contains("typedef struct test_A_array_array {"), "{h}");
    assert!(h.contains("test_A_size__MESSAGE_ID = 2,"), "{h}");
}

#[test]
fn the_public_api_is_macros_over_the_runtime_tables() {
    let (h, c) = gen(
        Dialect::Sdp,
        "struct A { s: str, v: []u16 }\nstruct B { a: A, n: u8 }\n",
    )
    .expect("generates");
    // Per type only measure/write/read are compiled, behind two tables.
    assert!(c.contains("const wl_type test_A_type = {test_A_measure, test_A_write, test_A_read, sizeof(test_A), test_A_MESSAGE_ID,"), "{c}");
    assert!(c.contains("const wl_type test_A_view_type = {test_A_view_measure, test_A_view_write, test_A_view_read, sizeof(test_A_view),"), "{c}");
    assert!(
        !c.contains("_measure_any") && !c.contains("_read_any"),
        "no adapters: {c}"
    );
    assert!(
        !c.contains("wl_status test_A_encode") && !c.contains("wl_status test_A_decode"),
        "no per-type wrappers: {c}"
    );
    assert!(h.contains("extern const wl_type test_A_type, test_A_view_type;"), "{h}");
    assert!(
        h.contains("#define test_A_encode_buf(...) WL_ENCB_(test_A, false, __VA_ARGS__)\n"),
        "{h}"
    );
    assert!(
        h.contains("#define test_B_decode_message_view_prefix(...) WL_DECP_(test_B_view, true, __VA_ARGS__)\n"),
        "{h}"
    );
    assert!(h.contains("//   wl_status T_decode_prefix(const uint8_t *buf, size_t len, T *out, size_t *used, wl_arena *arena, wl_error *err)\n"), "{h}");
    // The dispatcher: one table by type id, no switch.
    assert!(
        c.contains("static const wl_type *const test_Message_types[3] = {"),
        "{c}"
    );
    assert!(!c.contains("switch"), "{c}");
}

#[test]
fn every_if_body_is_braced() {
    let schema = "struct A { s: str, v: []u16, b: bool, o: ?B, l: [][]B }\nstruct B { x: u8, y: bool }\nstruct C { a: A, b: B }\n";
    let (_, c) = gen(Dialect::Sdp, schema).expect("generates");
    for line in c.lines() {
        let l = line.trim_end_matches(" \\");
        if l.trim_start().starts_with("if (") {
            assert!(l.ends_with('{') || l.ends_with('}'), "unbraced: {line}");
        }
    }
}

#[test]
fn runs_of_fields_laid_out_as_on_the_wire_are_one_copy() {
    // R's a..d: one run (a u64, then narrower members at multiples of their size); x is
    // alone (e is wider than x, so the C compiler may pad before it); e..f a run;
    // g..i a run with bools.
    let (_, c) = gen(
        Dialect::Sdp,
        "struct R { a: u64, b: u32, c: u16, d: u8, s: str, x: u8, e: u32, f: f32, t: str, g: u8, h: bool, i: bool }\n\
         struct Top { rs: []R, a: u64, b: u32 }\n",
    )
    .expect("generates");
    let run = "WL_LITTLE_ENDIAN && WL_AT(test_R, a, b, 8) && WL_AT(test_R, a, c, 12) && WL_AT(test_R, a, d, 14)";
    assert!(c.contains(&format!("if ({run}) {{")), "{c}");
    assert!(
        c.contains("memcpy(p, (const uint8_t *)v + offsetof(test_R, a), 15);"),
        "{c}"
    );
    assert!(
        c.contains("memcpy((uint8_t *)out + offsetof(test_R, a), p, 15);"),
        "{c}"
    );
    assert!(c.contains("if (WL_LITTLE_ENDIAN && WL_AT(test_R, e, f, 4)) {"), "{c}");
    assert!(
        c.contains("memcpy(p + 1, (const uint8_t *)v + offsetof(test_R, e), 8);"),
        "{c}"
    );
    assert!(!c.contains("WL_AT(test_R, x,"), "{c}");
    // Bools are checked before the copy, in wire order.
    let bools = "WL_LITTLE_ENDIAN && sizeof(bool) == 1 && WL_AT(test_R, g, h, 1) && WL_AT(test_R, g, i, 2)";
    let copy = c
        .find(&format!("if ({bools}) {{\n            memcpy((uint8_t *)out"))
        .expect("bool run read");
    let (h, i) = (
        c.find("\"h\"); }").expect("h check"),
        c.find("\"i\"); }").expect("i check"),
    );
    assert!(h < i && i < copy, "{c}");
    // The field-by-field code stays as the fallback (another ABI, a big-endian host).
    assert!(c.contains("wl_put_u16(p + 12, v->c);"), "{c}");
    // Only array elements get runs (coded many times; the fallback costs text).
    assert!(!c.contains("WL_AT(test_Top,"), "{c}");
}

#[test]
fn only_elements_of_one_array_are_forced_inline() {
    let (_, c) = gen(
        Dialect::Sdp,
        "struct E { s: str }\nstruct Twice { s: str }\nstruct Also { s: str }\n\
         struct R { es: []E, t1: []Twice, t2: []Twice, a: []Also, a1: Also }\n",
    )
    .expect("generates");
    for f in [
        "size_t test_E_measure(",
        "uint8_t *test_E_write(",
        "wl_status test_E_read(",
    ] {
        assert!(c.contains(&format!("WL__ELEM {f}")), "{f}: {c}");
    }
    // Two arrays, an array and a field: left to the compiler.
    for t in ["Twice", "Also"] {
        assert!(c.contains(&format!("static size_t test_{t}_measure(")), "{t}: {c}");
        assert!(!c.contains(&format!("WL__ELEM wl_status test_{t}")), "{t}: {c}");
    }
}

#[test]
fn arrays_are_zero_filled_only_when_reading_leaves_members_unwritten() {
    let (_, c) = gen(
        Dialect::Sdp,
        "struct P { x: i32, s: str, l: []u8 }\nstruct O { o: Option<i32> }\nstruct N { p: P, o: O }\n\
         struct R { ps: []P, os: []O, ns: []N, ss: []str, ls: [][]P, opts: []Option<P> }\n",
    )
    .expect("generates");
    // Every member of P (and of strings and arrays) is written by a successful read.
    // (P has a view: its functions are one text over `WL_V`, see shared_bodies.)
    for ty in ["test_P##WL_V", "wl_str", "test_P##WL_V##_array"] {
        assert!(c.contains(&format!("({ty} *)wl_rd_alloc(rd, ")), "{ty}: {c}");
    }
    // An absent optional leaves its payload unwritten, also inside a nested struct.
    for ty in ["test_O", "test_N##WL_V", "test_P##WL_V##_opt"] {
        assert!(c.contains(&format!("({ty} *)wl_rd_alloc_zero(rd, ")), "{ty}: {c}");
    }
}

#[test]
fn view_functions_share_the_owned_text() {
    let (_, c) = gen(
        Dialect::Sdp,
        "struct A { s: str, v: []u16 }\nstruct B { a: A, l: []A }\n",
    )
    .expect("generates");
    assert!(c.contains("#define test_B_CODEC_(WL_V, WL_K) \\\n"), "{c}");
    assert!(c.contains("    p = wl_put_u16_##WL_K(p, 4, v->v); \\\n"), "{c}");
    assert!(c.contains("test_A##WL_V##_read(rd, &out->a)"), "{c}");
    assert!(c.contains("test_A##WL_V *a0 = NULL;"), "{c}");
    assert!(
        c.contains("test_B_CODEC_(, array)\ntest_B_CODEC_(_view, view)\n#undef test_B_CODEC_\n"),
        "{c}"
    );
    assert!(
        !c.contains("static wl_status test_A_view_read"),
        "one text per function: {c}"
    );
    // A pair of names without either pattern is a parameter; parameter names avoid the body's.
    let t = shared_bodies("M", "int WL_V = f(x_array);\n", "int WL_V = g(x_view);\n").expect("shares");
    assert_eq!(
        t,
        "#define M(WL_V_, WL_K, WL_P0) \\\nint WL_V = WL_P0(x_##WL_K);\nM(, array, f)\nM(_view, view, g)\n#undef M\n"
    );
    // Texts that differ in anything but identifiers, or hold a comment, stay apart.
    assert_eq!(shared_bodies("M", "f(1);\n", "f(2);\n"), None);
    assert_eq!(shared_bodies("M", "f(a);\n", "f(a, b);\n"), None);
    assert_eq!(shared_bodies("M", "f(a); // x\n", "f(b); // x\n"), None);
}
