; SDP locals for Helix. All structs share one file-wide scope; declaration order is free.
(source_file) @local.scope

(struct_item
  name: (type_identifier) @local.definition.type)

(field_declaration
  name: (field_identifier) @local.definition.variable.other.member)

(type_identifier) @local.reference
