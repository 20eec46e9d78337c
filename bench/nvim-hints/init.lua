-- The plugin from this checkout; BENCH_MODE=builtin uses Neovim's own inlay hints
-- (whole buffer per change) instead of the plugin's visible-range ones.
local root = vim.env.WIRELENS_ROOT
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
local builtin = vim.env.BENCH_MODE == 'builtin'
require('wirelens').setup({
  server_path = vim.env.WIRELENS_SERVER,
  inlay_hints = not builtin,
  codelens = false,
  lsp = builtin and {
    on_attach = function(_, bufnr)
      vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
    end,
  } or {},
})
