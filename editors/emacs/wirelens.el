;;; wirelens.el --- SDP and ffire schemas: major modes and the wirelens language server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages
;; URL: see editors/emacs/README.md in the wirelens repository

;;; Commentary:

;; `sdp-mode' (.sdp, Rust-like structs) and `ffi-mode' (.ffi, Go struct syntax):
;; highlighting, comments, indentation and imenu, with no configuration.  With eglot
;; (built in from Emacs 29; Debian's `elpa-eglot' on Emacs 28) both modes use the
;; wirelens language server (`wirelens lsp'): diagnostics as you type, hovers with the
;; wire layout, inlay hints (eglot >= 1.12), code actions, formatting, rename.
;;
;;   (add-to-list 'load-path "/path/to/wirelens/editors/emacs")
;;   (require 'wirelens)
;;   (add-hook 'sdp-mode-hook #'eglot-ensure)   ; optional: start the server on open
;;   (add-hook 'ffi-mode-hook #'eglot-ensure)
;;
;; The server is found as `wirelens-server-command' says (default: `wirelens' on
;; `exec-path').

;;; Code:

(defgroup wirelens nil
  "SDP and ffire schema editing with the wirelens language server."
  :group 'languages
  :prefix "wirelens-")

(defcustom wirelens-server-command '("wirelens" "lsp")
  "The language server command: a program and its arguments."
  :type '(repeat string))

(defcustom wirelens-indent-offset 4
  "Columns per nesting level in `sdp-mode' and `ffi-mode'."
  :type 'integer
  :safe #'integerp)

(defconst wirelens--sdp-primitives
  '("u8" "u16" "u32" "u64" "i8" "i16" "i32" "i64" "f32" "f64" "bool" "str")
  "SDP's primitive types.")

(defconst wirelens--ffi-primitives
  '("bool" "int8" "int16" "int32" "int64" "float32" "float64" "string"
    "byte" "rune" "int" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr"
    "complex64" "complex128" "error" "any")
  "Go's predeclared types, as ffire schemas may name them.")

(defconst wirelens--ident "[A-Za-z_][A-Za-z0-9_]*")

(defun wirelens--syntax-table (backquote-strings)
  "A C-like syntax table: // and /* */ comments, \"strings\".
With BACKQUOTE-STRINGS, `raw strings` too (Go's struct tags)."
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?/ ". 124b" table)
    (modify-syntax-entry ?* ". 23" table)
    (modify-syntax-entry ?\n "> b" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?< "(>" table)
    (modify-syntax-entry ?> ")<" table)
    (when backquote-strings
      (modify-syntax-entry ?` "\"" table))
    table))

(defvar sdp-mode-syntax-table (wirelens--syntax-table nil)
  "Syntax table of `sdp-mode'.")

(defvar ffi-mode-syntax-table
  (let ((table (wirelens--syntax-table t)))
    ;; `[]T' and `map[K]V': brackets, but `<' and `>' are operators in Go.
    (modify-syntax-entry ?< "." table)
    (modify-syntax-entry ?> "." table)
    table)
  "Syntax table of `ffi-mode'.")

(defconst wirelens--doc-comment
  ;; `///' doc comments (SDP) get the doc face over the comment face.
  '("///.*$" 0 font-lock-doc-face t))

(defvar sdp-font-lock-keywords
  `(,wirelens--doc-comment
    ("\\_<struct\\_>" . font-lock-keyword-face)
    (,(concat "\\_<struct\\s-+\\(" wirelens--ident "\\)") 1 font-lock-type-face)
    (,(regexp-opt '("Option" "Box") 'symbols) . font-lock-builtin-face)
    (,(regexp-opt wirelens--sdp-primitives 'symbols) . font-lock-builtin-face)
    (,(concat "^\\s-*\\(" wirelens--ident "\\)\\s-*:") 1 font-lock-variable-name-face)
    (,(concat ":\\s-*\\(?:\\[\\]\\|Option<\\|Box<\\)*\\(" wirelens--ident "\\)") 1 font-lock-type-face keep))
  "Highlighting of `sdp-mode'.")

(defvar ffi-font-lock-keywords
  `(,(regexp-opt '("package" "import" "const" "var" "type" "struct" "interface" "map" "chan" "func")
                 'symbols)
    (,(concat "\\_<package\\s-+\\(" wirelens--ident "\\)") 1 font-lock-constant-face)
    (,(concat "\\_<type\\s-+\\(" wirelens--ident "\\)") 1 font-lock-type-face)
    (,(regexp-opt wirelens--ffi-primitives 'symbols) . font-lock-builtin-face)
    ;; A field: a name at the start of a line inside a struct, then its type.
    (,(concat "^\\s-+\\(" wirelens--ident "\\)\\s-+[][*A-Za-z_]") 1 font-lock-variable-name-face)
    (,(concat "^\\s-+" wirelens--ident "\\s-+\\(?:\\[[0-9]*\\]\\|\\*\\)*\\(" wirelens--ident "\\)")
     1 font-lock-type-face keep))
  "Highlighting of `ffi-mode'.")

(defun wirelens-indent-line ()
  "Indent the current line by its bracket depth."
  (interactive)
  (let* ((depth (save-excursion (car (syntax-ppss (line-beginning-position)))))
         (closing (save-excursion
                    (back-to-indentation)
                    (looking-at-p "[]})]")))
         (column (* wirelens-indent-offset (max 0 (- depth (if closing 1 0)))))
         (offset (- (current-column) (current-indentation))))
    (indent-line-to column)
    (when (> offset 0)
      (forward-char offset))))

(defun wirelens--common-setup (imenu-regexp)
  "What both modes share; IMENU-REGEXP finds declarations."
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local comment-start-skip "//+\\s-*")
  (setq-local indent-line-function #'wirelens-indent-line)
  (setq-local electric-indent-chars (append "{}" electric-indent-chars))
  (setq-local imenu-generic-expression `((nil ,imenu-regexp 1))))

;;;###autoload
(define-derived-mode sdp-mode prog-mode "SDP"
  "Major mode for SDP schemas (.sdp)."
  :syntax-table sdp-mode-syntax-table
  (setq-local font-lock-defaults '(sdp-font-lock-keywords))
  (wirelens--common-setup (concat "^\\s-*struct\\s-+\\(" wirelens--ident "\\)")))

;;;###autoload
(define-derived-mode ffi-mode prog-mode "ffire"
  "Major mode for ffire schemas (.ffi, Go struct syntax)."
  :syntax-table ffi-mode-syntax-table
  (setq-local font-lock-defaults '(ffi-font-lock-keywords))
  (setq-local indent-tabs-mode t) ; gofmt's tabs
  (setq-local tab-width wirelens-indent-offset)
  (wirelens--common-setup (concat "^\\s-*type\\s-+\\(" wirelens--ident "\\)")))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.sdp\\'" . sdp-mode))
;;;###autoload
(add-to-list 'auto-mode-alist '("\\.ffi\\'" . ffi-mode))

(defvar eglot-server-programs)

(defun wirelens--server-contact (&optional _interactive)
  "The command eglot starts: `wirelens-server-command'."
  wirelens-server-command)

;;;###autoload
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '((sdp-mode ffi-mode) . wirelens--server-contact)))

(provide 'wirelens)
;;; wirelens.el ends here
