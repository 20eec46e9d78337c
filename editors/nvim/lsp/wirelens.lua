-- Defaults for vim.lsp.enable('wirelens') (Neovim 0.11 reads lsp/<name>.lua from
-- 'runtimepath'). require('wirelens').setup() overrides these and adds inlay hints,
-- code lenses and the tree-sitter integration.
return {
  cmd = { 'wirelens', 'lsp' },
  filetypes = { 'sdp', 'ffi' },
  root_markers = { 'wirelens.toml', '.git' },
}
