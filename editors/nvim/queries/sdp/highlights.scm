; SDP highlights. Patterns are mutually exclusive (via predicates), so the
; result does not depend on whether an editor prefers the first or last match.

"struct" @keyword.type

(primitive_type) @type.builtin

[
  "Option"
  "Box"
] @type.builtin

(struct_item
  name: (type_identifier) @type.definition)

(field_declaration
  type: (type_identifier) @type)

[
  (array_type
    element: (type_identifier) @type)
  (option_type
    inner: (type_identifier) @type)
  (box_type
    inner: (type_identifier) @type)
]

(field_identifier) @variable.member

((comment) @comment.documentation
  (#match? @comment.documentation "^///"))

((comment) @comment
  (#not-match? @comment "^///"))

[
  "{"
  "}"
  "["
  "]"
  "<"
  ">"
] @punctuation.bracket

[
  ","
  ":"
] @punctuation.delimiter
