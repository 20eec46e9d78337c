-- Inlay hints (offset · size) for the lines on screen only.
--
-- Neovim 0.11's built-in inlay hints ask the server for the whole buffer after every
-- change: about 40,000 hints for a 60,000-line schema, 4 s from keystroke to hint. These
-- ask for the visible lines of each window showing the buffer (plus a margin, so a short
-- scroll shows hints at once), debounced, drop answers for an older text, and draw the
-- answer as inline virtual text in the `LspInlayHint` highlight.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('wirelens.hints')

--- Lines fetched above and below the visible ones.
M.margin = 40
--- Milliseconds to wait after the last change or scroll before asking.
M.delay = 20

---@class wirelens.hints.state
---@field client_id integer
---@field timer uv.uv_timer_t?
---@field drawn { line: integer, character: integer, label: string }[] hints drawn now
---@field tick integer the changedtick the drawn hints belong to (-1: none yet)
---@field group integer autocommand group
---@field asked string? the lines and changedtick last asked for
---@field force boolean? the next scheduled request asks even for the same lines

---@type table<integer, wirelens.hints.state>
local states = {}

local function label_text(label)
  if type(label) == 'table' then
    return table.concat(vim.tbl_map(function(p)
      return p.value
    end, label))
  end
  return label
end

--- The 0-based line range to ask for: every window's visible lines plus the margin.
local function wanted_lines(bufnr)
  local first, last
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    local top = vim.fn.line('w0', win) - 1
    local bottom = vim.fn.line('w$', win) - 1
    first = math.min(first or top, top)
    last = math.max(last or bottom, bottom)
  end
  if not first then
    return nil
  end
  local count = api.nvim_buf_line_count(bufnr)
  return math.max(0, first - M.margin), math.min(count - 1, last + M.margin)
end

local function draw(bufnr, hints, encoding)
  api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local st = states[bufnr]
  st.drawn = {}
  local count = api.nvim_buf_line_count(bufnr)
  for _, h in ipairs(hints) do
    local line = h.position.line
    if line < count then
      local text = api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
      local ok, col = pcall(vim.str_byteindex, text, encoding, h.position.character, false)
      col = ok and math.min(col, #text) or #text
      local label = label_text(h.label)
      local shown = (h.paddingLeft and ' ' or '') .. label .. (h.paddingRight and ' ' or '')
      api.nvim_buf_set_extmark(bufnr, ns, line, col, {
        virt_text = { { shown, 'LspInlayHint' } },
        virt_text_pos = 'inline',
        right_gravity = false,
      })
      table.insert(st.drawn, { line = line, character = h.position.character, label = label })
    end
  end
end

--- Asks for the hints of the visible lines of `bufnr` now, unless the same lines of the
--- same text were asked for last (`force`: ask anyway).
function M.request(bufnr, force)
  local st = states[bufnr]
  if not st or not api.nvim_buf_is_valid(bufnr) then
    return
  end
  local client = vim.lsp.get_client_by_id(st.client_id)
  local first, last = wanted_lines(bufnr)
  if not client or not first then
    return
  end
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local key = first .. ':' .. last .. ':' .. tick
  if key == st.asked and not force then
    return
  end
  st.asked = key
  local last_text = api.nvim_buf_get_lines(bufnr, last, last + 1, false)[1] or ''
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = {
      start = { line = first, character = 0 },
      ['end'] = { line = last, character = vim.str_utfindex(last_text, client.offset_encoding) },
    },
  }
  client:request('textDocument/inlayHint', params, function(err, result)
    -- An answer for an older text (a newer request follows) or a closed buffer is dropped.
    if err or states[bufnr] ~= st or not api.nvim_buf_is_valid(bufnr) then
      return
    end
    if api.nvim_buf_get_changedtick(bufnr) ~= tick then
      return
    end
    draw(bufnr, result or {}, client.offset_encoding)
    st.tick = tick
    api.nvim_exec_autocmds('User', { pattern = 'WirelensHints', modeline = false, data = { buf = bufnr } })
  end, bufnr)
end

--- Asks again after `M.delay` ms of quiet (a burst of keystrokes or scrolls asks once).
function M.schedule(bufnr, force)
  local st = states[bufnr]
  if not st then
    return
  end
  if not st.timer then
    st.timer = vim.uv.new_timer()
  end
  st.timer:stop()
  st.force = st.force or force
  st.timer:start(M.delay, 0, vim.schedule_wrap(function()
    local f = st.force
    st.force = false
    M.request(bufnr, f)
  end))
end

--- Shows hints in `bufnr` from the client `client_id`.
function M.enable(bufnr, client_id)
  if states[bufnr] then
    return
  end
  local group = api.nvim_create_augroup('wirelens.hints.' .. bufnr, { clear = true })
  states[bufnr] = { client_id = client_id, drawn = {}, tick = -1, group = group }
  -- CursorMoved too: a jump scrolls the window (and costs nothing when it does not:
  -- the same lines are not asked for twice).
  api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI', 'BufWinEnter', 'WinScrolled', 'WinResized', 'CursorMoved' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.schedule(bufnr)
    end,
  })
  api.nvim_create_autocmd({ 'BufUnload', 'LspDetach' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.disable(bufnr)
    end,
  })
  M.request(bufnr)
end

function M.disable(bufnr)
  local st = states[bufnr]
  if not st then
    return
  end
  states[bufnr] = nil
  if st.timer then
    st.timer:stop()
    st.timer:close()
  end
  pcall(api.nvim_del_augroup_by_id, st.group)
  if api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  end
end

function M.is_enabled(bufnr)
  return states[bufnr] ~= nil
end

--- The hints drawn in `bufnr` now: `{ line, character, label }` (0-based), in the
--- server's order.
function M.get(bufnr)
  local st = states[bufnr]
  return st and st.drawn or {}
end

--- The server asked for fresh hints (`workspace/inlayHint/refresh`): every buffer of
--- that client asks again.
function M.refresh(client_id)
  for bufnr, st in pairs(states) do
    if st.client_id == client_id then
      M.schedule(bufnr, true)
    end
  end
end

M.namespace = ns
return M
