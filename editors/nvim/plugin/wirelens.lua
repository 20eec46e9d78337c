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
    return wirelens().LANGUAGES
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

vim.api.nvim_create_user_command('WirelensDecode', function(args)
  local opts = { file = args.args ~= '' and args.args or nil }
  if args.range > 0 then
    opts.line1, opts.line2 = args.line1, args.line2
  end
  wirelens().decode(opts)
end, {
  nargs = '?',
  range = true,
  complete = 'file',
  desc = 'wirelens: decode a binary file, or the hex selected or typed, with this schema',
})

vim.api.nvim_create_user_command('WirelensInspect', function(args)
  require('wirelens.inspect').open(args.fargs[1], args.fargs[2])
end, {
  nargs = '+',
  complete = 'file',
  desc = 'wirelens: inspect a binary file with this schema (hex dump and decoded tree, linked)',
})
