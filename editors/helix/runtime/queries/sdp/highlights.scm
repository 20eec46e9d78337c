; SDP highlights for Helix: grammar/sdp/queries/highlights.scm with Helix's scope names
; (grammar/tests/helix.rs checks that both capture the same nodes). Patterns are mutually
; exclusive, so the result does not depend on which match an editor prefers.

"struct" @keyword.storage.type

(primitive_type) @type.builtin

[
  "Option"
  "Box"
] @type.builtin

(struct_item
  name: (type_identifier) @type)

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

(field_identifier) @variable.other.member

((comment) @comment.line.documentation
  (#match? @comment.line.documentation "^///"))

((comment) @comment.line
  (#not-match? @comment.line "^///"))

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
