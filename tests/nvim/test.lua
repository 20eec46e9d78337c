-- End-to-end test of editors/nvim against the real `wirelens lsp` (run by tests/nvim/run).
local root = vim.env.WIRELENS_ROOT
local work = vim.env.WIRELENS_TEST_DIR
local TIMEOUT = 15000

local passed, failed = 0, 0

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    out('ok   ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. (detail and ('\n     ' .. tostring(detail):gsub('\n', '\n     ')) or ''))
  end
  return ok
end

-- Runs a test body; an error counts as one failure and the other tests still run.
local function test(name, body)
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    check(name .. ' (raised an error)', false, err)
  end
end

local function wait(pred, ms)
  return vim.wait(ms or TIMEOUT, pred, 20)
end

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

local function read(path)
  local f = assert(io.open(path, 'r'))
  local s = f:read('*a')
  f:close()
  return s
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

--- The index of the first line matching a Lua pattern.
local function find_row(list, pattern)
  for i, l in ipairs(list) do
    if l:find(pattern) then
      return i
    end
  end
end

local function floats()
  return vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative ~= ''
  end, vim.api.nvim_list_wins())
end

local function close_floats()
  for _, w in ipairs(floats()) do
    vim.api.nvim_win_close(w, true)
  end
end

local function float_lines()
  local w = floats()[1]
  return w and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false) or {}
end

local function find_line(buf, pattern)
  for i, l in ipairs(lines(buf)) do
    if l:find(pattern, 1, true) then
      return i
    end
  end
end

--- Opens `path` and waits until the wirelens client is attached.
local function open(path)
  if vim.fs.normalize(vim.api.nvim_buf_get_name(0)) ~= vim.fs.normalize(path) then
    vim.cmd.edit(vim.fn.fnameescape(path))
  end
  local buf = vim.api.nvim_get_current_buf()
  local attached = wait(function()
    return require('wirelens').client(buf) ~= nil
  end)
  return buf, attached
end

--- Waits until the server published diagnostics for `buf` (the plugin's namespace
--- has been set at least once), then returns them.
local function published(buf)
  local client = require('wirelens').client(buf)
  local ns = client and vim.lsp.diagnostic.get_namespace(client.id)
  wait(function()
    return ns and #vim.diagnostic.get(buf, { namespace = ns }) > 0
  end, 3000)
  return vim.diagnostic.get(buf, { namespace = ns })
end

-- Fixtures: copies of real schemas in a workspace with a wirelens.toml (a root marker).
write(work .. '/wirelens.toml', '[ffi]\norder = "canonical"\n')
write(work .. '/audiounit.sdp', read(root .. '/tests/vectors/sdp/schemas/audiounit.sdp'))
write(work .. '/broken.sdp', 'struct Record {\n    id: u32,\n    payload: Strng,\n}\n')
write(work .. '/missing.sdp', 'struct Record {\n    id: u32,\n    extra: Missing,\n}\n')
write(work .. '/messy.sdp', 'struct A{x:u32,   y :str}\n')
write(work .. '/registry.sdp', read(root .. '/examples/audiounit/plugin_registry.sdp'))
write(work .. '/msg.ffi', 'package p\n\ntype Msg struct {\n\tName string\n\tId   int64\n}\n')

local notes = {}
local orig_notify = vim.notify
-- Messages are recorded (and printed with the test output, not as editor errors).
vim.notify = function(msg)
  table.insert(notes, msg)
  out('     (message) ' .. tostring(msg):gsub('\n', ' '))
end

test('filetypes and attach', function()
  local buf, attached = open(work .. '/audiounit.sdp')
  check('.sdp has filetype sdp', vim.bo[buf].filetype == 'sdp', vim.bo[buf].filetype)
  check('the wirelens client attaches to an .sdp buffer', attached)
  local client = require('wirelens').client(buf)
  check(
    'root_dir is the folder with wirelens.toml',
    client and vim.fs.normalize(client.root_dir or '') == vim.fs.normalize(work),
    client and client.root_dir
  )
  check(
    'settings are sent as initializationOptions',
    client and vim.tbl_get(client.config, 'init_options', 'ffi', 'order') == 'canonical',
    client and vim.inspect(client.config.init_options)
  )
  check(
    'cmd is the configured server',
    client and client.config.cmd[1] == vim.env.WIRELENS_SERVER and client.config.cmd[2] == 'lsp',
    client and vim.inspect(client.config.cmd)
  )
  local fbuf = open(work .. '/msg.ffi')
  check('.ffi has filetype ffi', vim.bo[fbuf].filetype == 'ffi', vim.bo[fbuf].filetype)
  check('one client serves both dialects', require('wirelens').client(fbuf) == client)
end)

test('diagnostics', function()
  local buf = open(work .. '/broken.sdp')
  local diags = published(buf)
  local d = diags[1] or {}
  check('a broken file gets a diagnostic', #diags > 0, vim.inspect(diags))
  check('its code is UNKNOWN_TYPE', d.code == 'UNKNOWN_TYPE', d.code)
  check('on the line of `payload: Strng` (line 3)', d.lnum == 2, d.lnum)
  check('at the column of `Strng`', d.col == 13, d.col)
  check('severity error', d.severity == vim.diagnostic.severity.ERROR, d.severity)
  -- Fix it: the diagnostic goes away (an empty list is published).
  vim.api.nvim_buf_set_text(buf, 2, 13, 2, 18, { 'str' })
  local cleared = wait(function()
    return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }) == 0
  end)
  check('fixing the type clears the error', cleared, vim.inspect(vim.diagnostic.get(buf)))

  local abuf = open(work .. '/audiounit.sdp')
  vim.wait(500)
  local errors = vim.diagnostic.get(abuf, { severity = vim.diagnostic.severity.ERROR })
  check('audiounit.sdp has no errors', #errors == 0, vim.inspect(errors))
end)

test('layout hover (:WirelensLayout)', function()
  local buf = open(work .. '/audiounit.sdp')
  local line = find_line(buf, 'address: u64')
  vim.api.nvim_win_set_cursor(0, { line, 6 }) -- on a field of Parameter
  local text, err
  require('wirelens').layout(function(t, e)
    text, err = t or '', e
  end)
  wait(function()
    return text ~= nil
  end)
  text = text or ''
  check('the layout arrives', text ~= '', err or 'timeout')
  check('it is the enclosing struct', text:find('struct Parameter', 1, true) ~= nil, text)
  check('it has the field table', text:find('| 0 | `address` | `u64` | 0 (0x0) | 8 B |', 1, true) ~= nil, text)
  check(
    'with symbolic offsets',
    text:find('| 4 | `min_value` | `f32` | `20 + \\|display_name\\| + \\|identifier\\| + \\|unit\\|` | 4 B |', 1, true)
      ~= nil,
    text
  )
  local floats = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative ~= ''
  end, vim.api.nvim_list_wins())
  check('it opens a floating window', #floats > 0)
  local shown = floats[1] and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(floats[1]), 0, -1, false) or {}
  local all = table.concat(shown, '\n')
  check('the float shows no markdown escapes or table rows', not all:find('\\|', 1, true) and not find_row(shown, '^%s*|'), all)
  local arow = find_row(shown, '^%s*0%s+address%s+u64%s+0 %(0x0%)%s+8 B$')
  local mrow = find_row(shown, '^%s*4%s+min_value%s+f32%s+20 %+ |display_name| %+ |identifier| %+ |unit|%s+4 B$')
  check('the field table is aligned plain text', arow and mrow, all)
  check(
    'its columns line up (field names start in one column)',
    arow and mrow and shown[arow]:find('address', 1, true) == shown[mrow]:find('min_value', 1, true),
    all
  )
  for _, w in ipairs(floats) do
    vim.api.nvim_win_close(w, true)
  end

  -- On a reference: the referenced struct.
  local pline = find_line(buf, 'parameters: []Parameter')
  vim.api.nvim_win_set_cursor(0, { pline, 20 })
  text = nil
  require('wirelens').layout(function(t)
    text = t or ''
  end)
  wait(function()
    return text ~= nil
  end)
  check('on `[]Parameter` it shows Parameter', (text or ''):find('struct Parameter', 1, true) ~= nil, text)

  -- layout.open = 'split': a markdown scratch window.
  local wirelens = require('wirelens')
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
  wirelens.config.layout.open = 'split'
  vim.api.nvim_win_set_cursor(0, { line, 6 })
  local src_win, wins_before = vim.api.nvim_get_current_win(), #vim.api.nvim_list_wins()
  text = nil
  wirelens.layout(function(t)
    text = t or ''
  end)
  wait(function()
    return text ~= nil
  end)
  local sbuf = vim.api.nvim_get_current_buf()
  check(
    "layout.open = 'split' shows the table in a markdown split",
    #vim.api.nvim_list_wins() == wins_before + 1
      and vim.bo[sbuf].filetype == 'markdown'
      and find_row(lines(sbuf), '^%s*0%s+address%s+u64') ~= nil
      and not vim.bo[sbuf].modifiable,
    ('%d windows (before: %d), filetype %s:\n%s'):format(
      #vim.api.nvim_list_wins(),
      wins_before,
      vim.bo[sbuf].filetype,
      table.concat(lines(sbuf), '\n')
    )
  )
  vim.cmd('close')
  vim.api.nvim_set_current_win(src_win)
  wirelens.config.layout.open = 'float'

  -- The user command runs without error.
  local ok, cerr = pcall(vim.cmd, 'WirelensLayout')
  check(':WirelensLayout runs', ok, cerr)
  vim.wait(300)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
end)

test('inlay hints and code lens', function()
  local buf = open(work .. '/audiounit.sdp')
  local hints = require('wirelens.hints')
  check('inlay hints are enabled by default', hints.is_enabled(buf))
  check('and not through the built-in (whole-buffer) hints', not vim.lsp.inlay_hint.is_enabled({ bufnr = buf }))
  local labels = {}
  wait(function()
    labels = vim.tbl_map(function(h)
      return h.label
    end, hints.get(buf))
    return vim.tbl_contains(labels, '@0 · 8 B')
  end)
  check('inlay hints contain `@0 · 8 B`', vim.tbl_contains(labels, '@0 · 8 B'), vim.inspect(labels))
  local hint = hints.get(buf)[1]
  local aline = find_line(buf, 'address: u64')
  check('the first hint is after `address: u64,`', hint and hint.line == aline - 1, vim.inspect(hint))
  local marks = vim.api.nvim_buf_get_extmarks(buf, hints.namespace, 0, -1, { details = true })
  check(
    'drawn as inline virtual text',
    #marks > 0 and marks[1][4].virt_text_pos == 'inline' and marks[1][4].virt_text[1][1]:find('@0 · 8 B', 1, true) ~= nil,
    vim.inspect(marks[1])
  )

  local lenses = {}
  wait(function()
    lenses = vim.lsp.codelens.get(buf)
    return #lenses >= 6
  end)
  local titles = vim.tbl_map(function(l)
    return l.command and l.command.title or ''
  end, lenses)
  local layout_lenses = vim.tbl_filter(function(t)
    return t:find('min ', 1, true) ~= nil
  end, titles)
  check('a layout lens per struct', #layout_lenses == 3, vim.inspect(titles))
  check(
    'and Generate C | C++ | Rust lenses',
    vim.tbl_contains(titles, 'Generate C') and vim.tbl_contains(titles, 'Generate C++') and vim.tbl_contains(titles, 'Generate Rust'),
    vim.inspect(titles)
  )
  check(
    'lens titles give sizes',
    (titles[1] or ''):find('min', 1, true) ~= nil and (titles[1] or ''):find('id 1', 1, true) ~= nil,
    vim.inspect(titles)
  )

  -- ffire: the wire position of reordered fields.
  local fbuf = open(work .. '/msg.ffi')
  local flabels = {}
  wait(function()
    flabels = vim.tbl_map(function(h)
      return h.label
    end, require('wirelens.hints').get(fbuf))
    return #flabels >= 2
  end)
  check(
    'ffire hints show the wire order',
    vim.tbl_contains(flabels, '@0 · 8 B · wire #0'),
    vim.inspect(flabels)
  )
end)

test('inlay hints of a big schema: the lines on screen, fresh after each keystroke', function()
  local hints = require('wirelens.hints')
  local parts = {}
  for i = 1, 3000 do
    table.insert(parts, ('struct Big%d {\n    a: u64,\n    b: u32,\n}\n'):format(i))
  end
  local path = work .. '/big_hints.sdp'
  write(path, table.concat(parts, '\n'))
  local buf = open(path)
  local function lines_with_hints()
    local rows = {}
    for _, h in ipairs(hints.get(buf)) do
      rows[#rows + 1] = h.line
    end
    table.sort(rows)
    return rows
  end
  wait(function()
    return #hints.get(buf) > 0
  end)
  local rows = lines_with_hints()
  local bottom = vim.fn.line('w$') - 1
  check(
    'only the visible lines and the margin get hints (not all 6,000)',
    #rows > 0 and #rows < 200 and rows[#rows] <= bottom + hints.margin,
    ('%d hints, last on line %s, window ends at %d'):format(#rows, tostring(rows[#rows]), bottom)
  )
  vim.cmd('normal! G')
  -- What a UI does after a jump: redraw (headless Neovim keeps w0/w$ until then) and fire
  -- WinScrolled (headless Neovim does not reliably fire it for a script's jump).
  vim.cmd('redraw')
  vim.api.nvim_exec_autocmds('WinScrolled', { buffer = buf, modeline = false })
  local last_line = vim.api.nvim_buf_line_count(buf) - 1
  check(
    'scrolling to the end brings that end\'s hints',
    wait(function()
      local r = lines_with_hints()
      return #r > 0 and r[#r] >= last_line - 4
    end),
    vim.inspect(lines_with_hints())
  )
  -- A keystroke near the end: `b: u32` of the last struct becomes `b: u16`; its hint
  -- follows (the hint of `b` is after `a`'s 8 bytes, and its size shrinks).
  local row = vim.api.nvim_buf_line_count(buf) - 1 -- 1-based row of `    b: u32,`
  local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  check('the last struct ends with `b: u32,`', line == '    b: u32,', line)
  vim.api.nvim_buf_set_text(buf, row - 1, 8, row - 1, 10, { '16' })
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local label
  check(
    'the edited field\'s hint says 2 B after the edit',
    wait(function()
      for _, h in ipairs(hints.get(buf)) do
        if h.line == row - 1 then
          label = h.label
        end
      end
      return label == '@8 · 2 B'
    end),
    tostring(label)
  )
  check('the hints drawn belong to the edited text', vim.api.nvim_buf_get_changedtick(buf) == tick)
  vim.cmd('bwipeout!')
end)

test('semantic tokens', function()
  local buf = open(work .. '/audiounit.sdp')
  local line = find_line(buf, 'parameters: []Parameter')
  local col = lines(buf)[line]:find('Parameter', 1, true) - 1
  local types = {}
  wait(function()
    types = vim.tbl_map(function(t)
      return t.type
    end, vim.lsp.semantic_tokens.get_at_pos(buf, line - 1, col) or {})
    return #types > 0
  end)
  check('a struct reference gets a semantic token', #types > 0, vim.inspect(types))
end)

test('go to definition', function()
  local buf = open(work .. '/audiounit.sdp')
  local line = find_line(buf, 'parameters: []Parameter')
  local col = lines(buf)[line]:find('Parameter', 1, true) - 1
  vim.api.nvim_win_set_cursor(0, { line, col + 2 })
  vim.lsp.buf.definition()
  local decl = find_line(buf, 'struct Parameter')
  local jumped = wait(function()
    return vim.api.nvim_win_get_cursor(0)[1] == decl
  end)
  local cur = vim.api.nvim_win_get_cursor(0)
  check('definition jumps to `struct Parameter`', jumped and cur[2] == 7, vim.inspect(cur))
end)

test('rename', function()
  local buf = open(work .. '/audiounit.sdp')
  local decl = find_line(buf, 'struct Parameter')
  vim.api.nvim_win_set_cursor(0, { decl, 9 })
  vim.lsp.buf.rename('Param')
  local done = wait(function()
    return find_line(buf, 'struct Param {') ~= nil
  end)
  check('rename changes the declaration', done, table.concat(lines(buf), '\n'))
  check(
    'and the reference',
    find_line(buf, 'parameters: []Param') ~= nil and find_line(buf, '[]Parameter') == nil,
    table.concat(lines(buf), '\n')
  )
  -- Refused: a keyword.
  vim.api.nvim_win_set_cursor(0, { decl, 9 })
  local before = lines(buf)
  notes = {}
  vim.lsp.buf.rename('struct')
  local refused = wait(function()
    return #notes > 0
  end, 3000)
  check('renaming to a keyword is refused with a message', refused and notes[1]:find('struct', 1, true), vim.inspect(notes))
  check('and changes nothing', vim.deep_equal(before, lines(buf)))
  vim.cmd('silent edit!') -- back to the file on disk
end)

test('formatting', function()
  local buf = open(work .. '/messy.sdp')
  vim.lsp.buf.format({ bufnr = buf, timeout_ms = 5000 })
  local want = { 'struct A {', '    x: u32,', '    y: str,', '}' }
  check('formatting rewrites a messy file', vim.deep_equal(lines(buf), want), table.concat(lines(buf), '\n'))
end)

test('code action', function()
  local buf = open(work .. '/missing.sdp')
  published(buf)
  local line = find_line(buf, 'extra: Missing')
  vim.api.nvim_win_set_cursor(0, { line, 12 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(a)
      return a.title == 'Create struct `Missing`'
    end,
  })
  local done = wait(function()
    return find_line(buf, 'struct Missing {') ~= nil
  end)
  check('"Create struct `Missing`" edits the buffer', done, table.concat(lines(buf), '\n'))
  vim.cmd('silent write')
  check('and the edit is written', read(work .. '/missing.sdp'):find('struct Missing {', 1, true) ~= nil)
  local cleared = wait(function()
    return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }) == 0
  end)
  check('the UNKNOWN_TYPE error is gone', cleared, vim.inspect(vim.diagnostic.get(buf)))
end)

test(':WirelensGenerate', function()
  open(work .. '/audiounit.sdp')
  local client = require('wirelens').client()
  local provider = client.server_capabilities.executeCommandProvider
  check('the server offers wirelens.generate', provider and vim.tbl_contains(provider.commands or {}, 'wirelens.generate'))
  notes = {}
  vim.cmd('WirelensGenerate rust')
  local done = wait(function()
    return #notes > 0
  end)
  check(':WirelensGenerate rust reports success', done and notes[1]:find('generated', 1, true), vim.inspect(notes))
  local ok, out = pcall(read, work .. '/generated/audiounit.rs')
  out = ok and out or ''
  check(
    'and the Rust module is on disk',
    out:find('// @generated by wirelens', 1, true) == 1 and out:find('pub struct PluginRegistry', 1, true) ~= nil,
    out:sub(1, 200)
  )
end)

test('layout picker, readable hover, size lens', function()
  local wirelens = require('wirelens')
  local buf = open(work .. '/audiounit.sdp')
  -- Outside every struct (the file's first line, a comment): a picker of the types.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local offered
  local orig_select = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    offered = items
    on_choice('Plugin')
  end
  local text, err
  wirelens.layout(function(t, e)
    text, err = t or '', e
  end)
  wait(function()
    return text ~= nil
  end)
  vim.ui.select = orig_select
  check(
    'outside a struct, :WirelensLayout offers every type',
    offered and vim.tbl_contains(offered, 'Parameter') and vim.tbl_contains(offered, 'PluginRegistry'),
    vim.inspect(offered)
  )
  check('and shows the one picked', (text or ''):find('struct Plugin', 1, true) ~= nil, err or text)
  local shown = table.concat(float_lines(), '\n')
  check('in a float of its own', shown:find('manufacturer_id', 1, true) ~= nil, shown)
  close_floats()

  -- Hover (K): the same rendering.
  local decl = find_line(buf, 'struct Parameter')
  vim.api.nvim_win_set_cursor(0, { decl, 9 })
  check('K is mapped to the wirelens hover', vim.fn.maparg('K', 'n', false, true).desc == 'wirelens: hover (wire layout)')
  local htext
  wirelens.hover(function(t)
    htext = t or ''
  end)
  wait(function()
    return htext ~= nil and #floats() > 0
  end)
  local hl = float_lines()
  local hall = table.concat(hl, '\n')
  check('the hover arrives in a float', htext and htext:find('\\|', 1, true) ~= nil and #hl > 0, htext)
  local ticks = vim.tbl_filter(function(l)
    return l:find('`', 1, true) and not l:find('^```')
  end, hl)
  check(
    'rendered: no `\\|`, no table rows, no backticks but code fences',
    not hall:find('\\|', 1, true) and not find_row(hl, '^%s*|') and #ticks == 0,
    hall
  )
  check('with the aligned field rows', find_row(hl, '^%s*0%s+address%s+u64') ~= nil, hall)
  close_floats()

  -- The size lens runs wirelens.showLayout: a layout float of that struct.
  local lenses = {}
  wait(function()
    lenses = vim.lsp.codelens.get(buf)
    return #lenses >= 3
  end)
  local lens
  for _, l in ipairs(lenses) do
    if l.command and l.command.command == 'wirelens.showLayout' and l.command.arguments[2] == 'Parameter' then
      lens = l
    end
  end
  check('Parameter has a size lens that runs wirelens.showLayout', lens ~= nil, vim.inspect(lenses))
  if lens then
    notes = {}
    wirelens.client(buf):exec_cmd(lens.command, { bufnr = buf })
    wait(function()
      return #floats() > 0
    end)
    local ll = float_lines()
    check(
      'running it shows the layout of Parameter',
      find_row(ll, 'Parameter') ~= nil and find_row(ll, '^%s*0%s+address%s+u64') ~= nil,
      table.concat(ll, '\n') .. vim.inspect(notes)
    )
    close_floats()
  end
end)

test('generation feedback', function()
  local wirelens = require('wirelens')
  open(work .. '/audiounit.sdp')
  notes = {}
  local sent = wirelens.generate({ 'java' })
  check(':WirelensGenerate java is refused', sent == false)
  check(
    'with a message naming the valid languages',
    #notes == 1 and notes[1]:find('unknown language `java`: choose from c, cpp, rust', 1, true),
    vim.inspect(notes)
  )
  notes = {}
  vim.cmd('WirelensGenerate C++')
  local done = wait(function()
    return #notes > 0
  end)
  check('aliases work: C++ generates the header', done and vim.uv.fs_stat(work .. '/generated/audiounit.hpp') ~= nil, vim.inspect(notes))
  check('and nothing else (no C files)', vim.uv.fs_stat(work .. '/generated/audiounit.h') == nil)
  check('success says what was written', notes[1] and notes[1]:find('file(s) written', 1, true), vim.inspect(notes))

  -- A failing Generate lens: one short error, not the RPC dump.
  local buf = open(work .. '/broken.sdp')
  vim.cmd('silent edit!')
  published(buf)
  notes = {}
  local client = wirelens.client(buf)
  client:exec_cmd({ title = 'Generate C', command = 'wirelens.generate', arguments = { { uri = vim.uri_from_bufnr(buf), languages = { 'c' } } } }, { bufnr = buf })
  wait(function()
    return #notes > 0
  end)
  vim.wait(300)
  check('a failed generation is one notification', #notes == 1, vim.inspect(notes))
  check(
    'short, without the RPC error code',
    notes[1] and notes[1]:find('generation failed', 1, true) and not notes[1]:find('32603', 1, true) and not notes[1]:find('\n', 1, true),
    vim.inspect(notes)
  )

  -- Generation on save ([generate] on_save in wirelens.toml): success and failure reported.
  local dir = work .. '/onsave'
  vim.fn.mkdir(dir, 'p')
  write(dir .. '/wirelens.toml', '[generate]\non_save = true\nlanguages = ["c"]\n')
  write(dir .. '/item.sdp', 'struct Item {\n    id: u32,\n}\n')
  local sbuf = open(dir .. '/item.sdp')
  notes = {}
  vim.cmd('silent write')
  wait(function()
    return #notes > 0
  end)
  check(
    'saving reports the generation in the message line',
    notes[1] and notes[1]:find('generated on save', 1, true) and vim.uv.fs_stat(dir .. '/generated/item.h') ~= nil,
    vim.inspect(notes)
  )
  vim.api.nvim_buf_set_lines(sbuf, 1, 2, false, { '    id: Nope,' })
  notes = {}
  vim.cmd('silent write')
  wait(function()
    return #notes > 0
  end)
  vim.wait(300)
  check(
    'a failed generation on save is one short error',
    #notes == 1 and notes[1]:find('generation on save failed', 1, true) and not notes[1]:find('\n', 1, true),
    vim.inspect(notes)
  )
end)

test(':WirelensDecode', function()
  local wirelens = require('wirelens')
  local buf = open(work .. '/registry.sdp')
  local schema = work .. '/registry.sdp'
  local value = '{"component_type": 1635083896, "component_subtype": 2, "manufacturer": 3, "version": 65536}'
  local function encode(mode)
    local r = vim.system({ vim.env.WIRELENS_SERVER, 'encode', '--schema', schema, '--root', 'ComponentId', '--mode', mode }, { stdin = value }):wait()
    assert(r.code == 0, r.stderr)
    return r.stdout
  end
  local function hex(bytes)
    return (bytes:gsub('.', function(c)
      return ('%02x '):format(c:byte())
    end))
  end
  local function decoded(opts)
    local got
    opts.callback = function(b, e)
      got = { buf = b, err = e }
    end
    wirelens.decode(opts)
    wait(function()
      return got ~= nil
    end)
    return got or {}
  end
  local message = encode('message')

  -- Hex of a message: the root comes from the header's type id (no picker).
  local orig_select = vim.ui.select
  local asked = false
  vim.ui.select = function(_, _, cb)
    asked = true
    cb(nil)
  end
  local got = decoded({ hex = hex(message) })
  local dl = got.buf and vim.api.nvim_buf_get_lines(got.buf, 0, -1, false) or {}
  local dall = table.concat(dl, '\n')
  check('hex of an SDP message decodes without asking for the root', got.buf and not asked and not got.err, vim.inspect(got))
  check(
    'into a read-only scratch buffer named after the root',
    got.buf and vim.api.nvim_buf_get_name(got.buf) == 'wirelens://decode/ComponentId' and not vim.bo[got.buf].modifiable,
    got.buf and vim.api.nvim_buf_get_name(got.buf)
  )
  check('it names the header', dl[1] and dl[1]:find('message type id', 1, true), dall)
  check('with fields and values', dall:find('component_type', 1, true) and dall:find('1635083896', 1, true), dall)
  check('no wrapping: the value column stays on its line', got.buf and not vim.wo[vim.fn.bufwinid(got.buf)].wrap)
  vim.cmd('only')

  -- The selected lines of another buffer (:'<,'>WirelensDecode).
  vim.cmd('enew')
  local hbuf = vim.api.nvim_get_current_buf()
  vim.bo[hbuf].buftype = 'nofile'
  local h = hex(message)
  vim.api.nvim_buf_set_lines(hbuf, 0, -1, false, { h:sub(1, 30), h:sub(31) })
  vim.api.nvim_buf_set_name(hbuf, work .. '/pasted.txt')
  local before_lines = nil
  vim.cmd('1,2WirelensDecode')
  local dbuf
  wait(function()
    dbuf = vim.fn.bufnr('wirelens://decode/ComponentId')
    before_lines = dbuf ~= -1 and vim.api.nvim_buf_get_lines(dbuf, 0, 1, false)[1] or ''
    return before_lines:find('the selected hex', 1, true) ~= nil
  end)
  check(":'<,'>WirelensDecode decodes hex selected in any buffer", before_lines and before_lines:find('the selected hex', 1, true), before_lines)
  vim.cmd('only')
  vim.cmd('buffer ' .. buf)

  -- A binary file in byte mode: the struct under the cursor is the root.
  local bin = work .. '/component.bin'
  local f = assert(io.open(bin, 'wb'))
  f:write(encode('byte'))
  f:close()
  vim.api.nvim_win_set_cursor(0, { find_line(buf, 'struct ComponentId') + 1, 4 })
  asked = false
  got = decoded({ file = bin })
  dl = got.buf and vim.api.nvim_buf_get_lines(got.buf, 0, -1, false) or {}
  check(
    'a file decodes with the struct under the cursor as its root',
    not asked and got.buf and table.concat(dl, '\n'):find('1635083896', 1, true),
    table.concat(dl, '\n') .. vim.inspect(got)
  )
  vim.cmd('only')
  vim.cmd('buffer ' .. buf)

  -- A cut message: one short error; the dump up to it stays in the view.
  notes = {}
  got = decoded({ hex = hex(message:sub(1, 14)) })
  check('a cut message fails with one line', #notes == 1 and notes[1]:find('offset', 1, true) and not notes[1]:find('\n', 1, true), vim.inspect(notes))
  dl = got.buf and vim.api.nvim_buf_get_lines(got.buf, 0, -1, false) or {}
  check('and the view keeps the dump and the error', #dl > 2, vim.inspect(dl))
  vim.cmd('only')
  vim.cmd('buffer ' .. buf)

  notes = {}
  wirelens.decode({ hex = '53 4' })
  check('bad hex is refused with the reason', notes[1] and notes[1]:find('odd number of hex digits', 1, true), vim.inspect(notes))
  vim.ui.select = orig_select
end)

test(':WirelensInspect', function()
  local inspect = require('wirelens.inspect')
  local buf = open(work .. '/audiounit.sdp')
  local vec = root .. '/tests/vectors/sdp/cases/audiounit_full.bin'
  local result
  -- Opens the inspector on `file` and waits for its first answer (`result` follows every
  -- later answer of that session too).
  local function inspect_file(file)
    result = nil
    local session = inspect.open(file, 'PluginRegistry', {
      on_result = function(_, r)
        result = r
      end,
    })
    wait(function()
      return result ~= nil
    end)
    return session
  end
  local s = inspect_file(vec)
  check('inspect answers a tree', result and result.tree and result.tree ~= vim.NIL, vim.inspect(result and result.error))
  local tree_lines = lines(s.tree)
  check('the first line names root, mode and size', tree_lines[1] and tree_lines[1]:find('PluginRegistry · byte · 112490 B', 1, true), tree_lines[1])
  local name_line = find_row(tree_lines, '^      name = "Apple: AUNotQuiteSoSimpleTime"')
  check('the tree shows plugins[0].name with its bytes', name_line and tree_lines[name_line]:find('@4..37', 1, true), vim.inspect({ unpack(tree_lines, 1, 8) }))
  local hex = lines(s.hex)
  check('the hex dump', hex[1] == '00000000  3e 00 00 00 1d 00 00 00  41 70 70 6c 65 3a 20 41  >.......Apple: A', hex[1])
  local marks = vim.api.nvim_buf_get_extmarks(s.hex, vim.api.nvim_create_namespace('wirelens-inspect'), 0, -1, { details = true })
  check('fields are highlighted in the hex dump', #marks >= 3, #marks)
  -- Cursor in the tree on plugins[0].name: its bytes are selected.
  if name_line then
    vim.api.nvim_set_current_win(s.tree_win)
    vim.api.nvim_win_set_cursor(s.tree_win, { name_line, 0 })
    vim.api.nvim_exec_autocmds('CursorMoved', { buffer = s.tree })
    check('tree cursor selects the bytes', s.selected and s.selected.start == 4 and s.selected['end'] == 37, vim.inspect(s.selected))
    check('and moves the hex cursor to them', vim.api.nvim_win_get_cursor(s.hex_win)[1] == 1)
  end
  -- Cursor on hex byte 0x41 (parameters[0].address): the tree and the schema follow.
  vim.api.nvim_set_current_win(s.hex_win)
  vim.api.nvim_win_set_cursor(s.hex_win, { 5, 10 + 3 })
  vim.api.nvim_exec_autocmds('CursorMoved', { buffer = s.hex })
  local tl = vim.api.nvim_win_get_cursor(s.tree_win)[1]
  check('hex cursor moves the tree cursor to the value', lines(s.tree)[tl]:find('address = 0', 1, true), lines(s.tree)[tl])
  check('and reveals the field in the schema', s.revealed == 5, s.revealed)
  check('offset_at maps columns to bytes', inspect.offset_at(0, 10, 100) == 0 and inspect.offset_at(0, 36, 100) == 8 and inspect.offset_at(0, 5, 100) == nil)
  -- An unsaved edit of the schema re-decodes (TextChanged, debounced).
  result = nil
  vim.api.nvim_buf_set_lines(buf, 5, 6, false, { '    address: u32,' })
  vim.api.nvim_exec_autocmds('TextChanged', { buffer = buf })
  local redone = wait(function()
    local t = lines(s.tree)
    return find_row(t, '^%s+address = 0  u32  @65%.%.69') ~= nil
  end, 5000)
  check('a schema edit re-decodes', redone, vim.inspect({ unpack(lines(s.tree), 1, 12) }))
  vim.cmd('silent! undo')
  -- Malformed bytes: the error on the first line, the partial tree.
  local bad = work .. '/bad.bin'
  local f = assert(io.open(vec, 'rb'))
  local data = f:read('*a')
  f:close()
  local g = assert(io.open(bad, 'wb'))
  g:write(data:sub(1, 0x72) .. '\5' .. data:sub(0x74))
  g:close()
  vim.api.nvim_set_current_buf(buf)
  vim.cmd('silent edit!')
  local s2 = inspect_file(bad)
  local first = lines(s2.tree)[1] or ''
  check(
    'an error shows offset, path and reason',
    first:find('ERROR at offset 114 (plugins[0].parameters[0].is_writable): bool byte 0x05', 1, true),
    first
  )
  check('with the tree up to it', find_row(lines(s2.tree), 'raw_flags = 3233808384') ~= nil)
  vim.cmd('only')
end)

test('tree-sitter parsers and queries', function()
  local parsers = require('wirelens.parsers')
  local result
  vim.cmd('WirelensInstallParsers')
  wait(function()
    return parsers.is_installed('sdp') and parsers.is_installed('ffi') and parsers.register('sdp') and parsers.register('ffi')
  end, 120000)
  check(':WirelensInstallParsers compiles sdp', parsers.is_installed('sdp'), vim.inspect(notes))
  check(':WirelensInstallParsers compiles ffi', parsers.is_installed('ffi'), vim.inspect(notes))
  result = pcall(vim.treesitter.language.inspect, 'sdp')
  check('the sdp parser is registered', result)

  for _, lang in ipairs({ 'sdp', 'ffi' }) do
    for _, q in ipairs({ 'highlights', 'folds', 'indents', 'locals' }) do
      local ok, query = pcall(vim.treesitter.query.get, lang, q)
      check(('queries/%s/%s.scm loads'):format(lang, q), ok and query ~= nil, query)
    end
  end

  local buf = open(work .. '/audiounit.sdp')
  wait(function()
    return vim.treesitter.highlighter.active[buf] ~= nil
  end, 3000)
  check('highlighting is on for the sdp buffer', vim.treesitter.highlighter.active[buf] ~= nil)

  local function captures(b, row, col)
    -- Headless Neovim never redraws, so parse explicitly (a UI parses on redraw).
    vim.treesitter.get_parser(b):parse(true)
    return vim.tbl_map(function(c)
      return c.capture
    end, vim.treesitter.get_captures_at_pos(b, row, col))
  end
  local sline = find_line(buf, 'struct Parameter') - 1
  local c = captures(buf, sline, 0)
  check('`struct` is @keyword.type', vim.tbl_contains(c, 'keyword.type'), vim.inspect(c))
  c = captures(buf, sline, 8)
  check('the struct name is @type.definition', vim.tbl_contains(c, 'type.definition'), vim.inspect(c))
  local uline = find_line(buf, 'raw_flags: u32')
  local ucol = lines(buf)[uline]:find('u32', 1, true) - 1
  c = captures(buf, uline - 1, ucol)
  check('`u32` is @type.builtin', vim.tbl_contains(c, 'type.builtin'), vim.inspect(c))
  c = captures(buf, 0, 0)
  check('a comment is @comment', vim.tbl_contains(c, 'comment'), vim.inspect(c))

  local fbuf = open(work .. '/msg.ffi')
  wait(function()
    return vim.treesitter.highlighter.active[fbuf] ~= nil
  end, 3000)
  local tline = find_line(fbuf, 'type Msg struct') - 1
  c = captures(fbuf, tline, 0)
  check('ffire `type` is @keyword.type', vim.tbl_contains(c, 'keyword.type'), vim.inspect(c))
  local iline = find_line(fbuf, 'int64')
  c = captures(fbuf, iline - 1, lines(fbuf)[iline]:find('int64', 1, true) - 1)
  check('ffire `int64` is @type.builtin', vim.tbl_contains(c, 'type.builtin'), vim.inspect(c))
end)

test('wire baseline: commits noticed while open, lenses kept after running one', function()
  -- A git repository of its own (a root marker nearer than the work folder's).
  local repo = work .. '/repo'
  vim.fn.mkdir(repo, 'p')
  local schema = 'struct Point {\n    x: u32,\n    y: u32,\n}\n\nstruct Shape {\n    at: Point,\n}\n'
  local function git(args)
    local r = vim.system(vim.list_extend({ 'git', '-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t' }, args)):wait()
    assert(r.code == 0, table.concat(args, ' ') .. ': ' .. (r.stderr or ''))
  end
  git({ 'init', '-q' })
  write(repo .. '/s.sdp', schema)
  git({ 'add', 's.sdp' })
  git({ 'commit', '-q', '-m', 'one' })
  local buf = open(repo .. '/s.sdp')
  local client = require('wirelens').client(buf)
  local ns = vim.lsp.diagnostic.get_namespace(client.id)
  local function breaks()
    return vim.tbl_filter(function(d)
      return d.code == 'type-changed'
    end, vim.diagnostic.get(buf, { namespace = ns }))
  end
  vim.wait(1500)
  check('the committed text breaks nothing', #breaks() == 0, vim.inspect(vim.diagnostic.get(buf)))

  -- Commit another version while the buffer stays open and unsaved-free: the file on
  -- disk ends as the buffer's text again, so only HEAD moved.
  write(repo .. '/s.sdp', schema:gsub('y: u32', 'y: u64'))
  git({ 'commit', '-q', '-am', 'two' })
  write(repo .. '/s.sdp', schema)
  local noticed = wait(function()
    return #breaks() > 0
  end, 8000)
  check('a commit made while the buffer is open is noticed without :w', noticed, vim.inspect(vim.diagnostic.get(buf)))

  -- The wire-break lens shares the first struct's row with the layout lens.
  local lns = vim.lsp.codelens.__namespaces[client.id]
  local function row_text(row)
    local marks = vim.api.nvim_buf_get_extmarks(buf, lns, { row, 0 }, { row, -1 }, { details = true })
    local text = {}
    for _, m in ipairs(marks) do
      for _, chunk in ipairs(m[4].virt_text or {}) do
        table.insert(text, chunk[1])
      end
    end
    return table.concat(text)
  end
  vim.lsp.codelens.refresh({ bufnr = buf })
  local row = ''
  wait(function()
    row = row_text(0)
    return row:find('breaks', 1, true) ~= nil
  end, 5000)
  check('the break lens comes first on its row', row:find('^breaks') ~= nil, row)

  -- Run the layout lens as Neovim does (its row is cleared, the command runs): the row
  -- comes back without an edit.
  local lens
  for _, l in ipairs(vim.lsp.codelens.get(buf)) do
    if l.command and l.command.command == 'wirelens.showLayout' and l.range.start.line == 0 then
      lens = l
    end
  end
  if check('the first struct has a layout lens', lens ~= nil) then
    vim.api.nvim_buf_clear_namespace(buf, lns, 0, 1)
    client:exec_cmd(lens.command, { bufnr = buf })
    local back = wait(function()
      return row_text(0) ~= ''
    end, 5000)
    check('running a lens does not erase the lens row', back, row_text(0))
    close_floats()
  end

  -- A wirelens.toml created later names another baseline: noticed without a restart.
  write(repo .. '/wirelens.toml', '[compat]\nagainst = "HEAD~1"\n')
  local cleared = wait(function()
    return #breaks() == 0
  end, 8000)
  check('a new wirelens.toml is noticed without a restart', noticed and cleared, vim.inspect(vim.diagnostic.get(buf)))
end)

vim.notify = orig_notify
out(('%d passed, %d failed'):format(passed, failed))
if failed > 0 or passed == 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
