;;; test.el --- editors/emacs end to end: Emacs in batch mode, eglot and the real server  -*- lexical-binding: t; -*-

;; Run by tests/emacs/run: emacs --batch -l tests/emacs/test.el
;; Environment: WIRELENS_ROOT (the checkout), WIRELENS_SERVER (the binary), WIRELENS_TEST_DIR.

(require 'cl-lib)
(require 'imenu)
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "WIRELENS_ROOT")))
(require 'wirelens)

(defvar wl-passed 0)
(defvar wl-failed 0)

(defun wl-check (name ok &optional detail)
  (if ok
      (progn (setq wl-passed (1+ wl-passed)) (princ (format "ok   %s\n" name)))
    (setq wl-failed (1+ wl-failed))
    (princ (format "FAIL %s%s\n" name (if detail (format "\n     %S" detail) "")))))

(defmacro wl-test (name &rest body)
  `(condition-case err (progn ,@body)
     (error (wl-check (concat ,name " (raised an error)") nil err))))

(defun wl-wait (pred seconds)
  "Waits until PRED is non-nil, up to SECONDS; returns its value."
  (let ((deadline (+ (float-time) seconds)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

(defun wl-face-at (text &optional nth)
  "The face at the start of the NTH (default 1st) occurrence of TEXT."
  (save-excursion
    (goto-char (point-min))
    (let ((case-fold-search nil))
      (search-forward text nil nil (or nth 1)))
    (let ((face (get-text-property (match-beginning 0) 'face)))
      (if (listp face) (car face) face))))

(defvar wl-dir (file-name-as-directory (getenv "WIRELENS_TEST_DIR")))
(defun wl-write (name text)
  (let ((path (expand-file-name name wl-dir)))
    (with-temp-file path (insert text))
    path))

(setq wirelens-server-command (list (getenv "WIRELENS_SERVER") "lsp"))
(call-process "git" nil nil nil "-C" wl-dir "init" "-q")

(wl-test "sdp-mode"
  (find-file (wl-write "a.sdp" "/// A parameter.\nstruct Parameter {\n    address: u64,\n    name: str,\n    range: Option<Range>,\n}\n\nstruct Range { lo: f32, hi: f32 }\n"))
  (wl-check "a .sdp file opens in sdp-mode" (eq major-mode 'sdp-mode) major-mode)
  (font-lock-ensure)
  (wl-check "`struct` is a keyword" (eq (wl-face-at "struct") 'font-lock-keyword-face) (wl-face-at "struct"))
  (wl-check "the struct's name is a type" (eq (wl-face-at "Parameter") 'font-lock-type-face) (wl-face-at "Parameter"))
  (wl-check "`u64` is built in" (eq (wl-face-at "u64") 'font-lock-builtin-face) (wl-face-at "u64"))
  (wl-check "`Option` is built in" (eq (wl-face-at "Option") 'font-lock-builtin-face))
  (wl-check "a referenced struct is a type" (eq (wl-face-at "Range>") 'font-lock-type-face) (wl-face-at "Range>"))
  (wl-check "a field name is a variable" (eq (wl-face-at "address") 'font-lock-variable-name-face))
  (wl-check "`///` is a doc comment" (eq (wl-face-at "/// A") 'font-lock-doc-face) (wl-face-at "/// A"))
  (wl-check "imenu finds both structs"
            (equal (mapcar #'car (funcall imenu-create-index-function)) '("Parameter" "Range"))
            (funcall imenu-create-index-function))
  (wl-check "comments start with //" (equal comment-start "// "))
  ;; Indentation: an unindented struct is indented by depth.
  (erase-buffer)
  (insert "struct A {\nx: u8,\ny: []B,\n}\n")
  (indent-region (point-min) (point-max))
  (wl-check "indent-region indents fields by 4 and the brace by 0"
            (equal (buffer-string) "struct A {\n    x: u8,\n    y: []B,\n}\n") (buffer-string))
  (set-buffer-modified-p nil)
  (kill-buffer))

(wl-test "ffi-mode"
  (find-file (wl-write "t.ffi" "package telemetry\n\ntype Sample struct {\n\tTime int64 `json:\"t\"`\n\tName string\n\tTags []Tag\n}\n\ntype Tag struct {\n\tKey string\n}\n"))
  (wl-check "a .ffi file opens in ffi-mode" (eq major-mode 'ffi-mode) major-mode)
  (font-lock-ensure)
  (wl-check "`package` is a keyword" (eq (wl-face-at "package") 'font-lock-keyword-face))
  (wl-check "`type` is a keyword" (eq (wl-face-at "type") 'font-lock-keyword-face))
  (wl-check "the declared type is a type" (eq (wl-face-at "Sample") 'font-lock-type-face) (wl-face-at "Sample"))
  (wl-check "`int64` is built in" (eq (wl-face-at "int64") 'font-lock-builtin-face) (wl-face-at "int64"))
  (wl-check "a struct tag is a string" (eq (wl-face-at "`json") 'font-lock-string-face) (wl-face-at "`json"))
  (wl-check "a field name is a variable" (eq (wl-face-at "Time") 'font-lock-variable-name-face) (wl-face-at "Time"))
  (wl-check "an element type is a type" (eq (wl-face-at "Tag\n") 'font-lock-type-face) (wl-face-at "Tag\n"))
  (erase-buffer)
  (insert "package p\n\ntype A struct {\nX int32\n}\n")
  (indent-region (point-min) (point-max))
  (wl-check "fields are indented with a tab, as gofmt does"
            (equal (buffer-string) "package p\n\ntype A struct {\n\tX int32\n}\n") (buffer-string))
  (set-buffer-modified-p nil)
  (kill-buffer))

(wl-test "eglot with wirelens lsp"
  (require 'eglot)
  (wl-check "eglot knows the server for both modes"
            (cl-some (lambda (entry) (and (consp (car entry)) (memq 'sdp-mode (car entry)) (memq 'ffi-mode (car entry))))
                     eglot-server-programs))
  (find-file (wl-write "b.sdp" "struct Item {\n    id: u32,\n    next: Missing,\n}\n"))
  (apply #'eglot (eglot--guess-contact))
  (wl-check "the server starts" (wl-wait #'eglot-current-server 20))
  (let ((diags (wl-wait (lambda () (flymake-diagnostics)) 30)))
    (wl-check "flymake shows the server's error for an unknown type"
              (cl-some (lambda (d) (string-match-p "unknown type" (flymake-diagnostic-text d))) diags)
              (mapcar #'flymake-diagnostic-text diags)))
  ;; A hover over the struct's name: the wire layout, as plain text when the client
  ;; asks for it (eglot without markdown-mode does).
  (goto-char (point-min))
  (search-forward "Item")
  (let* ((server (eglot-current-server))
         (hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
         (contents (plist-get hover :contents))
         (value (if (stringp contents) contents (plist-get contents :value))))
    (wl-check "the hover names the struct and its size" (and value (string-match-p "struct Item" value)) value)
    (unless (featurep 'markdown-mode)
      (wl-check "without markdown-mode the hover is plain text"
                (and (equal (plist-get contents :kind) "plaintext") (not (string-match-p "```" value)))
                contents)))
  ;; Typing the fix clears the error.
  (goto-char (point-min))
  (search-forward "Missing")
  (replace-match "u64" t t)
  ;; eglot sends changes from an idle timer, which batch Emacs never runs: send now.
  (eglot--signal-textDocument/didChange)
  (wl-check "fixing it clears the diagnostics" (wl-wait (lambda () (null (flymake-diagnostics))) 30)
            (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (set-buffer-modified-p nil)
  (kill-buffer))

(princ (format "%d passed, %d failed\n" wl-passed wl-failed))
(kill-emacs (if (zerop wl-failed) 0 1))
