-- Markdown from the server (hovers, the layout view) made readable in a plain Neovim
-- window: tables become aligned columns, escapes (`\|`) and code-span backticks go away.
-- Headings, bold text and code fences are kept (the float is still filetype markdown).
local M = {}

--- The cells of a table row, split at unescaped `|` (a `\|` is a literal bar).
local function split_row(line)
  local cells, cur = {}, {}
  local i, n = 1, #line
  while i <= n do
    local c = line:sub(i, i)
    if c == '\\' and i < n then
      table.insert(cur, line:sub(i, i + 1))
      i = i + 2
    elseif c == '|' then
      table.insert(cells, table.concat(cur))
      cur = {}
      i = i + 1
    else
      table.insert(cur, c)
      i = i + 1
    end
  end
  table.insert(cells, table.concat(cur))
  -- `| a | b |`: the empty text before the first and after the last bar.
  if vim.trim(cells[1]) == '' then
    table.remove(cells, 1)
  end
  if #cells > 0 and vim.trim(cells[#cells]) == '' then
    table.remove(cells)
  end
  return cells
end

--- Inline markdown to plain text: code spans lose their backticks, escapes their backslash.
local function inline(text)
  local out = {}
  local i, n = 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c == '`' then
      local close = text:find('`', i + 1, true)
      if close then
        -- Inside a code span only `\|` is an escape (GFM tables); the rest is literal.
        table.insert(out, (text:sub(i + 1, close - 1):gsub('\\|', '|')))
        i = close + 1
      else
        table.insert(out, c)
        i = i + 1
      end
    elseif c == '\\' and i < n and text:sub(i + 1, i + 1):match('%p') then
      table.insert(out, text:sub(i + 1, i + 1))
      i = i + 2
    else
      table.insert(out, c)
      i = i + 1
    end
  end
  return table.concat(out)
end
M.inline = inline

local function is_row(line)
  return line:match('^%s*|') ~= nil
end

local function is_rule(cells)
  if #cells == 0 then
    return false
  end
  for _, c in ipairs(cells) do
    if not vim.trim(c):match('^:?%-+:?$') then
      return false
    end
  end
  return true
end

local function pad(text, width, right)
  local fill = string.rep(' ', width - vim.fn.strdisplaywidth(text))
  return right and (fill .. text) or (text .. fill)
end

--- One markdown table (its lines) as aligned plain-text lines.
local function table_lines(rows)
  local parsed, right, has_rule = {}, {}, false
  for i, line in ipairs(rows) do
    local cells = split_row(line)
    if i == 2 and is_rule(cells) then
      has_rule = true
      for j, c in ipairs(cells) do
        right[j] = vim.trim(c):match('%-:$') ~= nil
      end
    else
      table.insert(parsed, vim.tbl_map(function(c)
        return inline(vim.trim(c))
      end, cells))
    end
  end
  local widths = {}
  for _, cells in ipairs(parsed) do
    for j, c in ipairs(cells) do
      widths[j] = math.max(widths[j] or 0, vim.fn.strdisplaywidth(c))
    end
  end
  local function render(cells)
    local parts = {}
    for j = 1, #widths do
      parts[j] = pad(cells[j] or '', widths[j], right[j])
    end
    return (table.concat(parts, '  '):gsub('%s+$', ''))
  end
  local out = {}
  for i, cells in ipairs(parsed) do
    table.insert(out, render(cells))
    if i == 1 and has_rule then
      local rule = {}
      for j = 1, #widths do
        rule[j] = string.rep('─', widths[j])
      end
      table.insert(out, table.concat(rule, '  '))
    end
  end
  return out
end

--- Markdown text to the lines shown in a window.
function M.lines(markdown)
  local src = vim.split(markdown or '', '\n', { plain = true })
  local out, i, fence = {}, 1, false
  while i <= #src do
    local line = src[i]
    if line:match('^%s*```') then
      fence = not fence
      table.insert(out, line)
      i = i + 1
    elseif fence then
      table.insert(out, line)
      i = i + 1
    elseif is_row(line) then
      local rows = {}
      while i <= #src and is_row(src[i]) do
        table.insert(rows, src[i])
        i = i + 1
      end
      vim.list_extend(out, table_lines(rows))
    else
      table.insert(out, inline(line))
      i = i + 1
    end
  end
  -- No blank lines at either end (the float would show them).
  while #out > 0 and vim.trim(out[1]) == '' do
    table.remove(out, 1)
  end
  while #out > 0 and vim.trim(out[#out]) == '' do
    table.remove(out)
  end
  return out
end

return M
