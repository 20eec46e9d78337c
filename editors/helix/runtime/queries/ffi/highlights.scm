; ffire highlights for Helix: grammar/ffi/queries/highlights.scm with Helix's scope names
; (grammar/tests/helix.rs checks that both capture the same nodes). Patterns are mutually
; exclusive, so the result does not depend on which match an editor prefers.

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
] @keyword.storage.type

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

(package_identifier) @namespace

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

(field_identifier) @variable.other.member

(function_declaration
  name: (identifier) @function)

(value_spec
  name: (identifier) @constant)

(field_declaration
  tag: (raw_string_literal) @string.special)

; Raw strings that are not struct tags, listed by parent so a tag never gets a second
; capture (every node kind whose children can include a raw string).
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

(rune_literal) @constant.character

(int_literal) @constant.numeric.integer

(float_literal) @constant.numeric.float

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
