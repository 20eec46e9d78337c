; SDP textobjects for Helix: a struct is a type (`mat` / `mit`, `]t`), a field an entry
; (`mae`), comments are comments (`mac` / `mic`).
(struct_item
  body: (field_list) @class.inside) @class.around

(field_declaration) @entry.around

(comment) @comment.inside

(comment)+ @comment.around
