-- :checkhealth wirelens
local M = {}

function M.check()
  local h = vim.health
  local wirelens = require('wirelens')
  local parsers = require('wirelens.parsers')
  h.start('wirelens')
  if vim.fn.has('nvim-0.11') == 1 then
    h.ok('Neovim ' .. tostring(vim.version()))
  else
    h.error('Neovim 0.11 or newer is required')
  end
  if wirelens._did_setup then
    h.ok("require('wirelens').setup() has run")
  else
    h.warn("require('wirelens').setup() has not run: the language server is not enabled")
  end
  local cmd = wirelens.server_cmd()
  if vim.fn.executable(cmd[1]) == 1 then
    local out = vim.system({ cmd[1], '--version' }, { text = true }):wait()
    h.ok('server: ' .. vim.fn.exepath(cmd[1]) .. ' ' .. vim.trim(out.stdout or ''))
  else
    h.error('server `' .. cmd[1] .. '` not found', {
      'build it: cargo build --release -p wirelens, then put target/release on PATH',
      'or set server_path (or cmd) in setup()',
    })
  end
  h.start('wirelens: tree-sitter parsers')
  local cc = parsers.compiler()
  if cc then
    h.ok('C compiler: ' .. cc)
  else
    h.warn('no C compiler (cc, gcc, clang): :WirelensInstallParsers cannot build the parsers')
  end
  local grammar = parsers.grammar_dir()
  if grammar then
    h.ok('grammar sources: ' .. grammar)
  else
    h.warn('grammar sources not found: set parsers.grammar_dir')
  end
  for _, lang in ipairs(parsers.languages) do
    if not parsers.is_installed(lang) then
      h.warn(lang .. ': not installed (run :WirelensInstallParsers)')
    elseif parsers.outdated(lang) then
      h.warn(lang .. ': older than its parser.c (run :WirelensInstallParsers, then restart Neovim)')
    else
      h.ok(lang .. ': ' .. parsers.path(lang))
    end
  end
end

return M
