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

((raw_string_literal) @string
  (#not-has-parent? @string field_declaration))

(interpreted_string_literal) @string

(rune_literal) @character

(int_literal) @number

(float_literal) @number.float

((comment) @keyword.directive
  (#match? @keyword.directive "^//wirelens:"))

((comment) @comment
  (#not-match? @comment "^//wirelens:"))

"*" @operator

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
