-- :WirelensInspect {file} [root]: the bytes of {file} decoded with the current schema
-- buffer (its unsaved text, through the server's `wirelens/inspect`), in two linked
-- buffers: a hex dump with a highlight per field, and the tree of decoded values.
-- Cursor in the tree: the node's bytes are highlighted. Cursor on a hex byte: the tree
-- cursor moves to its node and the schema line of its field is shown. Edits of the
-- schema re-decode (debounced).
local M = {}

local ns = vim.api.nvim_create_namespace('wirelens-inspect')
local PER_ROW = 16
local DEBOUNCE_MS = 250
--- Tree nodes asked for (the server's cap; the answer says when it cut the tree).
M.max_nodes = 20000
--- Largest file shown in full in the hex buffer.
local MAX_HEX_BYTES = 4 * 1024 * 1024
local COLOURS = { 'DiffAdd', 'DiffChange', 'DiffText', 'Search', 'Visual', 'PmenuSel' }

--- Sessions by schema buffer and by hex/tree buffer.
M.sessions = {}

local function hex_pos(offset)
  local row = math.floor(offset / PER_ROW)
  local i = offset % PER_ROW
  -- "00000000  " then "xx " per byte, an extra space after the 8th.
  local col = 10 + i * 3 + (i >= 8 and 1 or 0)
  return row, col
end

--- The byte under a hex buffer position, or nil.
function M.offset_at(row, col, length)
  if col < 10 then
    return nil
  end
  local c = col - 10
  if c >= 8 * 3 then
    c = c - 1
  end
  local i = math.floor(c / 3)
  if i < 0 or i >= PER_ROW then
    return nil
  end
  local o = row * PER_ROW + i
  return o < length and o or nil
end

local function hex_lines(bytes)
  local out = {}
  local n = math.min(#bytes, MAX_HEX_BYTES)
  for r = 0, math.ceil(n / PER_ROW) - 1 do
    local parts, ascii = {}, {}
    for i = 0, PER_ROW - 1 do
      local o = r * PER_ROW + i
      if o < n then
        local b = bytes:byte(o + 1)
        parts[#parts + 1] = string.format('%02x', b) .. (i == 7 and '  ' or ' ')
        ascii[#ascii + 1] = (b >= 0x20 and b < 0x7f) and string.char(b) or '.'
      else
        parts[#parts + 1] = i == 7 and '    ' or '   '
      end
    end
    out[#out + 1] = string.format('%08x  %s %s', r * PER_ROW, table.concat(parts), table.concat(ascii))
  end
  return out
end

local function show_value(v)
  if v == nil or v == vim.NIL then
    return nil
  end
  local s = vim.json.encode(v)
  if #s > 80 then
    s = s:sub(1, 80) .. '…'
  end
  return s
end

--- The tree as lines, and the node of each line (pre-order).
function M.tree_lines(tree)
  local lines, nodes = {}, {}
  local function walk(n, depth)
    local v = show_value(n.value)
    local text = string.rep('  ', depth) .. n.name .. (v and (' = ' .. v) or '') .. '  ' .. n.type
    lines[#lines + 1] = text .. string.format('  @%d..%d', n.start, n['end'])
    nodes[#nodes + 1] = n
    for _, c in ipairs(n.children or {}) do
      walk(c, depth + 1)
    end
  end
  if tree and tree ~= vim.NIL then
    walk(tree, 0)
  end
  return lines, nodes
end

--- The deepest node whose bytes hold `offset`: its line in the tree.
function M.line_for_offset(nodes, offset)
  local best
  for i, n in ipairs(nodes) do
    if type(n) == 'table' and offset >= n.start and offset < n['end'] then
      best = i -- pre-order: later hits are deeper
    end
  end
  return best
end

local function set_buf(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

local function scratch(name, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = ft
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

--- Highlights `start..end` in the hex buffer with `group`.
local function mark_bytes(s, from, to, group, priority)
  local n = math.min(#s.bytes, MAX_HEX_BYTES)
  to = math.min(to, n)
  local o = from
  while o < to do
    local row, col = hex_pos(o)
    local row_end = (row + 1) * PER_ROW
    local last = math.min(to, row_end) - 1
    local _, ecol = hex_pos(last)
    vim.api.nvim_buf_set_extmark(s.hex, ns, row, col, { end_row = row, end_col = ecol + 2, hl_group = group, priority = priority })
    o = last + 1
  end
end

local function paint(s)
  if not vim.api.nvim_buf_is_valid(s.hex) then
    return
  end
  vim.api.nvim_buf_clear_namespace(s.hex, ns, 0, -1)
  local k = 0
  for _, n in ipairs(s.nodes) do
    if type(n) == 'table' and (not n.children or #n.children == 0) then
      k = k + 1
      mark_bytes(s, n.start, n['end'], COLOURS[(k - 1) % #COLOURS + 1], 100)
    end
  end
  local e = s.result and s.result.error
  if e and e ~= vim.NIL then
    local o = math.min(e.offset, math.max(#s.bytes - 1, 0))
    mark_bytes(s, o, o + 1, 'ErrorMsg', 300)
  end
  if s.selected then
    mark_bytes(s, s.selected.start, s.selected['end'], 'IncSearch', 200)
  end
end

local function render(s)
  local lines
  lines, s.nodes = M.tree_lines(s.result.tree)
  local e = s.result.error
  local head = string.format('%s · %s · %d B%s', tostring(s.result.root), s.result.mode, s.result.length, s.result.truncated and ' · tree truncated' or '')
  if e and e ~= vim.NIL then
    head = head .. string.format(' · ERROR at offset %d%s: %s', e.offset, e.path ~= '' and (' (' .. e.path .. ')') or '', e.message)
  end
  table.insert(lines, 1, head)
  table.insert(s.nodes, 1, false)
  if vim.api.nvim_buf_is_valid(s.tree) then
    set_buf(s.tree, lines)
  end
  paint(s)
end

function M.run(s, done)
  local client = require('wirelens').client(s.schema)
  if not client then
    vim.notify('wirelens: the language server is not attached to the schema', vim.log.levels.WARN)
    return
  end
  local params = { uri = vim.uri_from_bufnr(s.schema), path = s.path, maxNodes = M.max_nodes }
  if s.root then
    params.root = s.root
  end
  s.generation = (s.generation or 0) + 1
  local gen = s.generation
  client:request('wirelens/inspect', params, function(err, result)
    if gen ~= s.generation then
      return
    end
    if err then
      vim.notify('wirelens inspect: ' .. tostring(err.message or err), vim.log.levels.ERROR)
    else
      s.result = result
      render(s)
    end
    if done then
      done(err, result)
    end
  end, s.schema)
end

--- Cursor in the tree: highlight the node's bytes (and show them in the hex window).
local function on_tree_cursor(s)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local n = s.nodes[line]
  n = type(n) == 'table' and n or nil
  s.selected = n
  paint(s)
  if n and s.hex_win and vim.api.nvim_win_is_valid(s.hex_win) then
    local row = hex_pos(n.start)
    pcall(vim.api.nvim_win_set_cursor, s.hex_win, { row + 1, 10 })
  end
end

--- The nearest node up the tree with a schema declaration.
local function declared(s, line)
  local n = s.nodes[line]
  while line > 1 and type(n) == 'table' and not n.schemaRange do
    local depth = #(s.tree_text[line]:match('^ *'))
    repeat
      line = line - 1
    until line <= 1 or #(s.tree_text[line]:match('^ *')) < depth
    n = s.nodes[line]
  end
  return type(n) == 'table' and n.schemaRange and n or nil
end

--- Cursor on a hex byte: the tree cursor to its node, the schema line of its field shown.
local function on_hex_cursor(s)
  local pos = vim.api.nvim_win_get_cursor(0)
  local o = M.offset_at(pos[1] - 1, pos[2], #s.bytes)
  if not o then
    return
  end
  local line = M.line_for_offset(s.nodes, o)
  if not line then
    return
  end
  s.selected = s.nodes[line]
  paint(s)
  if s.tree_win and vim.api.nvim_win_is_valid(s.tree_win) then
    pcall(vim.api.nvim_win_set_cursor, s.tree_win, { line, 0 })
  end
  s.tree_text = vim.api.nvim_buf_get_lines(s.tree, 0, -1, false)
  local n = declared(s, line)
  if n then
    s.revealed = n.schemaRange.start.line
    for _, w in ipairs(vim.fn.win_findbuf(s.schema)) do
      pcall(vim.api.nvim_win_set_cursor, w, { n.schemaRange.start.line + 1, 0 })
    end
  end
end

--- `:WirelensInspect {file} [root]` from the schema buffer.
function M.open(file, root, opts)
  opts = opts or {}
  local schema = vim.api.nvim_get_current_buf()
  if not vim.tbl_contains({ 'sdp', 'ffi' }, vim.bo[schema].filetype) then
    vim.notify('wirelens: run :WirelensInspect from an .sdp or .ffi schema buffer', vim.log.levels.WARN)
    return
  end
  local path = vim.fn.fnamemodify(vim.fn.expand(file), ':p')
  local f = io.open(path, 'rb')
  if not f then
    vim.notify('wirelens: cannot read ' .. path, vim.log.levels.ERROR)
    return
  end
  local bytes = f:read('*a')
  f:close()
  local s = { schema = schema, path = path, bytes = bytes, root = root, nodes = {} }
  s.hex = scratch('wirelens-inspect://' .. path .. '.hex', 'wirelens-hex')
  s.tree = scratch('wirelens-inspect://' .. path .. '.tree', 'wirelens-tree')
  set_buf(s.hex, hex_lines(bytes))
  set_buf(s.tree, { 'decoding…' })
  vim.cmd('botright vsplit')
  vim.api.nvim_win_set_buf(0, s.hex)
  s.hex_win = vim.api.nvim_get_current_win()
  vim.cmd('belowright vsplit')
  vim.api.nvim_win_set_buf(0, s.tree)
  s.tree_win = vim.api.nvim_get_current_win()
  s.tree_text = {}
  local group = vim.api.nvim_create_augroup('wirelens-inspect-' .. s.hex, { clear = true })
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    buffer = s.tree,
    callback = function()
      on_tree_cursor(s)
    end,
  })
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    buffer = s.hex,
    callback = function()
      on_hex_cursor(s)
    end,
  })
  local timer = vim.uv.new_timer()
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = schema,
    callback = function()
      timer:stop()
      timer:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
        if vim.api.nvim_buf_is_valid(s.hex) then
          M.run(s)
        end
      end))
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = s.hex,
    callback = function()
      timer:stop()
      timer:close()
      pcall(vim.api.nvim_del_augroup_by_id, group)
      M.sessions[schema] = nil
    end,
  })
  M.sessions[schema] = s
  M.run(s, opts.on_result)
  return s
end

return M
