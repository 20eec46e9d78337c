if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1
-- The style of `wirelens fmt`: four spaces.
vim.bo.commentstring = '// %s'
vim.bo.comments = 's1:/*,mb:*,ex:*/,:///,://'
vim.bo.expandtab = true
vim.bo.shiftwidth = 4
vim.bo.softtabstop = 4
vim.bo.autoindent = true
vim.bo.smartindent = true
vim.b.undo_ftplugin = 'setl cms< com< et< sw< sts< ai< si<'
