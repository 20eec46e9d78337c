use super::{generate, ident, runtime_files};
use crate::{EmitError, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::{analyze, OrderChoice};

fn gen(dialect: Dialect, text: &str) -> Result<String, EmitError> {
    let a = analyze(dialect, text, None, OrderChoice::default());
    let files = generate(&a.schema, &a.layout, "test.x")?;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "test.hpp");
    Ok(files[0].contents.clone())
}

#[test]
fn keywords_and_member_names_are_escaped_never_rejected() {
    assert_eq!(ident("class"), "class_");
    assert_eq!(ident("uint8_t"), "uint8_t_");
    assert_eq!(ident("name"), "name");
    let code = gen(
        Dialect::Ffi,
        "package p\ntype Thing struct {\n\tClass string\n\tDefault int32\n\tEncode bool\n\tNamespace int8\n}\n",
    )
    .expect("generates");
    assert!(code.starts_with(GENERATED_HEADER));
    assert!(code.contains("std::string class_{};"), "{code}");
    assert!(code.contains("int32_t default_{};"), "{code}");
    assert!(code.contains("bool encode_{};"), "{code}");
    assert!(code.contains("int8_t namespace_{};"), "{code}");
    assert!(code.contains("struct ThingMessage {"), "{code}");
    assert!(code.contains("namespace test {"), "{code}");
    assert!(!code.contains("throw"), "{code}");
}

#[test]
fn write_to_is_forced_inline_only_where_it_has_one_writer_and_several_values() {
    let code = gen(
        Dialect::Sdp,
        "struct Once { a: str, b: str }\nstruct Twice { a: str, b: str }\n\
         struct Small { a: str }\n\
         struct Root { once: []Once, t1: Twice, t2: []Twice, small: []Small }\n",
    )
    .expect("generates");
    assert!(code.contains("WIRELENS_HOT bool Once::write_to("), "{code}");
    assert!(code.contains("inline bool Twice::write_to("), "{code}");
    assert!(code.contains("inline bool Small::write_to("), "{code}");
    assert!(code.contains("inline bool Root::write_to("), "{code}");
}

#[test]
fn reads_are_forced_inline_only_for_leaf_structs_read_in_one_loop() {
    // Leaf: only element of one array, no loop over structs inside. Twice: two loops.
    // Field: not an element. Outer: loops over Leaf itself. Opt: element whose optional
    // array of strings is a loop, but not over structs.
    let code = gen(
        Dialect::Sdp,
        "struct Leaf { a: str, b: u32 }\nstruct Twice { a: str }\nstruct Field { a: str }\n\
         struct Opt { a: ?[]str }\nstruct Outer { leaves: []Leaf, a: str }\n\
         struct Root { outers: []Outer, t1: []Twice, t2: []Twice, f: Field, opts: []Opt }\n",
    )
    .expect("generates");
    for hot in ["Leaf", "Opt"] {
        assert!(
            code.contains(&format!("WIRELENS_HOT bool {hot}::read_fields(")),
            "{hot}: {code}"
        );
        assert!(
            code.contains(&format!(
                "WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {hot}View& v)"
            )),
            "{hot}: {code}"
        );
        // The owned read_from too.
        assert!(
            code.contains(&format!(
                "    WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {hot}& v) {{"
            )),
            "{hot}: {code}"
        );
    }
    for call in ["Twice", "Field", "Outer", "Root"] {
        assert!(code.contains(&format!("\nbool {call}::read_fields(")), "{call}: {code}");
        assert!(
            !code.contains(&format!(
                "WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {call}View& v)"
            )),
            "{call}: {code}"
        );
    }
}

#[test]
fn runs_of_members_laid_out_as_on_the_wire_are_one_copy_in_array_elements_both_ways() {
    // R's a..d: one run (a u64, then narrower members at multiples of their size); x is
    // alone (e is wider than x, so the compiler may pad before it); e..f a run; g..i a
    // run with bools. Top has the same fields but is not only an array element.
    let fields = "a: u64, b: u32, c: u16, d: u8, s: str, x: u8, e: u32, f: f32, t: str, g: u8, h: bool, i: bool";
    let code = gen(
        Dialect::Sdp,
        &format!("struct R {{ {fields} }}\nstruct Top {{ {fields} }}\nstruct Root {{ rs: []R, top: Top }}\n"),
    )
    .expect("generates");
    let r = &code[code.find("bool R::write_to(").expect("R::write_to")..];
    let r = &r[..r.find("\n}\n").expect("end of R::write_to")];
    assert!(r.contains("wirelens::run_start<R>("), "{r}");
    assert!(r.contains("const size_t a = offsetof(T, a);"), "{r}");
    assert!(
        r.contains("return offsetof(T, b) == a + 8 && offsetof(T, c) == a + 12 && offsetof(T, d) == a + 14 ? a : wirelens::no_run;"),
        "{r}"
    );
    assert!(r.contains("wirelens::store_run(b0, v, r0, 15);"), "{r}");
    assert!(
        r.contains("return offsetof(T, f) == a + 4 ? a : wirelens::no_run;"),
        "{r}"
    );
    assert!(r.contains("wirelens::store_run(b1 + 1, v, r1, 8);"), "{r}");
    assert!(!r.contains("offsetof(T, x)"), "{r}");
    assert!(
        r.contains(
            "return sizeof(bool) == 1 && offsetof(T, h) == a + 1 && offsetof(T, i) == a + 2 ? a : wirelens::no_run;"
        ),
        "{r}"
    );
    assert!(r.contains("wirelens::store_run(b2, v, r2, 3);"), "{r}");
    // The member-by-member stores stay as the fallback (another ABI, a big-endian host).
    assert!(
        r.contains("} else {\n        wirelens::store_le(b0, v.a);\n        wirelens::store_le(b0 + 8, v.b);"),
        "{r}"
    );
    // Reading: the bools are checked first, in wire order, then one copy into V.
    let r = &code[code.find("bool R::read_fields(").expect("R::read_fields")..];
    let r = &r[..r.find("\n}\n").expect("end of R::read_fields")];
    assert!(r.contains("wirelens::run_start<Wl_V>("), "{r}");
    assert!(r.contains("wirelens::load_run(b0, v, r0, 15);"), "{r}");
    let (h, i, copy) = (
        r.find("if (!rd.block_bool_ok(b2 + 1)) return rd.field(\"h\");")
            .expect("h"),
        r.find("if (!rd.block_bool_ok(b2 + 2)) return rd.field(\"i\");")
            .expect("i"),
        r.find("wirelens::load_run(b2, v, r2, 3);").expect("bool run copy"),
    );
    assert!(h < i && i < copy, "{r}");
    let top = &code[code.find("bool Top::write_to(").expect("Top::write_to")..];
    let top = &top[..top.find("\n}\n").expect("end of Top::write_to")];
    assert!(!top.contains("run_start"), "{top}");
    assert!(top.contains("wirelens::store_le(b0 + 12, v.c);"), "{top}");
}

#[test]
fn wire_order_and_blocks_come_from_the_layout() {
    let code = gen(
        Dialect::Ffi,
        "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
    )
    .expect("generates");
    // canonical: Id (8-byte), Flag (1-byte), Name (variable)
    assert!(code.contains("Fixed blocks: 9 B at 0."), "{code}");
    assert!(code.contains("const uint8_t* b0 = rd.fixed(9);"), "{code}");
    let id = code.find("wirelens::load_le(b0, v.id);").expect("id");
    let flag = code.find("rd.block_bool(b0 + 8, v.flag)").expect("flag");
    let name = code.find("rd.str16(v.name)").expect("name");
    assert!(id < flag && flag < name, "{code}");
}

#[test]
fn schemas_with_errors_are_refused() {
    let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
    assert!(err.0.contains("no layout for A"), "{err}");
}

#[test]
fn sdp_structs_are_messages_with_a_dispatcher() {
    let code = gen(Dialect::Sdp, "struct AnyMessage { x: u8 }\nstruct B { s: str }").expect("generates");
    assert!(code.contains("struct AnyMessage_ {"), "{code}");
    assert!(code.contains("static constexpr uint16_t MESSAGE_ID = 2;"), "{code}");
    assert!(!code.contains("std::variant"), "{code}");
    assert!(
        code.contains(
            "case 2: return wirelens::visit_message<wirelens::owned_or_view<Wl_View, B>>(rd, h, exact, visit);"
        ),
        "{code}"
    );
}

#[test]
fn dependencies_come_first() {
    let code = gen(
        Dialect::Sdp,
        "struct A { b: B }\nstruct B { c: []C }\nstruct C { x: u8 }",
    )
    .expect("generates");
    let a = code.find("\nstruct A {").expect("A");
    let b = code.find("\nstruct B {").expect("B");
    let c = code.find("\nstruct C {").expect("C");
    assert!(c < b && b < a, "{code}");
}

#[test]
fn runtime_is_the_header() {
    let files = runtime_files();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "wirelens.hpp");
    assert!(files[0].contents.contains("namespace wirelens"));
    // No `throw` statement (traits like `is_nothrow_move_constructible` are fine).
    let throws = files[0]
        .contents
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|token| token == "throw");
    assert!(!throws);
}
