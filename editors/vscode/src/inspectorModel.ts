// The binary inspector's model: the `wirelens/inspect` answer, the byte → value lookup,
// the value inspector and the webview page. Pure functions: no `vscode`, no DOM (the
// webview script, src/webview/inspector.ts, and the extension both use them).

import { escapeHtml } from './layout';

export interface Pos {
  line: number;
  character: number;
}
export interface Rng {
  start: Pos;
  end: Pos;
}

/** One decoded value (docs/spec.md §7, `wirelens/inspect`). */
export interface InspectNode {
  path: string;
  name: string;
  type: string;
  start: number;
  end: number;
  value?: unknown;
  schemaRange?: Rng;
  children?: InspectNode[];
}

export interface InspectResult {
  length: number;
  root: string | null;
  mode: 'byte' | 'message';
  window: { start: number; end: number };
  tree: InspectNode | null;
  truncated: boolean;
  error?: { offset: number; path: string; message: string };
}

/** The `wirelens/inspect` params for a window of the input. */
export interface InspectParams {
  uri: string;
  root?: string;
  path?: string;
  data?: string;
  start?: number;
  length?: number;
  maxNodes?: number;
}

/** A root type is picked unless the bytes are an SDP message (its header names the type). */
export function isSdpMessage(languageId: string, head: Uint8Array): boolean {
  return languageId === 'sdp' && head.length >= 10 && head[0] === 0x53 && head[1] === 0x44 && head[2] === 0x50 && head[3] === 0x32;
}

/** Bytes asked for first (and around every scroll position after). */
export const WINDOW_BYTES = 64 * 1024;

export function inspectParams(
  uri: string,
  input: { path?: string; data?: string },
  root: string | undefined,
  window: { start: number; length: number },
): InspectParams {
  const p: InspectParams = { uri, start: window.start, length: window.length };
  if (root) p.root = root;
  if (input.path !== undefined) p.path = input.path;
  else if (input.data !== undefined) p.data = input.data;
  return p;
}

/**
 * The window to ask for so that `offset` (a scroll position) sits in its first quarter. It
 * starts on a row (16 bytes) and, near the end, reaches the end: rounding the start down
 * lengthens the window by as much.
 */
export function windowAround(offset: number, length: number, size = WINDOW_BYTES): { start: number; length: number } {
  const exact = Math.max(0, Math.min(Math.max(0, length - size), offset - size / 4));
  const start = Math.floor(exact / 16) * 16;
  return { start, length: size + (exact - start) };
}

/** Whether the answer's window covers `start..end` (else the view asks for another). */
export function windowCovers(result: InspectResult | undefined, start: number, end: number): boolean {
  if (!result) return false;
  const w = result.window;
  return w.start <= start && (end <= w.end || w.end >= result.length);
}

/** A node that has no value of its own but bytes: count, presence byte, header. */
export function isAux(n: InspectNode): boolean {
  return n.path.includes('#');
}

/** The leaves (nodes without children, bytes > 0) in byte order: what the hex view colours. */
export interface LeafIndex {
  leaves: InspectNode[];
  /** node path → parent, for revealing a node in the tree. */
  parent: Map<string, InspectNode>;
  byPath: Map<string, InspectNode>;
}

export function indexTree(tree: InspectNode | null): LeafIndex {
  const leaves: InspectNode[] = [];
  const parent = new Map<string, InspectNode>();
  const byPath = new Map<string, InspectNode>();
  if (!tree) return { leaves, parent, byPath };
  const stack: InspectNode[] = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    byPath.set(n.path, n);
    const kids = n.children ?? [];
    if (kids.length === 0 && n.end > n.start) leaves.push(n);
    for (let i = kids.length - 1; i >= 0; i--) {
      parent.set(kids[i]!.path, n);
      stack.push(kids[i]!);
    }
  }
  leaves.sort((a, b) => a.start - b.start || a.end - b.end);
  return { leaves, parent, byPath };
}

/** The position in `leaves` of the leaf holding `offset` (binary search), or -1. */
export function leafIndexAt(index: LeafIndex, offset: number): number {
  const { leaves } = index;
  let lo = 0;
  let hi = leaves.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const n = leaves[mid]!;
    if (offset < n.start) hi = mid - 1;
    else if (offset >= n.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** The leaf whose bytes hold `offset`, if any. */
export function leafAt(index: LeafIndex, offset: number): InspectNode | undefined {
  const i = leafIndexAt(index, offset);
  return i < 0 ? undefined : index.leaves[i];
}

/** The deepest node whose bytes hold `offset` (a leaf, else the composite around it). */
export function nodeAt(tree: InspectNode | null, offset: number): InspectNode | undefined {
  let found: InspectNode | undefined;
  let n: InspectNode | undefined = tree ?? undefined;
  while (n && offset >= n.start && offset < n.end) {
    found = n;
    n = (n.children ?? []).find((c) => offset >= c.start && offset < c.end);
  }
  return found;
}

/** The chain from the root down to `node` (for expanding the tree to it). */
export function ancestry(index: LeafIndex, node: InspectNode): InspectNode[] {
  const chain: InspectNode[] = [node];
  let p = index.parent.get(node.path);
  while (p) {
    chain.unshift(p);
    p = index.parent.get(p.path);
  }
  return chain;
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Every node whose field declaration holds the schema position (all elements' copies). */
export function nodesAtSchemaPosition(tree: InspectNode | null, p: Pos, limit = 10_000): InspectNode[] {
  const out: InspectNode[] = [];
  if (!tree) return out;
  const stack: InspectNode[] = [tree];
  while (stack.length && out.length < limit) {
    const n = stack.pop()!;
    const r = n.schemaRange;
    if (r && before(r.start, p) && before(p, r.end)) out.push(n);
    for (const c of n.children ?? []) stack.push(c);
  }
  return out.sort((a, b) => a.start - b.start);
}

/** One line of the value inspector. */
export interface Reading {
  label: string;
  value: string;
}

/**
 * The bytes at `offset` read as every little-endian integer and float width that fits,
 * and as UTF-8 (up to `utf8Length` bytes, default what is left up to 64).
 */
export function inspectValues(bytes: Uint8Array, offset: number, utf8Length?: number): Reading[] {
  const out: Reading[] = [];
  if (offset < 0 || offset >= bytes.length) return out;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const left = bytes.length - offset;
  const ints: [number, string, (o: number) => number | bigint][] = [
    [1, 'u8', (o) => view.getUint8(o)],
    [1, 'i8', (o) => view.getInt8(o)],
    [2, 'u16', (o) => view.getUint16(o, true)],
    [2, 'i16', (o) => view.getInt16(o, true)],
    [4, 'u32', (o) => view.getUint32(o, true)],
    [4, 'i32', (o) => view.getInt32(o, true)],
    [8, 'u64', (o) => view.getBigUint64(o, true)],
    [8, 'i64', (o) => view.getBigInt64(o, true)],
    [4, 'f32', (o) => view.getFloat32(o, true)],
    [8, 'f64', (o) => view.getFloat64(o, true)],
  ];
  for (const [size, label, read] of ints) {
    if (size <= left) out.push({ label, value: formatNumber(read(offset)) });
  }
  const n = Math.min(left, utf8Length ?? 64);
  out.push({ label: 'utf-8', value: utf8(bytes.subarray(offset, offset + n)) });
  return out;
}

function formatNumber(x: number | bigint): string {
  if (typeof x === 'bigint') return x.toString();
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/** UTF-8 text of `b`, JSON-quoted; invalid sequences shown as U+FFFD. */
export function utf8(b: Uint8Array): string {
  return JSON.stringify(new TextDecoder('utf-8', { fatal: false }).decode(b));
}

/** A scalar's value as shown in the tree. */
export function showValue(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  return JSON.stringify(v);
}

/** Hex digits of `b`, two per byte. */
export function hex2(b: number): string {
  return b.toString(16).padStart(2, '0');
}

/** Base64 → bytes (the webview gets the file this way). */
export function fromBase64(s: string, atobFn: (s: string) => string): Uint8Array {
  const bin = atobFn(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * The hex view's width: its rows are positioned absolutely (only the visible ones exist), so
 * they give it no width of their own. A row is the offset (8), 2 spaces, 16 bytes of 3 and one
 * more space in the middle, then a space and 16 characters: 76 characters, plus the row's
 * padding and a scroll bar.
 */
export const HEX_WIDTH = 'calc(76ch + 32px)';
/** Narrower than this (a hex row and a readable tree), the tree goes below the hex view. */
export const NARROW_PX = 1000;

/** The webview page: one script (`scriptUri`, with `nonce`), a strict CSP, theme colours. */
export function inspectorPage(title: string, scriptUri: string, cspSource: string, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); margin: 0; padding: 0; height: 100vh; display: flex; flex-direction: column; }
#status { padding: 4px 8px; border-bottom: 1px solid var(--vscode-panel-border); min-height: 1.4em; }
#status .error { color: var(--vscode-errorForeground); cursor: pointer; }
#main { flex: 1; display: flex; min-height: 0; }
#hex { flex: 0 1 ${HEX_WIDTH}; min-width: 0; overflow: auto; position: relative; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); border-right: 1px solid var(--vscode-panel-border); }
#hex .rows { position: absolute; left: 0; right: 0; }
#hex .row { white-space: pre; height: 18px; line-height: 18px; padding: 0 8px; }
#hex .off { color: var(--vscode-editorLineNumber-foreground); }
#hex .b { cursor: pointer; }
#hex .c0 { background: rgba(90, 160, 255, 0.18); } #hex .c1 { background: rgba(255, 170, 60, 0.18); }
#hex .c2 { background: rgba(100, 200, 120, 0.18); } #hex .c3 { background: rgba(220, 110, 220, 0.18); }
#hex .c4 { background: rgba(240, 220, 80, 0.18); } #hex .c5 { background: rgba(80, 210, 210, 0.18); }
#hex .aux { opacity: 0.7; text-decoration: underline dotted; }
#hex .sel { outline: 1px solid var(--vscode-focusBorder); background: var(--vscode-editor-selectionBackground); }
#hex .hl { background: var(--vscode-editor-findMatchHighlightBackground); }
#hex .err { background: var(--vscode-inputValidation-errorBackground); outline: 1px solid var(--vscode-errorForeground); }
#side { flex: 1; display: flex; flex-direction: column; min-width: 12em; }
#tree { flex: 1; overflow: auto; padding: 4px 8px; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
#tree .node { white-space: pre; cursor: pointer; }
#tree .node.sel { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
#tree .node.hl { background: var(--vscode-editor-findMatchHighlightBackground); }
#tree .ty { color: var(--vscode-descriptionForeground); }
#tree .range { color: var(--vscode-editorLineNumber-foreground); }
#values { border-top: 1px solid var(--vscode-panel-border); padding: 4px 8px; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); max-height: 40%; overflow: auto; }
#values td { padding: 0 8px 0 0; white-space: pre; }
/* Too narrow for whole hex rows beside the tree: the tree goes below the bytes. */
@media (max-width: ${NARROW_PX}px) {
  #main { flex-direction: column; }
  #hex { flex: 1 1 55%; min-height: 0; border-right: none; border-bottom: 1px solid var(--vscode-panel-border); }
  #side { flex: 1 1 45%; min-width: 0; min-height: 0; }
}
</style>
</head>
<body>
<div id="status">Decoding…</div>
<div id="main"><div id="hex"><div class="spacer"></div><div class="rows"></div></div>
<div id="side"><div id="tree"></div><div id="values"></div></div></div>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
