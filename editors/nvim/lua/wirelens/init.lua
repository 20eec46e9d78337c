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
  hover = true, -- map K in sdp/ffi buffers to a hover with readable (aligned) tables
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

--- An error for a notification: its first line, not a whole report or RPC dump.
local function short(err)
  local text = type(err) == 'table' and (err.message or vim.inspect(err)) or tostring(err)
  text = vim.split(vim.trim(text), '\n', { plain = true })[1] or ''
  if vim.fn.strchars(text) > 200 then
    text = vim.fn.strcharpart(text, 0, 199) .. '…'
  end
  return text
end
M._short = short

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

--- Per client, the file watchers the plugin runs itself (see `watch_project`), by path.
local watchers = {} ---@type table<integer, table<string, uv.uv_fs_event_t>>

--- Neovim does not offer `workspace/didChangeWatchedFiles` registration on Linux and
--- the BSDs, so the server would never hear of a commit (`.git/HEAD`, a branch ref) or
--- a new `wirelens.toml` while a schema is open. Where it does not, the plugin watches
--- those few paths itself (no recursive watch) for the client's root and the buffer's
--- folder and repository, and tells the server the same way.
local function watch_project(client, bufnr)
  if vim.tbl_get(client.capabilities or {}, 'workspace', 'didChangeWatchedFiles', 'dynamicRegistration') then
    return
  end
  watchers[client.id] = watchers[client.id] or {}
  local handles = watchers[client.id]
  local function watch(dir, accept)
    if handles[dir] or vim.fn.isdirectory(dir) ~= 1 then
      return
    end
    local h = vim.uv.new_fs_event()
    if not h then
      return
    end
    local ok = h:start(dir, {}, function(err, fname)
      if err or type(fname) ~= 'string' or not accept(fname) then
        return
      end
      vim.schedule(function()
        if client:is_stopped() then
          return
        end
        client:notify('workspace/didChangeWatchedFiles', {
          changes = { { uri = vim.uri_from_fname(dir .. '/' .. fname), type = 2 } },
        })
      end)
    end)
    if ok then
      handles[dir] = h
    else
      h:close()
    end
  end
  local function toml(f)
    return f == 'wirelens.toml'
  end
  local file = vim.api.nvim_buf_get_name(bufnr)
  local dirs = { client.root_dir, file ~= '' and vim.fs.dirname(file) or nil }
  for _, dir in pairs(dirs) do
    watch(dir, toml)
  end
  local repo = file ~= '' and vim.fs.root(file, '.git') or client.root_dir
  if type(repo) == 'string' then
    local git = repo .. '/.git'
    watch(git, function(f)
      return f == 'HEAD' or f == 'packed-refs'
    end)
    watch(git .. '/refs/heads', function(f)
      return not f:match('%.lock$')
    end)
  end
end

--- Stops the watchers of a client that has no buffer left.
local function unwatch(client_id)
  for _, h in pairs(watchers[client_id] or {}) do
    if not h:is_closing() then
      h:stop()
      h:close()
    end
  end
  watchers[client_id] = nil
end
M._watchers = watchers

local function on_attach(client, bufnr)
  watch_project(client, bufnr)
  local cfg = M.config
  if cfg.inlay_hints and client:supports_method('textDocument/inlayHint') then
    -- The visible lines only (wirelens.hints); Neovim's own asks for the whole buffer.
    require('wirelens.hints').enable(bufnr, client.id)
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
  if cfg.hover then
    vim.keymap.set('n', 'K', function()
      M.hover()
    end, { buffer = bufnr, desc = 'wirelens: hover (wire layout)' })
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
  -- The server's "hints changed" reaches wirelens.hints (Neovim's own handler only
  -- refreshes the built-in hints, which are not used).
  lsp.handlers = vim.tbl_extend('force', {
    ['workspace/inlayHint/refresh'] = function(_, _, ctx)
      require('wirelens.hints').refresh(ctx.client_id)
      return vim.NIL
    end,
  }, lsp.handlers or {})
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
  -- The schema :WirelensDecode uses from a buffer that is not one.
  vim.api.nvim_create_autocmd('BufEnter', {
    group = group,
    callback = function(ev)
      if vim.tbl_contains(cfg.filetypes, vim.bo[ev.buf].filetype) then
        M._last_schema = ev.buf
      end
    end,
  })
  -- Generation on save reports through the server's `$/progress` (its end message):
  -- success in the message line, a failure as one notification (details: diagnostics).
  vim.api.nvim_create_autocmd('LspProgress', {
    group = group,
    callback = function(ev)
      M._on_progress(ev.data)
    end,
  })
  vim.api.nvim_create_autocmd('LspDetach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if not client or client.name ~= 'wirelens' then
        return
      end
      local left = vim.tbl_filter(function(b)
        return b ~= ev.buf
      end, vim.tbl_keys(client.attached_buffers or {}))
      if #left == 0 then
        unwatch(client.id)
      end
    end,
  })
  -- Commands the server's code lenses and actions run (client:exec_cmd looks here first).
  vim.lsp.commands[M.SHOW_LAYOUT] = function(command, ctx)
    M._run_show_layout(command, ctx)
  end
  vim.lsp.commands[M.GENERATE_COMMAND] = function(command, ctx)
    M._run_generate(command, ctx)
  end
  -- Buffers opened before setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(cfg.filetypes, vim.bo[buf].filetype) then
      start_treesitter(buf)
    end
  end
  M._did_setup = true
end

-- :WirelensLayout and hovers ----------------------------------------------------

M.SHOW_LAYOUT = 'wirelens.showLayout'

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

--- Shows server Markdown (a layout or a hover) rendered as aligned plain text: in a
--- float (focus_id names it, so a second call focuses it) or, for the layout with
--- layout.open = 'split', in a scratch split. Returns the buffer and window.
local function show_markdown(markdown, focus_id, title)
  local lines = require('wirelens.render').lines(markdown)
  local lcfg = M.config.layout
  if focus_id == 'wirelens-layout' and lcfg.open == 'split' then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].filetype = 'markdown'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].modifiable = false
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_win_set_height(0, math.min(#lines + 1, 20))
    vim.wo[0].wrap = false
    return buf, vim.api.nvim_get_current_win()
  end
  return vim.lsp.util.open_floating_preview(lines, 'markdown', {
    border = lcfg.border,
    focus_id = focus_id,
    title = title,
    wrap = false, -- long rows scroll instead of breaking the columns
  })
end
M._show_markdown = show_markdown

local function hover_text(result)
  local contents = result and result.contents
  local text = type(contents) == 'table' and (contents.value or contents[1]) or contents
  if type(text) == 'table' then
    text = text.value
  end
  return type(text) == 'string' and text ~= '' and text or nil
end

--- Hover (K in sdp/ffi buffers): the server's hover with its tables aligned.
--- `callback(markdown|nil, err)` for scripts and tests.
function M.hover(callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return vim.lsp.buf.hover()
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  client:request('textDocument/hover', params, function(err, result)
    local text = not err and hover_text(result) or nil
    if err then
      notify('hover failed: ' .. short(err), vim.log.levels.WARN)
    elseif text then
      show_markdown(text, 'wirelens-hover')
    end
    if callback then
      callback(text, err and short(err))
    end
  end, bufnr)
end

--- Asks the server for the layout of `name` in `bufnr` (wirelens.showLayout) and shows it.
local function layout_of(client, bufnr, name, done)
  local params = { command = M.SHOW_LAYOUT, arguments = { vim.uri_from_bufnr(bufnr), name } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      return done(nil, 'layout failed: ' .. short(err))
    end
    if type(result) ~= 'string' or result == '' then
      return done(nil, ('no wire layout for %s (see the diagnostics)'):format(name))
    end
    done(result)
  end, bufnr)
end

--- Shows the wire layout of the struct under the cursor; outside every struct, offers a
--- picker (vim.ui.select) of the file's types. `callback(markdown|nil, err)` is called
--- with the layout text (for scripts and tests).
function M.layout(callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  local function done(text, err)
    if err then
      notify(err, vim.log.levels.WARN)
    elseif text then
      show_markdown(text, 'wirelens-layout', ' wire layout ')
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
      return done(nil, 'documentSymbol failed: ' .. short(err))
    end
    local at = M._layout_position(symbols, params.position, word)
    if not at then
      local names = vim.tbl_map(function(s)
        return s.name
      end, symbols or {})
      if #names == 0 then
        return done(nil, 'no types in this file')
      end
      vim.ui.select(names, { prompt = 'Wire layout of' }, function(name)
        if name then
          layout_of(client, bufnr, name, done)
        elseif callback then
          callback(nil, nil) -- cancelled: nothing to say
        end
      end)
      return
    end
    local hover = { textDocument = params.textDocument, position = at }
    client:request('textDocument/hover', hover, function(herr, result)
      if herr then
        return done(nil, 'hover failed: ' .. short(herr))
      end
      local text = hover_text(result)
      if not text then
        return done(nil, 'no layout for this position')
      end
      done(text)
    end, bufnr)
  end, bufnr)
end

--- The size lens (`wirelens.showLayout [uri, name]`): the layout view of that type.
--- Neovim clears a lens's row when it runs it and redraws only when the command's
--- answer comes back; a command handled here never answers, so redraw the lenses.
local function redraw_lenses(bufnr)
  if M.config.codelens and bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
end

function M._run_show_layout(command, ctx)
  redraw_lenses(ctx.bufnr)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local args = command.arguments or {}
  local uri, name = args[1], args[2]
  if not client or type(uri) ~= 'string' or type(name) ~= 'string' then
    return notify('the layout lens needs [uri, typeName]', vim.log.levels.WARN)
  end
  layout_of(client, vim.uri_to_bufnr(uri), name, function(text, err)
    if err then
      notify(err, vim.log.levels.WARN)
    else
      show_markdown(text, 'wirelens-layout', ' wire layout ')
    end
  end)
end

-- :WirelensGenerate -----------------------------------------------------------

M.GENERATE_COMMAND = 'wirelens.generate'
M.LANGUAGES = { 'c', 'cpp', 'rust' }
local ALIASES = { ['c++'] = 'cpp', cxx = 'cpp', rs = 'rust' }

--- The languages as the server spells them, or nil and a message naming the valid ones.
function M._languages(args)
  local out = {}
  for _, a in ipairs(args or {}) do
    local l = a:lower()
    l = ALIASES[l] or l
    if not vim.tbl_contains(M.LANGUAGES, l) then
      return nil, ('unknown language `%s`: choose from %s'):format(a, table.concat(M.LANGUAGES, ', '))
    end
    if not vim.tbl_contains(out, l) then
      table.insert(out, l)
    end
  end
  return out
end

-- Explicit generations carry their own progress token, so the `$/progress` of a
-- generation on save (a token the server makes: `wirelens-generate-N`) is told apart.
local next_token = 0

local function report_generation(err, result, what)
  if err then
    notify('generation failed: ' .. short(err), vim.log.levels.ERROR)
    return
  end
  local n = type(result) == 'table' and type(result.written) == 'table' and #result.written or 0
  local unchanged = type(result) == 'table' and type(result.unchanged) == 'table' and #result.unchanged or 0
  notify(('generated code for %s: %d file(s) written, %d unchanged'):format(what, n, unchanged))
end

--- Sends wirelens.generate (arguments as the server takes them) and reports once.
local function send_generate(client, bufnr, arguments, what, callback)
  next_token = next_token + 1
  local params = { command = M.GENERATE_COMMAND, arguments = arguments, workDoneToken = 'wirelens-nvim-' .. next_token }
  client:request('workspace/executeCommand', params, function(err, result)
    report_generation(err, result, what)
    if callback then
      callback(err, result)
    end
  end, bufnr)
end

--- Runs the server's `wirelens.generate` command for the current file, if the server
--- offers it. `languages` (optional) e.g. { 'c', 'rust' }. Returns false if unavailable
--- or a language is unknown (nothing is generated then).
function M.generate(languages, callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local langs, lerr = M._languages(languages)
  if not langs then
    notify(lerr, vim.log.levels.ERROR)
    return false
  end
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
  if #langs > 0 then
    arg.languages = langs
  end
  send_generate(client, bufnr, { arg }, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t'), callback)
  return true
end

--- The Generate lenses and actions: the same request, one short message.
function M._run_generate(command, ctx)
  redraw_lenses(ctx.bufnr)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  local first = (command.arguments or {})[1]
  local uri = type(first) == 'table' and first.uri or first
  local what = type(uri) == 'string' and vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t') or 'the schema'
  send_generate(client, ctx.bufnr, command.arguments, what)
end

--- `$/progress` of a generation the server started itself (on save): its end message is
--- "N file(s) written" or "failed: …".
function M._on_progress(data)
  local client = data and vim.lsp.get_client_by_id(data.client_id)
  local params = data and data.params
  local value = params and params.value
  if not client or client.name ~= 'wirelens' or type(value) ~= 'table' or value.kind ~= 'end' then
    return
  end
  if type(params.token) ~= 'string' or not params.token:match('^wirelens%-generate') then
    return
  end
  local msg = value.message or ''
  if msg:match('^failed') then
    notify('generation on save ' .. short(msg), vim.log.levels.ERROR)
  else
    notify('generated on save: ' .. msg)
  end
end

-- :WirelensDecode -------------------------------------------------------------

function M.decode(opts)
  return require('wirelens.decode').run(opts or {})
end

return M
