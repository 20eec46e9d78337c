if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1
-- The style of `wirelens fmt` (gofmt's): tabs.
vim.bo.commentstring = '// %s'
vim.bo.comments = 's1:/*,mb:*,ex:*/,://'
vim.bo.expandtab = false
vim.bo.shiftwidth = 0
vim.bo.softtabstop = 0
vim.bo.tabstop = 8
vim.bo.autoindent = true
vim.bo.smartindent = true
vim.b.undo_ftplugin = 'setl cms< com< et< sw< sts< ts< ai< si<'
