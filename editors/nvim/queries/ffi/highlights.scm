; ffire highlights. Patterns are mutually exclusive (via predicates), so the
; result does not depend on whether an editor prefers the first or last match.

[
  "package"
  "import"
  "const"
  "var"
] @keyword

[
  "type"
  "struct"
  "interface"
  "map"
  "chan"
] @keyword.type

"func" @keyword.function

; Only inside function bodies, which ffire ignores.
[
  "break"
  "case"
  "continue"
  "default"
  "defer"
  "else"
  "fallthrough"
  "for"
  "go"
  "goto"
  "if"
  "range"
  "return"
  "select"
  "switch"
] @keyword

(package_identifier) @module

((type_identifier) @type.builtin
  (#any-of? @type.builtin
    "bool" "int8" "int16" "int32" "int64" "float32" "float64" "string"
    "byte" "rune" "int" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr"
    "complex64" "complex128" "error" "any"))

((type_identifier) @type
  (#not-any-of? @type
    "bool" "int8" "int16" "int32" "int64" "float32" "float64" "string"
    "byte" "rune" "int" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr"
    "complex64" "complex128" "error" "any"))

(field_identifier) @variable.member

(function_declaration
  name: (identifier) @function)

(value_spec
  name: (identifier) @constant)

(field_declaration
  tag: (raw_string_literal) @string.special)

; Raw strings that are not struct tags. Listed by parent instead of with
; `#not-has-parent?` (an editor extension most highlighters ignore), so a tag
; never gets a second capture in any editor. These are every node kind whose
; children can include a raw string (via `_expression` or `_loose`).
[
  (expression_list (raw_string_literal) @string)
  (binary_expression (raw_string_literal) @string)
  (unary_expression (raw_string_literal) @string)
  (parenthesized_expression (raw_string_literal) @string)
  (selector_expression (raw_string_literal) @string)
  (call_expression (raw_string_literal) @string)
  (array_type (raw_string_literal) @string)
  (parameter_list (raw_string_literal) @string)
  (block (raw_string_literal) @string)
  (ERROR (raw_string_literal) @string)
]

(interpreted_string_literal) @string

(rune_literal) @character

(int_literal) @number

(float_literal) @number.float

((comment) @keyword.directive
  (#match? @keyword.directive "^//wirelens:"))

((comment) @comment
  (#not-match? @comment "^//wirelens:"))

[
  "*"
  "="
  "<-"
] @operator

[
  "("
  ")"
  "{"
  "}"
  "["
  "]"
] @punctuation.bracket

[
  ","
  "."
  ";"
] @punctuation.delimiter
