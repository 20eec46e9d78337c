[
  (type_declaration)
  (import_declaration)
  (field_declaration_list)
  (function_declaration)
] @fold
