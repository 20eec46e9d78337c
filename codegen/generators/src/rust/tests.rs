use super::{generate, generate_with, ident, RustOptions};
use crate::{EmitError, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::{analyze, OrderChoice};

fn gen(dialect: Dialect, text: &str) -> Result<String, EmitError> {
    let a = analyze(dialect, text, None, OrderChoice::default());
    generate(&a.schema, &a.layout, "test")
}

#[test]
fn keywords_are_escaped_never_rejected() {
    assert_eq!(ident("type"), "r#type");
    assert_eq!(ident("self"), "self_");
    assert_eq!(ident("Self"), "Self_");
    assert_eq!(ident("name"), "name");
    let code = gen(
        Dialect::Ffi,
        "package p\ntype Thing struct {\n\tType string\n\tSelf int32\n\tMatch bool\n}\n",
    )
    .expect("generates");
    assert!(code.starts_with(GENERATED_HEADER));
    assert!(code.contains("pub r#type: String,"), "{code}");
    assert!(code.contains("pub self_: i32,"), "{code}");
    assert!(code.contains("pub r#match: bool,"), "{code}");
    assert!(code.contains("pub struct ThingMessage {"), "{code}");
}

#[test]
fn wire_order_and_layout_comment_come_from_the_layout() {
    let code = gen(
        Dialect::Ffi,
        "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
    )
    .expect("generates");
    // canonical: Id (8-byte), Flag (1-byte), Name (variable)
    let id = code.find("let id = ").expect("id");
    let flag = code.find("let flag = ").expect("flag");
    let name = code.find("let name = ").expect("name");
    assert!(id < flag && flag < name, "{code}");
    assert!(code.contains("Fixed blocks: 9 B at 0."), "{code}");
    assert!(code.contains("let b0 = rd.fixed::<9>()"), "{code}");
}

#[test]
fn schemas_with_errors_are_refused() {
    let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
    assert!(err.0.contains("no layout for A"), "{err}");
}

#[test]
fn plain_options_write_field_by_field() {
    let text = "struct P { x: u32, ok: bool, vs: []f64 }";
    let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
    let fast = generate(&a.schema, &a.layout, "test").expect("generates");
    let plain = generate_with(&a.schema, &a.layout, "test", &RustOptions::PLAIN).expect("generates");
    assert!(
        fast.contains("rd.fixed::<5>()") && fast.contains("w.prims32(self.vs.as_slice())?;"),
        "{fast}"
    );
    assert!(
        !plain.contains("rd.fixed::<") && !plain.contains("put_prims(") && !plain.contains("w.prims"),
        "{plain}"
    );
    assert!(plain.contains("let f_x = rd.u32()"), "{plain}"); // `x` is reserved (x0, x1…)
    assert!(plain.contains("let ok = rd.bool()"), "{plain}");
    assert!(plain.contains("w.put_prim(*x0);"), "{plain}");
}

#[test]
fn decoders_and_writers_of_array_elements_are_inlined() {
    // `E` is an element (inside an option too: `O`), `N` only a nested field.
    let text = "struct E { s: str }\nstruct O { s: str }\nstruct N { s: str }\n\
                struct H { es: []E, os: []Option<O>, n: N }";
    let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
    let fast = generate(&a.schema, &a.layout, "test").expect("generates");
    let inlined = |code: &str, ty: &str| {
        let head = format!("for {ty} {{\n    #[inline(always)]\n    fn read_from(");
        let view = format!("for {ty}View<'a> {{\n    #[inline(always)]\n    fn read_from(");
        let write = "    #[inline(always)]\n    fn write_to<'w>(&self, mut w: rt::Writer<'w>)";
        let write = code.split(&format!("impl rt::Message for {ty} {{")).nth(1).map(|rest| {
            let body = rest.split("\n}\n").next().unwrap_or("");
            body.contains(write)
        });
        (code.contains(&head), code.contains(&view), write == Some(true))
    };
    assert_eq!(inlined(&fast, "E"), (true, true, true), "{fast}");
    assert_eq!(inlined(&fast, "O"), (true, true, true), "{fast}");
    assert_eq!(inlined(&fast, "N"), (false, false, false), "{fast}");
    assert_eq!(inlined(&fast, "H"), (false, false, false), "{fast}");
    let plain = generate_with(&a.schema, &a.layout, "test", &RustOptions::PLAIN).expect("generates");
    assert!(!plain.contains("#[inline(always)]"), "{plain}");
}

#[test]
fn sdp_structs_are_messages_with_a_dispatcher() {
    let code = gen(Dialect::Sdp, "struct AnyMessage { x: u8 }\nstruct B { s: str }").expect("generates");
    assert!(code.contains("pub struct AnyMessageType {"), "{code}");
    assert!(
        code.contains("impl rt::SdpMessage for B {\n    const MESSAGE_ID: u16 = 2;"),
        "{code}"
    );
    assert!(code.contains("pub enum AnyMessage {"), "{code}");
    assert!(code.contains("impl rt::Dispatch for AnyMessage {"), "{code}");
    assert!(code.contains("2 => B::read_from(rd).map(Self::B),"), "{code}");
}
