; ffire indents for Helix: struct fields, grouped `type ( … )` / `import ( … )` and function
; bodies are indented; their closing delimiter is not.
[
  (field_declaration_list)
  (type_declaration)
  (import_declaration)
  (block)
] @indent

(field_declaration_list
  "}" @outdent)

(type_declaration
  ")" @outdent)

(import_declaration
  ")" @outdent)

(block
  "}" @outdent)
