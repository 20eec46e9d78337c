-- Filetypes and commands; the language server starts only after require('wirelens').setup().
if vim.g.loaded_wirelens or vim.fn.has('nvim-0.11') ~= 1 then
  return
end
vim.g.loaded_wirelens = true

vim.filetype.add({ extension = { sdp = 'sdp', ffi = 'ffi' } })

local function wirelens()
  return require('wirelens')
end

vim.api.nvim_create_user_command('WirelensLayout', function()
  wirelens().layout()
end, { desc = 'wirelens: show the wire layout of the struct under the cursor' })

vim.api.nvim_create_user_command('WirelensGenerate', function(args)
  wirelens().generate(args.fargs)
end, {
  nargs = '*',
  complete = function()
    return { 'c', 'cpp', 'rust' }
  end,
  desc = 'wirelens: generate encoders/decoders for this schema (languages optional)',
})

vim.api.nvim_create_user_command('WirelensInstallParsers', function()
  local parsers = require('wirelens.parsers')
  if not wirelens()._did_setup then
    parsers.setup(wirelens().config.parsers)
  end
  parsers.install()
end, { desc = 'wirelens: compile and register the sdp and ffi tree-sitter parsers' })
