; SDP indents for Helix: the fields of a struct are indented, its closing brace is not.
(field_list) @indent

(field_list
  "}" @outdent)
