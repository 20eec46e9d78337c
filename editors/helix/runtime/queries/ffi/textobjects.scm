; ffire textobjects for Helix: a type declaration is a type (`mat` / `mit`, `]t`), a struct
; field an entry (`mae`), a function a function (`maf` / `mif`), comments are comments
; (`mac` / `mic`).
(type_spec
  type: (_) @class.inside) @class.around

(type_alias
  type: (_) @class.inside) @class.around

(field_declaration) @entry.around

(function_declaration
  body: (block)? @function.inside) @function.around

(comment) @comment.inside

(comment)+ @comment.around
