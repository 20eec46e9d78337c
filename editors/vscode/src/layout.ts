// Picking the struct under the cursor and the HTML page of the layout view. No `vscode` import.

export interface Pos {
  line: number;
  character: number;
}
export interface Rng {
  start: Pos;
  end: Pos;
}
export interface Sym {
  name: string;
  range: Rng;
  selectionRange: Rng;
  children?: Sym[];
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

export function contains(r: Rng, p: Pos): boolean {
  return before(r.start, p) && before(p, r.end);
}

/** The top-level symbol (a struct / type) whose range contains the position. */
export function enclosingType<S extends Sym>(symbols: readonly S[], p: Pos): S | undefined {
  return symbols.find((s) => contains(s.range, p));
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * What `wirelens.showLayout [uri, name, {svg: true}]` answered: the Markdown (also what an
 * older server answers alone) and the server's SVG diagram, when it sent one.
 */
export function layoutAnswer(answer: unknown): { markdown?: string; svg?: string } {
  if (typeof answer === 'string') return { markdown: answer };
  if (answer && typeof answer === 'object') {
    const { markdown, svg } = answer as { markdown?: unknown; svg?: unknown };
    return {
      markdown: typeof markdown === 'string' ? markdown : undefined,
      svg: typeof svg === 'string' && svg.startsWith('<svg') ? svg : undefined,
    };
  }
  return {};
}

/** The webview page: `body` is already-rendered HTML (markdown), styled with VS Code's theme colours. */
export function layoutPage(title: string, body: string, cspSource: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
pre, code { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
pre { background: var(--vscode-textCodeBlock-background); padding: 0.5em; overflow-x: auto; }
table { border-collapse: collapse; }
details.nested { margin: 0.25em 0 0.25em 1.5em; }
details.nested > summary { cursor: pointer; }
th, td { border: 1px solid var(--vscode-panel-border); padding: 2px 8px; text-align: left; }
</style>
</head>
<body>
<h2>${escapeHtml(title)}</h2>
${body}
</body>
</html>`;
}
