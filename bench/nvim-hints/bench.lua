-- One measurement (run by bench/nvim-hints/run): open -> first hints, then keystroke ->
-- the edited line's hint shows the new size, five keystrokes in the middle of the file.
local builtin = vim.env.BENCH_MODE == 'builtin'
local hints = require('wirelens.hints')
local uv = vim.uv

local function labels_on(buf, line)
  local out = {}
  if builtin then
    for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf, range = {
      start = { line = line, character = 0 }, ['end'] = { line = line, character = 1000 } } })) do
      local l = h.inlay_hint.label
      out[#out + 1] = type(l) == 'table' and l[1].value or l
    end
  else
    for _, h in ipairs(hints.get(buf)) do
      if h.line == line then
        out[#out + 1] = h.label
      end
    end
  end
  return out
end

local function any_hint(buf)
  if builtin then
    return #vim.lsp.inlay_hint.get({ bufnr = buf }) > 0
  end
  return #hints.get(buf) > 0
end

local t0 = uv.hrtime()
vim.cmd.edit(vim.fn.fnameescape(vim.env.BENCH_FILE))
local buf = vim.api.nvim_get_current_buf()
assert(vim.wait(120000, function()
  vim.cmd('redraw')
  return any_hint(buf)
end, 5), 'no hints within 120 s')
local open_ms = (uv.hrtime() - t0) / 1e6

-- Keystrokes on `fN_val: u64,` lines around the middle, each switched to `u32`.
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local targets = {}
for i = math.floor(#lines / 2), #lines do
  if lines[i]:match('^    f%d+_val: u64,$') then
    targets[#targets + 1] = i
    if #targets == 5 then
      break
    end
  end
end
local times = {}
for _, row in ipairs(targets) do
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  vim.cmd('normal! zz')
  vim.cmd('redraw')
  if not builtin then
    -- Headless Neovim has no UI: a script's jump fires no WinScrolled/CursorMoved, which
    -- a user's jump would.
    hints.schedule(buf)
  end
  assert(vim.wait(60000, function()
    vim.cmd('redraw')
    local l = labels_on(buf, row - 1)[1]
    return l ~= nil and l:find(' 8 B', 1, true) ~= nil
  end, 5), ('no hint on line %d (window %d-%d, %d hints from line %s)'):format(row, vim.fn.line('w0'), vim.fn.line('w$'),
    #hints.get(buf), tostring((hints.get(buf)[1] or {}).line)))
  local t = uv.hrtime()
  local col = lines[row]:find('u64', 1, true) - 1
  vim.api.nvim_buf_set_text(buf, row - 1, col + 1, row - 1, col + 3, { '32' })
  assert(vim.wait(60000, function()
    local l = labels_on(buf, row - 1)[1]
    return l ~= nil and l:find(' 4 B', 1, true) ~= nil
  end, 2), 'the hint did not follow the edit on line ' .. row)
  times[#times + 1] = (uv.hrtime() - t) / 1e6
end
table.sort(times)
io.stdout:write(('%-8s open->first hints %7.0f ms   keystroke->hint median %6.0f ms (min %.0f, max %.0f, %d edits)\n')
  :format(vim.env.BENCH_MODE, open_ms, times[math.ceil(#times / 2)], times[1], times[#times], #times))
vim.cmd('qall!')
