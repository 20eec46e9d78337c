-- Minimal config for the end-to-end test: the plugin from this checkout, the server
-- from $WIRELENS_SERVER, parsers compiled into $WIRELENS_TEST_DIR.
local root = vim.env.WIRELENS_ROOT or vim.fn.getcwd()
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.opt.swapfile = false
vim.opt.hidden = true
vim.opt.shadafile = 'NONE'

require('wirelens').setup({
  server_path = vim.env.WIRELENS_SERVER,
  settings = { ffi = { order = 'canonical' } },
  parsers = { dir = vim.env.WIRELENS_TEST_DIR .. '/parsers' },
})
