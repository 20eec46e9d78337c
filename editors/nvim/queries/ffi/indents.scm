; nvim-treesitter style indent captures.
[
  (field_declaration_list)
  (type_declaration)
  (import_declaration)
  (block)
] @indent.begin

(field_declaration_list
  "}" @indent.branch @indent.end)

(type_declaration
  ")" @indent.branch @indent.end)

(import_declaration
  ")" @indent.branch @indent.end)

(block
  "}" @indent.branch @indent.end)

(comment) @indent.auto
