; nvim-treesitter style indent captures.
(field_list) @indent.begin

(field_list
  "}" @indent.branch @indent.end)

(comment) @indent.auto
