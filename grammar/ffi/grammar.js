/**
 * @file ffire schema language (.ffi): Go type declarations for the ffire wire format.
 * spec §3.1. The grammar deliberately accepts more Go than ffire does (imports,
 * const/var/func, maps, fixed arrays, channels, embedded fields, qualified types,
 * anonymous structs, interfaces) so the checker can point at each with a precise
 * message instead of a syntax error. Function bodies and initialisers are parsed
 * only as balanced brackets.
 */

/* eslint-disable no-undef */


// Go's 25 keywords. Go reserves them, so they are never identifiers here either.
const KEYWORDS = [
  'break', 'case', 'chan', 'const', 'continue', 'default', 'defer', 'else', 'fallthrough',
  'for', 'func', 'go', 'goto', 'if', 'import', 'interface', 'map', 'package', 'range',
  'return', 'select', 'struct', 'switch', 'type', 'var',
];

function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

// `first (sep item)* sep?` inside a bracketed group; the separator is a line end or `;`.
function terminated($, rule) {
  const terminator = choice($._newline, ';');
  return optional(seq(rule, repeat(seq(terminator, rule)), optional(terminator)));
}

module.exports = grammar({
  name: 'ffi',

  extras: $ => [/\s/, $.comment],

  word: $ => $.identifier,

  // Go's keywords are reserved, as in Go: `type type int32` or a field named
  // `range` is a syntax error (go/parser, and so ffire, rejects them), and a
  // declaration keyword is never taken for a name during error recovery.
  // Loosely parsed bodies accept every keyword as a token.
  reserved: {
    global: _ => KEYWORDS,
  },

  rules: {
    // Declarations are separated by newlines or `;`, as in Go. Here the separator after a
    // declaration is optional, and the checker reports a missing one (syntax.rs): with it
    // required, closing an unclosed struct before the next `type` took two invented tokens
    // (`}` and a line end), more than error recovery inserts, and recovery swallowed every
    // declaration after it.
    source_file: $ => {
      const item = choice($.package_clause, $._declaration);
      const separator = choice($._newline, ';');
      return optional(seq(item, repeat(seq(optional(separator), item)), optional(separator)));
    },

    package_clause: $ => seq('package', field('name', alias($.identifier, $.package_identifier))),

    _declaration: $ => choice(
      $.import_declaration,
      $.type_declaration,
      $.const_declaration,
      $.var_declaration,
      $.function_declaration,
    ),

    // ---- ignored declarations (the checker warns) ----
    import_declaration: $ => seq('import', choice(
      $.import_spec,
      seq('(', terminated($, $.import_spec), ')'),
    )),
    import_spec: $ => seq(
      optional(field('name', choice(alias($.identifier, $.package_identifier), '.', '_'))),
      field('path', $.interpreted_string_literal),
    ),

    const_declaration: $ => seq('const', choice($.value_spec, seq('(', terminated($, $.value_spec), ')'))),
    var_declaration: $ => seq('var', choice($.value_spec, seq('(', terminated($, $.value_spec), ')'))),
    // Right-associative: with the separator after a declaration optional (source_file),
    // `const X func()` could also end at `X` before a `func` declaration; Go reads a type.
    value_spec: $ => prec.right(seq(
      commaSep1(field('name', $.identifier)),
      optional(field('type', $._type)),
      optional(seq('=', field('value', $.expression_list))),
    )),
    expression_list: $ => commaSep1($._expression),

    // Right-associative for the same reason as value_spec (`func f() func()`).
    function_declaration: $ => prec.right(seq(
      'func',
      optional(field('receiver', $.parameter_list)),
      field('name', $.identifier),
      field('parameters', $.parameter_list),
      optional(field('result', choice($.parameter_list, $._simple_type))),
      optional(field('body', $.block)),
    )),

    // ---- type declarations (what ffire reads) ----
    type_declaration: $ => seq('type', choice(
      $.type_spec,
      $.type_alias,
      seq('(', terminated($, choice($.type_spec, $.type_alias)), ')'),
    )),

    type_spec: $ => seq(
      field('name', alias($.identifier, $.type_identifier)),
      field('type', $._type),
    ),

    type_alias: $ => seq(
      field('name', alias($.identifier, $.type_identifier)),
      '=',
      field('type', $._type),
    ),

    _type: $ => choice($._simple_type, $.parenthesized_type),

    parenthesized_type: $ => seq('(', $._type, ')'),

    _simple_type: $ => choice(
      $._type_name,
      $.pointer_type,
      $.slice_type,
      $.array_type,
      $.map_type,
      $.channel_type,
      $.function_type,
      $.struct_type,
      $.interface_type,
    ),

    _type_name: $ => choice(alias($.identifier, $.type_identifier), $.qualified_type),

    qualified_type: $ => seq(
      field('package', alias($.identifier, $.package_identifier)),
      '.',
      field('name', alias($.identifier, $.type_identifier)),
    ),

    pointer_type: $ => prec(1, seq('*', field('element', $._type))),
    slice_type: $ => prec(1, seq('[', ']', field('element', $._type))),
    array_type: $ => prec(1, seq('[', field('length', choice($._expression, '...')), ']', field('element', $._type))),
    map_type: $ => prec(1, seq('map', '[', field('key', $._type), ']', field('value', $._type))),
    // `chan T`, `chan<- T`, `<-chan T`. As in Go, `<-` binds to the leftmost `chan`:
    // `chan<- chan T` is a send-only channel of `chan T` (the lower precedence of the
    // receive-only form decides the reduce/reduce conflict that way).
    channel_type: $ => choice(
      prec.right(1, seq(choice('chan', seq('chan', '<-')), field('element', $._type))),
      prec.right(0, seq('<-', 'chan', field('element', $._type))),
    ),
    function_type: $ => prec.right(seq(
      'func',
      field('parameters', $.parameter_list),
      optional(field('result', choice($.parameter_list, $._simple_type))),
    )),
    interface_type: $ => seq('interface', $.block),

    struct_type: $ => seq('struct', field('body', $.field_declaration_list)),

    field_declaration_list: $ => seq('{', terminated($, $.field_declaration), '}'),

    // `A, B T tag` or an embedded `T` / `*T` / `pkg.T` (which ffire rejects).
    field_declaration: $ => seq(
      choice(
        seq(
          commaSep1(field('name', $._field_name)),
          field('type', $._type),
        ),
        seq(optional('*'), field('embedded', $._type_name)),
      ),
      optional(field('tag', $.raw_string_literal)),
    ),
    _field_name: $ => alias($.identifier, $.field_identifier),

    // ---- loosely parsed bodies ----
    parameter_list: $ => seq('(', repeat(choice($.parameter_list, $.block, $._loose, ...KEYWORDS)), ')'),
    block: $ => seq('{', repeat(choice($.block, $.parameter_list, $._loose, ...KEYWORDS, $._newline, ';')), '}'),
    _loose: $ => choice(
      $.identifier,
      $.int_literal,
      $.float_literal,
      $.interpreted_string_literal,
      $.raw_string_literal,
      $.rune_literal,
      /[\[\].,:=+\-*\/%&|^<>!~?@#$\\]+/,
    ),

    _expression: $ => choice(
      $.identifier,
      $.int_literal,
      $.float_literal,
      $.rune_literal,
      $.interpreted_string_literal,
      $.raw_string_literal,
      $.selector_expression,
      $.call_expression,
      $.unary_expression,
      $.binary_expression,
      $.parenthesized_expression,
      $.composite_literal,
    ),
    selector_expression: $ => prec(7, seq(field('operand', $._expression), '.', field('field', $.identifier))),
    call_expression: $ => prec(7, seq(field('function', $._expression), field('arguments', $.parameter_list))),
    unary_expression: $ => prec(6, seq(choice('-', '+', '!', '^', '&', '*', '<-'), $._expression)),
    binary_expression: $ => choice(
      ...[
        [5, choice('*', '/', '%', '<<', '>>', '&', '&^')],
        [4, choice('+', '-', '|', '^')],
        [3, choice('==', '!=', '<', '<=', '>', '>=')],
        [2, '&&'],
        [1, '||'],
      ].map(([p, op]) => prec.left(p, seq($._expression, op, $._expression))),
    ),
    parenthesized_expression: $ => seq('(', $._expression, ')'),
    composite_literal: $ => prec(8, seq(
      field('type', choice($.slice_type, $.map_type, $.array_type)),
      field('body', $.block),
    )),

    identifier: _ => /[\p{L}_][\p{L}\p{Nd}_]*/u,
    int_literal: _ => token(choice(/0[xX][0-9a-fA-F_]+/, /0[bB][01_]+/, /0[oO]?[0-7_]*/, /[1-9][0-9_]*/)),
    float_literal: _ => token(choice(
      /[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9_]+)?/,
      /\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?/,
      /[0-9][0-9_]*[eE][+-]?[0-9_]+/,
    )),
    // Rune and interpreted string literals, like line comments, end at any LSP line end
    // (`\n`, `\r\n`, a lone `\r`; issue 20).
    rune_literal: _ => token(seq('\'', repeat1(choice(/[^'\\\r\n]/, /\\./)), '\'')),
    interpreted_string_literal: _ => token(seq('"', repeat(choice(/[^"\\\r\n]/, /\\./)), '"')),
    raw_string_literal: _ => token(seq('`', /[^`]*/, '`')),

    // A line end ends a statement as in Go: `\n`, `\r\n` or a lone `\r`, the line ends of
    // the LSP (issue 20; Go itself knows only `\n`, and a lone `\r` was whitespace here).
    _newline: _ => /\r\n?|\n/,

    comment: _ => token(choice(
      seq('//', /[^\r\n]*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
    )),
  },
});
