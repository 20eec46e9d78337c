-- Builds the tree-sitter parsers of grammar/{sdp,ffi} with the system C compiler and
-- registers them with Neovim (vim.treesitter.language.add).
local M = {}

M.languages = { 'sdp', 'ffi' }

local cfg = {}

local function notify(msg, level)
  vim.notify('wirelens: ' .. msg, level or vim.log.levels.INFO)
end

local function exists(path)
  return vim.uv.fs_stat(path) ~= nil
end

function M.setup(opts)
  cfg = vim.deepcopy(opts or {})
  local dir = M.dir()
  if not vim.tbl_contains(vim.opt.runtimepath:get(), dir) then
    vim.opt.runtimepath:append(dir)
  end
end

--- Where compiled parsers live: <dir>/parser/<lang>.so.
function M.dir()
  return vim.fs.normalize(cfg.dir or (vim.fn.stdpath('data') .. '/wirelens'))
end

function M.path(lang)
  return M.dir() .. '/parser/' .. lang .. '.so'
end

--- grammar/ of the wirelens repository, or nil.
function M.grammar_dir()
  local dir = cfg.grammar_dir
  if not dir then
    local root = require('wirelens').plugin_root()
    dir = vim.fs.normalize(root .. '/../../grammar')
  end
  dir = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p'))
  if exists(dir .. '/sdp/src/parser.c') then
    return dir
  end
  return nil
end

function M.compiler()
  local candidates = { cfg.compiler, vim.env.CC, 'cc', 'gcc', 'clang' }
  for _, c in pairs(candidates) do
    if c and c ~= '' and vim.fn.executable(c) == 1 then
      return c
    end
  end
  return nil
end

--- True if the compiled parser of `lang` is older than its parser.c.
function M.outdated(lang)
  local grammar = M.grammar_dir()
  local so, src = vim.uv.fs_stat(M.path(lang)), grammar and vim.uv.fs_stat(grammar .. '/' .. lang .. '/src/parser.c')
  return so ~= nil and src ~= nil and src.mtime.sec > so.mtime.sec
end

local registered = {}

--- Loads the compiled parser of `lang` (once). Returns true if it is available.
function M.register(lang, force)
  if not vim.tbl_contains(M.languages, lang) then
    return false
  end
  if registered[lang] and not force then
    return true
  end
  local path = M.path(lang)
  if not exists(path) then
    return false
  end
  -- Neovim 0.11 returns nil and a message on failure; older versions threw.
  local ok, loaded, msg = pcall(vim.treesitter.language.add, lang, { path = path })
  if not ok or not loaded then
    local err = ok and msg or loaded
    notify('cannot load ' .. path .. ': ' .. tostring(err) .. ' (run :WirelensInstallParsers)', vim.log.levels.WARN)
    return false
  end
  registered[lang] = true
  return true
end

function M.is_installed(lang)
  return exists(M.path(lang))
end

--- Compiles the parsers (asynchronously). `on_done(ok, message)` runs on the main loop.
--- opts.languages: subset of { 'sdp', 'ffi' }.
function M.install(opts, on_done)
  opts = opts or {}
  local function finish(ok, msg)
    notify(msg, ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    if on_done then
      on_done(ok, msg)
    end
  end
  local grammar = M.grammar_dir()
  if not grammar then
    return finish(
      false,
      'grammar sources not found; set parsers.grammar_dir in setup() to the wirelens repository\'s grammar/ folder'
    )
  end
  local cc = M.compiler()
  if not cc then
    return finish(false, 'no C compiler found (tried $CC, cc, gcc, clang); set parsers.compiler in setup()')
  end
  local langs = opts.languages or M.languages
  local out_dir = M.dir() .. '/parser'
  vim.fn.mkdir(out_dir, 'p')
  local pending, failures = #langs, {}
  for _, lang in ipairs(langs) do
    local src = grammar .. '/' .. lang .. '/src'
    local out = M.path(lang)
    local tmp = out .. '.tmp' .. vim.uv.os_getpid()
    local cmd = { cc }
    vim.list_extend(cmd, cfg.cflags or { '-O2', '-std=c11' })
    vim.list_extend(cmd, { '-shared', '-fPIC', '-I', src, src .. '/parser.c', '-o', tmp })
    if exists(src .. '/scanner.c') then
      table.insert(cmd, #cmd - 2, src .. '/scanner.c')
    end
    vim.system(cmd, { text = true }, function(res)
      vim.schedule(function()
        if res.code == 0 then
          -- Replace atomically: a running Neovim keeps the old file mapped.
          local ok, err = vim.uv.fs_rename(tmp, out)
          if not ok then
            table.insert(failures, lang .. ': ' .. tostring(err))
          else
            registered[lang] = nil
            M.register(lang, true)
          end
        else
          os.remove(tmp)
          table.insert(failures, lang .. ': ' .. (res.stderr or ''):sub(1, 2000))
        end
        pending = pending - 1
        if pending == 0 then
          if #failures > 0 then
            finish(false, 'compiling parsers failed:\n' .. table.concat(failures, '\n'))
          else
            -- Start highlighting in already open buffers.
            local wirelens = require('wirelens')
            for _, buf in ipairs(vim.api.nvim_list_bufs()) do
              if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(langs, vim.bo[buf].filetype) then
                wirelens._start_treesitter(buf)
              end
            end
            finish(true, 'installed parsers ' .. table.concat(langs, ', ') .. ' in ' .. out_dir)
          end
        end
      end)
    end)
  end
end

return M
