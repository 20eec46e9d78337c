-- wirelens for Neovim >= 0.11: the language server (`wirelens lsp`), filetypes,
-- tree-sitter parsers and queries, and the :Wirelens* commands.
local M = {}

---@class wirelens.Opts
M.defaults = {
  -- The server command. `server_path` replaces only the executable.
  cmd = nil, ---@type string[]|nil  default { 'wirelens', 'lsp' }
  server_path = nil, ---@type string|nil
  filetypes = { 'sdp', 'ffi' },
  root_markers = { 'wirelens.toml', '.git' },
  -- Sent as `initializationOptions` and `workspace/didChangeConfiguration`
  -- (they override wirelens.toml), e.g. { ffi = { order = 'declaration' } }.
  settings = {},
  -- Extra fields merged into vim.lsp.config('wirelens', ...): on_attach, capabilities, ...
  lsp = {},
  inlay_hints = true, -- enable inlay hints (offset · size) in sdp/ffi buffers
  codelens = true, -- show and refresh the per-struct size lenses
  format_on_save = false,
  layout = {
    open = 'float', -- 'float' or 'split': where :WirelensLayout shows the table
    border = 'rounded',
  },
  treesitter = {
    highlight = true, -- vim.treesitter.start() in sdp/ffi buffers when the parser is installed
    fold = false, -- set foldmethod=expr with vim.treesitter.foldexpr()
  },
  parsers = {
    -- grammar/ of the wirelens repository (holds {sdp,ffi}/src/parser.c).
    -- Default: found relative to this plugin (editors/nvim/../../grammar).
    grammar_dir = nil, ---@type string|nil
    -- Compiled parsers go to <dir>/parser/<lang>.so; <dir> is added to 'runtimepath'.
    dir = nil, ---@type string|nil  default stdpath('data')/wirelens
    compiler = nil, ---@type string|nil  default $CC, else cc, gcc, clang
    cflags = { '-O2', '-std=c11' },
  },
}

M.config = vim.deepcopy(M.defaults)

local function notify(msg, level)
  vim.notify('wirelens: ' .. msg, level or vim.log.levels.INFO)
end
M._notify = notify

--- The plugin's root (the directory holding lua/, plugin/, queries/).
function M.plugin_root()
  local src = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(src, ':p:h:h:h')
end

function M.filetypes()
  vim.filetype.add({ extension = { sdp = 'sdp', ffi = 'ffi' } })
end

function M.server_cmd(cfg)
  cfg = cfg or M.config
  if cfg.cmd then
    return cfg.cmd
  end
  return { cfg.server_path or 'wirelens', 'lsp' }
end

--- The running wirelens client attached to `bufnr` (default: current buffer), if any.
function M.client(bufnr)
  return vim.lsp.get_clients({ name = 'wirelens', bufnr = bufnr or 0 })[1]
end

local function on_attach(client, bufnr)
  local cfg = M.config
  if cfg.inlay_hints and client:supports_method('textDocument/inlayHint') then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  local group = vim.api.nvim_create_augroup('wirelens.buf.' .. bufnr, { clear = true })
  if cfg.codelens and client:supports_method('textDocument/codeLens') then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
  end
  if cfg.format_on_save then
    vim.api.nvim_create_autocmd('BufWritePre', {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.buf.format({ bufnr = bufnr, id = client.id, timeout_ms = 2000 })
      end,
    })
  end
end

local function start_treesitter(bufnr)
  local cfg = M.config.treesitter
  local lang = vim.bo[bufnr].filetype
  if not require('wirelens.parsers').register(lang) then
    return
  end
  if cfg.highlight then
    pcall(vim.treesitter.start, bufnr, lang)
  end
  if cfg.fold then
    for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
      vim.wo[win][0].foldmethod = 'expr'
      vim.wo[win][0].foldexpr = 'v:lua.vim.treesitter.foldexpr()'
    end
  end
end
M._start_treesitter = start_treesitter

function M.setup(opts)
  if vim.fn.has('nvim-0.11') ~= 1 then
    notify('needs Neovim 0.11 or newer', vim.log.levels.ERROR)
    return
  end
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local cfg = M.config
  M.filetypes()
  require('wirelens.parsers').setup(cfg.parsers)

  local user_on_attach = cfg.lsp.on_attach
  local lsp = vim.tbl_deep_extend('force', {
    cmd = M.server_cmd(cfg),
    filetypes = cfg.filetypes,
    root_markers = cfg.root_markers,
    -- An empty table would be sent as a JSON array.
    init_options = next(cfg.settings) and cfg.settings or nil,
    settings = next(cfg.settings) and cfg.settings or nil,
  }, cfg.lsp)
  lsp.on_attach = function(client, bufnr)
    on_attach(client, bufnr)
    if user_on_attach then
      user_on_attach(client, bufnr)
    end
  end
  vim.lsp.config('wirelens', lsp)
  vim.lsp.enable('wirelens')

  local group = vim.api.nvim_create_augroup('wirelens', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = cfg.filetypes,
    callback = function(ev)
      start_treesitter(ev.buf)
    end,
  })
  -- Buffers opened before setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(cfg.filetypes, vim.bo[buf].filetype) then
      start_treesitter(buf)
    end
  end
  M._did_setup = true
end

-- :WirelensLayout -------------------------------------------------------------

local function before(a, b) -- positions {line, character}: a <= b
  return a.line < b.line or (a.line == b.line and a.character <= b.character)
end

local function contains(range, pos)
  return before(range.start, pos) and before(pos, range['end'])
end

--- Where to ask for the layout: on a type name or reference, there; inside a
--- struct, at the struct's name. `symbols` is a textDocument/documentSymbol result.
function M._layout_position(symbols, pos, word)
  local names = {}
  for _, s in ipairs(symbols or {}) do
    names[s.name] = true
  end
  for _, s in ipairs(symbols or {}) do
    if s.selectionRange and contains(s.selectionRange, pos) then
      return pos
    end
  end
  for _, s in ipairs(symbols or {}) do
    if s.range and contains(s.range, pos) then
      if word and names[word] then
        return pos -- a reference to another struct, e.g. `[]Parameter`
      end
      return s.selectionRange.start
    end
  end
  return nil
end

local function show_layout(markdown)
  local lines = vim.split(markdown, '\n', { trimempty = true })
  local lcfg = M.config.layout
  if lcfg.open == 'split' then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].filetype = 'markdown'
    vim.bo[buf].bufhidden = 'wipe'
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_win_set_height(0, math.min(#lines + 1, 20))
    return buf, vim.api.nvim_get_current_win()
  end
  return vim.lsp.util.open_floating_preview(lines, 'markdown', {
    border = lcfg.border,
    focus_id = 'wirelens-layout',
    title = ' wire layout ',
  })
end

--- Shows the wire layout of the struct under the cursor. `callback(markdown|nil, err)`
--- is called with the hover text (for scripts and tests).
function M.layout(callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local function done(text, err)
    if err then
      notify(err, vim.log.levels.WARN)
    elseif text then
      show_layout(text)
    end
    if callback then
      callback(text, err)
    end
  end
  if not client then
    return done(nil, 'the language server is not running for this buffer (see :checkhealth wirelens)')
  end
  local win = vim.api.nvim_get_current_win()
  local params = vim.lsp.util.make_position_params(win, client.offset_encoding)
  local word = vim.fn.expand('<cword>')
  client:request('textDocument/documentSymbol', { textDocument = params.textDocument }, function(err, symbols)
    if err then
      return done(nil, 'documentSymbol failed: ' .. tostring(err.message or err))
    end
    local at = M._layout_position(symbols, params.position, word)
    if not at then
      return done(nil, 'no struct under the cursor')
    end
    local hover = { textDocument = params.textDocument, position = at }
    client:request('textDocument/hover', hover, function(herr, result)
      if herr then
        return done(nil, 'hover failed: ' .. tostring(herr.message or herr))
      end
      local contents = result and result.contents
      local text = type(contents) == 'table' and (contents.value or contents[1]) or contents
      if type(text) ~= 'string' or text == '' then
        return done(nil, 'no layout for this position')
      end
      done(text)
    end, bufnr)
  end, bufnr)
end

-- :WirelensGenerate -----------------------------------------------------------

M.GENERATE_COMMAND = 'wirelens.generate'

--- Runs the server's `wirelens.generate` command for the current file, if the server
--- offers it. `languages` (optional) e.g. { 'c', 'rust' }. Returns false if unavailable.
function M.generate(languages, callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify('the language server is not running for this buffer (see :checkhealth wirelens)', vim.log.levels.WARN)
    return false
  end
  local provider = client.server_capabilities.executeCommandProvider
  local commands = provider and provider.commands or {}
  if not vim.tbl_contains(commands, M.GENERATE_COMMAND) then
    notify(
      'this wirelens server does not offer code generation (no `'
        .. M.GENERATE_COMMAND
        .. '` command); update wirelens',
      vim.log.levels.WARN
    )
    return false
  end
  local arg = { uri = vim.uri_from_bufnr(bufnr) }
  if languages and #languages > 0 then
    arg.languages = languages
  end
  client:exec_cmd({ title = 'Generate', command = M.GENERATE_COMMAND, arguments = { arg } }, { bufnr = bufnr }, function(err, result)
    if err then
      notify('generation failed: ' .. tostring(err.message or err), vim.log.levels.ERROR)
    else
      notify('generated code for ' .. vim.fn.expand('%:t'))
    end
    if callback then
      callback(err, result)
    end
  end)
  return true
end

return M
