; ffire locals for Helix. Types share one file-wide scope; declaration order is free.
(source_file) @local.scope

(type_spec
  name: (type_identifier) @local.definition.type)

(type_alias
  name: (type_identifier) @local.definition.type)

(field_declaration
  name: (field_identifier) @local.definition.variable.other.member)

(type_identifier) @local.reference
