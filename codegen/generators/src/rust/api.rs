//! What the module offers per type and as a whole: the header (which traits every type
//! implements), per value type `impl rt::Message` (`encoded_size`, `write_to`),
//! `impl rt::Decode` for `T` and `TView` (`read_from`), SDP `impl rt::SdpMessage`
//! (`MESSAGE_ID`), and one `AnyMessage` enum with `impl rt::Dispatch`. `encode`,
//! `encode_into`, `to_bytes`, `decode`, `decode_prefix`, `decode_view`, the message
//! methods and the dispatcher's `decode` are the traits' default methods in
//! `wirelens-runtime`, written once (as `prost::Message` does it).

use super::names::{acronym_allow, is_acronym, DEAD_CODE};
use super::plan::Gen;
use crate::{Code, OwnedStrings, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::TypeLayout;
use wirelens_core::model::TypeId;

/// Drops blank lines before a closing brace.
fn trim_blank(c: &mut Code) {
    while c.out.ends_with("\n\n") {
        c.out.pop();
    }
}

impl Gen<'_> {
    pub(super) fn header(&self, c: &mut Code, source: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!(
            "// Source: {source} ({order}). Runtime: the `wirelens-runtime` crate."
        ));
        c.linef(format_args!("// Encoders and decoders for `{source}` ({order})."));
        c.line("//");
        c.line("// Every type implements `wirelens_runtime::Message` (`encoded_size`, `encode` appending to a");
        c.line("// reusable `Vec<u8>`, `encode_into` a caller buffer, `to_bytes`, `decode` rejecting trailing");
        c.line("// bytes, `decode_prefix` for back-to-back records, `decode_view`: zero-copy, strings and");
        c.line("// primitive arrays borrow the input); bring the trait into scope to call them.");
        if self.sdp() {
            c.line("// Every struct is also an `SdpMessage` (`encode_message`, `decode_message`); `AnyMessage`");
            c.line("// (`Dispatch`) decodes any of them by type id. `Box<T>` has no effect on the wire and is");
            c.line("// generated as `T`.");
        } else {
            c.linef(format_args!(
                "// Strings and arrays are limited to {} bytes / elements: encoders refuse longer ones.",
                "65,535"
            ));
        }
        c.line("// `#[allow(dead_code)]` on the items: a crate may use only part of a schema.");
        if self.opts.strings == OwnedStrings::Compact {
            c.line("// Owned strings are `rt::CompactString` (inline up to 24 bytes): enable the runtime's");
            c.line("// `compact-strings` feature.");
        }
        if self.arena() {
            c.line("// Views keep their arrays in an `rt::Arena` (`memory = \"arena\"`): enable the runtime's `arena`");
            c.line("// feature and decode them with `decode_view_in(bytes, &arena)`; `arena.reset()` between decodes.");
        }
        c.blank();
        c.line("use wirelens_runtime as rt;");
        c.line("#[allow(unused_imports)] // `Vec`/`String` for `no_std` crates; the std prelude has them too");
        c.line("use rt::prelude::*;");
        let traits = if self.sdp() {
            "At as _, Decode as _, Message as _, SdpMessage as _"
        } else {
            "At as _, Decode as _, Message as _"
        };
        c.line("#[allow(unused_imports)] // the traits whose methods this module calls");
        c.linef(format_args!("use rt::{{{traits}}};"));
    }

    pub(super) fn value_type(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let def = &self.schema.types[id];
        let name = self.name(id);
        let members = self.members(id, t);
        let borrows = self.borrows(&t.wire);
        self.declarations(c, id, t);
        let Some(p) = self.plan_of(id) else {
            return;
        };
        let fixed_struct = t.size.fixed.is_some() && def.is_struct();
        if t.size.fixed.is_some() || fixed_struct || !borrows {
            c.blank();
            c.line(DEAD_CODE);
            c.open(&format!("impl {name} {{"));
            if let Some(n) = t.size.fixed {
                c.line("/// The encoded size (every value has it).");
                c.linef(format_args!("pub const SIZE: usize = {n};"));
                c.blank();
            }
            if fixed_struct {
                self.block_fns(c, p);
            }
            if !borrows {
                c.line("/// Views of types without strings or arrays are the owned values.");
                c.open("pub fn to_owned_value(&self) -> Self {");
                c.line("self.clone()");
                c.close("}");
            }
            trim_blank(c);
            c.close("}");
        }
        let view = if borrows {
            format!("{}<'a>", self.view_name(id))
        } else {
            "Self".into()
        };
        c.blank();
        c.open(&format!("impl rt::Message for {name} {{"));
        c.linef(format_args!("type View<'a> = {view};"));
        if borrows && self.arena() {
            c.line("const VIEW_IN_ARENA: bool = true;");
        }
        c.blank();
        self.encoded_size(c, p);
        self.write_to(c, p);
        trim_blank(c);
        c.close("}");
        c.blank();
        c.open(&format!("impl<'a> rt::Decode<'a> for {name} {{"));
        self.read_from(c, p, false);
        c.blank();
        self.read_into(c, p);
        trim_blank(c);
        c.close("}");
        if let Some(mid) = t.message_id {
            c.blank();
            c.open(&format!("impl rt::SdpMessage for {name} {{"));
            c.linef(format_args!("const MESSAGE_ID: u16 = {mid};"));
            c.close("}");
        }
        if borrows {
            let view = self.view_name(id);
            c.blank();
            c.open(&format!("impl<'a> rt::Decode<'a> for {view}<'a> {{"));
            self.read_from(c, p, true);
            c.close("}");
            c.blank();
            c.line(DEAD_CODE);
            c.open(&format!("impl {view}<'_> {{"));
            c.line("/// Copies the view into an owned value.");
            c.open(&format!("pub fn to_owned_value(&self) -> {name} {{"));
            if def.is_struct() {
                c.open(&format!("{name} {{"));
                for m in &members {
                    let mut conv = self.conv(&format!("self.{}", m.access), false, &m.wire, 0);
                    // A boxed field's view holds a boxed view: converted, then boxed.
                    if let (Some(i), true) = (m.decl, self.view_ty(&m.wire) != self.owned_ty(&m.wire)) {
                        conv = self.rebox(id, i, conv);
                    }
                    c.linef(format_args!("{}: {conv},", m.access));
                }
                c.close("}");
            } else {
                c.linef(format_args!("{name}({})", self.conv("self.0", false, &t.wire, 0)));
            }
            c.close("}");
            c.close("}");
        }
    }

    pub(super) fn dispatcher(&self, c: &mut Code) {
        let structs: Vec<(TypeId, String, u16)> = self
            .schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, _)| {
                let t = self.layout.get(id)?;
                Some((id, self.name(id), t.message_id?))
            })
            .collect();
        if structs.is_empty() {
            return;
        }
        c.blank();
        c.line("/// Any message of this schema, by SDP type id (`rt::Dispatch`: `decode`, `decode_prefix`,");
        c.line("/// `encode`, `message_id`).");
        c.line("#[derive(Debug, Clone, PartialEq)]");
        c.line("#[allow(clippy::large_enum_variant)] // values are built once and matched, not stored in bulk");
        c.line(DEAD_CODE);
        if let Some((_, name, _)) = structs.iter().find(|(_, n, _)| is_acronym(n)) {
            acronym_allow(c, name);
        }
        c.open("pub enum AnyMessage {");
        for (_, name, id) in &structs {
            c.linef(format_args!("/// Type id {id}."));
            c.linef(format_args!("{name}({name}),"));
        }
        c.close("}");
        c.blank();
        c.open("impl rt::Dispatch for AnyMessage {");
        c.open("fn message_id(&self) -> u16 {");
        c.open("match self {");
        for (_, name, id) in &structs {
            c.linef(format_args!("Self::{name}(_) => {id},"));
        }
        c.close("}");
        c.close("}");
        c.blank();
        c.open("fn encode(&self, out: &mut Vec<u8>) -> Result<(), rt::EncodeError> {");
        c.open("match self {");
        for (_, name, _) in &structs {
            c.linef(format_args!("Self::{name}(m) => m.encode_message(out),"));
        }
        c.close("}");
        c.close("}");
        c.blank();
        c.open("fn read_payload(type_id: u16, rd: &mut rt::Reader<'_>) -> Result<Self, rt::DecodeError> {");
        c.open("match type_id {");
        for (_, name, id) in &structs {
            c.linef(format_args!("{id} => {name}::read_from(rd).map(Self::{name}),"));
        }
        c.line("other => Err(rt::sdp::unknown_type_id(other)),");
        c.close("}");
        c.close("}");
        c.close("}");
    }
}
