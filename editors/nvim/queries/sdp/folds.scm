(struct_item) @fold
