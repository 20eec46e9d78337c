/**
 * @file SDP schema language (.sdp): Rust-like structs for the SDP binary wire format.
 * The accepted language is spec §2, and a field without a type (for error recovery; the
 * core reports it). Primitive names and `Option`/`Box` are contextual: they are keywords only in type position, so a field may still be
 * called `str` or `Box`.
 */

/* eslint-disable no-undef */

const PRIMITIVES = ['u8', 'u16', 'u32', 'u64', 'i8', 'i16', 'i32', 'i64', 'f32', 'f64', 'bool', 'str'];

module.exports = grammar({
  name: 'sdp',

  extras: $ => [/\s/, $.comment],

  word: $ => $.identifier,

  // `struct` is SDP's only keyword (spec §2): it is never an identifier, so an
  // unterminated struct ends where the next `struct` begins instead of swallowing it.
  reserved: {
    global: _ => ['struct'],
  },

  rules: {
    source_file: $ => repeat($.struct_item),

    struct_item: $ => seq(
      'struct',
      field('name', alias($.identifier, $.type_identifier)),
      field('body', $.field_list),
    ),

    field_list: $ => seq(
      '{',
      optional(seq(
        $.field_declaration,
        repeat(seq(',', $.field_declaration)),
        optional(','),
      )),
      '}',
    ),

    // The type is optional here so that a field still being typed (`extra: `) ends
    // where it is: then a struct left open before the next `struct` gets a missing `}`
    // instead of swallowing that struct (tree-sitter's recovery inserts one missing
    // token, not a type and a `}`). A field without a type is reported while lowering.
    field_declaration: $ => seq(
      field('name', alias($.identifier, $.field_identifier)),
      ':',
      optional(field('type', $._type)),
    ),

    _type: $ => choice(
      $.primitive_type,
      alias($.identifier, $.type_identifier),
      $.array_type,
      $.option_type,
      $.box_type,
    ),

    primitive_type: _ => choice(...PRIMITIVES),

    array_type: $ => seq('[', ']', field('element', $._type)),

    option_type: $ => seq('Option', '<', field('inner', $._type), '>'),

    box_type: $ => seq('Box', '<', field('inner', $._type), '>'),

    // Any Unicode letter is lexed so the checker can say INVALID_IDENTIFIER
    // with a precise position instead of a bare syntax error.
    identifier: _ => /[\p{L}_][\p{L}\p{Nd}_]*/u,

    // `//` and `///` (doc) line comments; the model tells them apart. A comment ends at
    // `\n`, `\r\n` or a lone `\r`: the LSP's line ends (issue 20).
    comment: _ => token(seq('//', /[^\r\n]*/)),
  },
});
