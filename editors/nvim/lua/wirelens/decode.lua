-- :WirelensDecode: decodes bytes (a file, or hex selected, pasted or typed) with the
-- schema of a buffer through `wirelens decode --annotate`, into a read-only scratch
-- buffer. SDP bytes that start with a message header are decoded in message mode with
-- the root named by the header's type id.
local M = {}

local function wirelens()
  return require('wirelens')
end

local function fail(msg)
  wirelens()._notify('decode: ' .. msg, vim.log.levels.ERROR)
  return false
end

--- Hex text to bytes. Whitespace, `,`, `:` and `0x` prefixes are separators; anything
--- else is an error naming the character and its position.
function M.parse_hex(text)
  local digits = {}
  local i, n = 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c:match('%x') then
      if c == '0' and text:sub(i + 1, i + 1):match('[xX]') and text:sub(i + 2, i + 2):match('%x') then
        i = i + 2 -- a 0x prefix
      else
        table.insert(digits, c)
        i = i + 1
      end
    elseif c:match('[%s,:]') then
      i = i + 1
    else
      return nil, ('not a hex digit: %q at character %d'):format(c, vim.str_utfindex(text, 'utf-32', i - 1) + 1)
    end
  end
  if #digits == 0 then
    return nil, 'no hex digits'
  end
  if #digits % 2 == 1 then
    return nil, ('an odd number of hex digits (%d)'):format(#digits)
  end
  local bytes = {}
  for k = 1, #digits, 2 do
    bytes[#bytes + 1] = string.char(tonumber(digits[k] .. digits[k + 1], 16))
  end
  return table.concat(bytes)
end

--- The type id of an SDP message header (`SDP` '2' u16 id u32 length), or nil.
function M.message_type_id(bytes)
  if #bytes >= 10 and bytes:sub(1, 4) == 'SDP2' then
    return bytes:byte(5) + 256 * bytes:byte(6)
  end
  return nil
end

--- The schema buffer: the current one if it is sdp/ffi, else the last one used.
local function schema_buffer()
  local fts = wirelens().config.filetypes
  local cur = vim.api.nvim_get_current_buf()
  if vim.tbl_contains(fts, vim.bo[cur].filetype) then
    return cur
  end
  local last = wirelens()._last_schema
  if last and vim.api.nvim_buf_is_loaded(last) and vim.tbl_contains(fts, vim.bo[last].filetype) then
    return last
  end
  local best, used = nil, -1
  for _, info in ipairs(vim.fn.getbufinfo({ bufloaded = 1 })) do
    if vim.tbl_contains(fts, vim.bo[info.bufnr].filetype) and info.lastused > used then
      best, used = info.bufnr, info.lastused
    end
  end
  return best
end

local function server_binary()
  return wirelens().server_cmd()[1]
end

--- The error of a failed CLI run: the last line of stderr (not the dump before it).
local function short_stderr(stderr)
  local lines = vim.split(vim.trim(stderr or ''), '\n', { plain = true })
  return ((lines[#lines] or ''):gsub('^error: ', ''))
end

--- `wirelens layout --format json` of the schema: its types (name, message_id, root).
local function layout_types(bin, path)
  local r = vim.system({ bin, 'layout', '--format', 'json', path }, { text = true }):wait()
  if r.code ~= 0 then
    return nil, short_stderr(r.stderr)
  end
  local ok, json = pcall(vim.json.decode, r.stdout)
  if not ok or type(json) ~= 'table' or type(json.types) ~= 'table' then
    return nil, 'unexpected output of wirelens layout'
  end
  return json.types
end

--- Shows the dump in a read-only scratch buffer (one per root type) and returns it.
local function show(title, lines)
  local name = 'wirelens://decode/' .. title
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'hide'
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright vsplit')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  vim.wo[win].wrap = false -- the field/value column stays in view, not broken
  vim.wo[win].number = false
  return buf
end

--- The struct around the cursor of a schema window, from the server's symbols.
local function type_at_cursor(schema)
  local client = wirelens().client(schema)
  local win = vim.fn.bufwinid(schema)
  if not client or win == -1 then
    return nil
  end
  local params = vim.lsp.util.make_position_params(win, client.offset_encoding)
  local resp = client:request_sync('textDocument/documentSymbol', { textDocument = params.textDocument }, 2000, schema)
  for _, s in ipairs(resp and resp.result or {}) do
    local r = s.range
    local p = params.position
    local after_start = r.start.line < p.line or (r.start.line == p.line and r.start.character <= p.character)
    local before_end = p.line < r['end'].line or (p.line == r['end'].line and p.character <= r['end'].character)
    if after_start and before_end then
      return s.name
    end
  end
end

local function decode_bytes(schema, bytes, source, opts)
  local path = vim.api.nvim_buf_get_name(schema)
  if vim.bo[schema].modified then
    return fail(('save %s first (the decoder reads the file)'):format(vim.fn.fnamemodify(path, ':t')))
  end
  local bin = server_binary()
  local types, err = layout_types(bin, path)
  if not types then
    return fail(err)
  end
  local dialect = vim.bo[schema].filetype
  local mode, root, note
  local id = dialect == 'sdp' and M.message_type_id(bytes) or nil
  if id then
    mode = 'message'
    for _, t in ipairs(types) do
      if t.message_id == id then
        root = t.name
      end
    end
    if not root then
      return fail(('the message header names type id %d, which is not a struct of %s'):format(id, vim.fn.fnamemodify(path, ':t')))
    end
    note = ('message type id %d'):format(id)
  elseif dialect == 'sdp' then
    mode = 'byte'
  end

  local function run(chosen)
    local args = { bin, 'decode', '--annotate', '--schema', path, '--root', chosen }
    if mode then
      vim.list_extend(args, { '--mode', mode })
    end
    vim.system(args, { stdin = bytes }, function(r)
      vim.schedule(function()
        local head = ('%s from %s, %d byte(s)%s'):format(chosen, source, #bytes, note and (', ' .. note) or '')
        local lines = { head, '' }
        if r.code == 0 then
          vim.list_extend(lines, vim.split(r.stdout, '\n', { trimempty = true }))
        else
          -- The dump up to the error is on stderr, the error on its last line.
          vim.list_extend(lines, vim.split(vim.trim(r.stderr), '\n', { plain = true }))
          fail(short_stderr(r.stderr))
        end
        local buf = show(chosen, lines)
        if opts.callback then
          local err = nil
          if r.code ~= 0 then
            err = short_stderr(r.stderr)
          end
          opts.callback(buf, err)
        end
      end)
    end)
  end

  root = root or opts.root or type_at_cursor(schema)
  if root then
    return run(root)
  end
  local names = {}
  for _, t in ipairs(types) do
    if t.root ~= false then -- ffire helpers are not roots; SDP has no such notion
      table.insert(names, t.name)
    end
  end
  vim.ui.select(names, { prompt = 'Root type of the value' }, function(choice)
    if choice then
      run(choice)
    end
  end)
  return true
end

--- opts: file (a binary file), hex (text), line1/line2 (hex in those lines of the
--- current buffer), root (skip the picker), callback(buf, err) (tests).
function M.run(opts)
  local schema = schema_buffer()
  if not schema then
    return fail('open an .sdp or .ffi schema first')
  end
  if opts.file and opts.file ~= '' then
    local f, ferr = io.open(vim.fn.expand(opts.file), 'rb')
    if not f then
      return fail(ferr)
    end
    local bytes = f:read('*a')
    f:close()
    return decode_bytes(schema, bytes, vim.fn.fnamemodify(opts.file, ':t'), opts)
  end
  local function from_hex(text, source)
    local bytes, herr = M.parse_hex(text)
    if not bytes then
      return fail(herr)
    end
    return decode_bytes(schema, bytes, source, opts)
  end
  if opts.hex then
    return from_hex(opts.hex, 'hex')
  end
  if opts.line1 then
    local lines
    local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
    if vim.fn.visualmode() == 'v' and vs[2] == opts.line1 and ve[2] == opts.line2 then
      lines = vim.fn.getregion(vs, ve, { type = 'v' }) -- just the characters selected
    else
      lines = vim.api.nvim_buf_get_lines(0, opts.line1 - 1, opts.line2, false)
    end
    return from_hex(table.concat(lines, ' '), 'the selected hex')
  end
  -- Nothing given: ask, with the clipboard (or the unnamed register) as the default.
  local default = ''
  for _, reg in ipairs({ '+', '"' }) do
    local ok, text = pcall(vim.fn.getreg, reg)
    if ok and type(text) == 'string' and text ~= '' and M.parse_hex(text) then
      default = vim.trim(text)
      break
    end
  end
  vim.ui.input({ prompt = 'Hex to decode: ', default = default }, function(text)
    if text and vim.trim(text) ~= '' then
      from_hex(text, 'hex')
    end
  end)
  return true
end

return M
