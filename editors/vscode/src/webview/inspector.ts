// The binary inspector's webview: a virtualised hex view (only the visible rows are in
// the DOM), the decoded tree and the value inspector, linked both ways. Bundled on its
// own (dist/inspector.js); the logic it needs is in ../inspectorModel (unit-tested).
import {
  ancestry,
  fromBase64,
  hex2,
  indexTree,
  inspectValues,
  type InspectNode,
  type InspectResult,
  isAux,
  leafAt,
  leafIndexAt,
  type LeafIndex,
  nodeAt,
  nodesAtSchemaPosition,
  type Pos,
  showValue,
  windowAround,
  windowCovers,
} from '../inspectorModel';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscode = acquireVsCodeApi();
const ROW = 18;
const PER_ROW = 16;
/** Children shown per tree node before a "more" line. */
const CHILD_PAGE = 500;

let bytes: Uint8Array = new Uint8Array(0);
let result: InspectResult | undefined;
let index: LeafIndex = indexTree(null);
let selected: InspectNode | undefined;
let cursorOffset = -1;
/** Byte ranges highlighted from the schema editor's cursor, sorted by start. */
let highlights: InspectNode[] = [];
/** The schema editor's cursor: highlights are recomputed from it on every new tree. */
let schemaCursor: Pos | null = null;
/** The error whose place the tree was last opened to (once per error, not per answer). */
let openedError = '';
const expanded = new Set<string>(['']);
const shown = new Map<string, number>();
let asked = '';

const hex = document.getElementById('hex')!;
const spacer = hex.querySelector('.spacer') as HTMLElement;
const rows = hex.querySelector('.rows') as HTMLElement;
const tree = document.getElementById('tree')!;
const values = document.getElementById('values')!;
const status = document.getElementById('status')!;

function el(tag: string, cls?: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function inRanges(ranges: readonly InspectNode[], o: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (o < r.start) hi = mid - 1;
    else if (o >= r.end) lo = mid + 1;
    else return true;
  }
  return false;
}

function renderHex(): void {
  const total = Math.ceil(bytes.length / PER_ROW);
  spacer.style.height = `${total * ROW}px`;
  const first = Math.max(0, Math.floor(hex.scrollTop / ROW) - 5);
  const count = Math.ceil(hex.clientHeight / ROW) + 10;
  const last = Math.min(total, first + count);
  rows.style.top = `${first * ROW}px`;
  const frag = document.createDocumentFragment();
  const err = result?.error?.offset ?? -1;
  for (let r = first; r < last; r++) {
    const row = el('div', 'row');
    row.appendChild(el('span', 'off', `${(r * PER_ROW).toString(16).padStart(8, '0')}  `));
    let ascii = '';
    for (let i = 0; i < PER_ROW; i++) {
      const o = r * PER_ROW + i;
      if (o >= bytes.length) {
        row.appendChild(document.createTextNode('   '));
        continue;
      }
      const b = bytes[o]!;
      const k = leafIndexAt(index, o);
      let cls = 'b';
      if (k >= 0) {
        cls += ` c${k % 6}`;
        if (isAux(index.leaves[k]!)) cls += ' aux';
      }
      if (selected && o >= selected.start && o < selected.end) cls += ' sel';
      else if (inRanges(highlights, o)) cls += ' hl';
      if (o === err || (err === bytes.length && o === bytes.length - 1 && err > 0)) cls += ' err';
      if (o === cursorOffset) cls += ' sel';
      const span = el('span', cls, hex2(b));
      span.dataset.o = String(o);
      row.appendChild(span);
      row.appendChild(document.createTextNode(i === 7 ? '  ' : ' '));
      ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    row.appendChild(el('span', 'ascii', ` ${ascii}`));
    frag.appendChild(row);
  }
  rows.replaceChildren(frag);
  askForWindow(first * PER_ROW, last * PER_ROW);
}

/** Asks the extension for the tree around the visible bytes when its window misses them. */
let windowTimer: ReturnType<typeof setTimeout> | undefined;
function askForWindow(start: number, end: number): void {
  if (!result || windowCovers(result, start, Math.min(end, bytes.length))) return;
  if (windowTimer) clearTimeout(windowTimer);
  windowTimer = setTimeout(() => {
    const w = windowAround(start, bytes.length);
    const key = `${w.start}:${w.length}`;
    if (key === asked) return;
    asked = key;
    vscode.postMessage({ type: 'window', ...w });
  }, 150);
}

function scrollToOffset(o: number): void {
  const top = Math.floor(o / PER_ROW) * ROW;
  if (top < hex.scrollTop || top > hex.scrollTop + hex.clientHeight - ROW) {
    hex.scrollTop = Math.max(0, top - hex.clientHeight / 3);
  }
}

function label(n: InspectNode): string {
  return n.value !== undefined ? `${n.name} = ${showValue(n.value)}` : n.name;
}

function renderNode(n: InspectNode, depth: number, out: DocumentFragment): void {
  const kids = n.children ?? [];
  const open = expanded.has(n.path);
  const row = el('div', 'node');
  row.dataset.path = n.path;
  if (selected?.path === n.path) row.classList.add('sel');
  else if (highlights.includes(n)) row.classList.add('hl');
  row.appendChild(document.createTextNode(`${'  '.repeat(depth)}${kids.length ? (open ? '▾ ' : '▸ ') : '  '}${label(n)} `));
  row.appendChild(el('span', 'ty', n.type));
  row.appendChild(el('span', 'range', `  @${n.start}..${n.end}`));
  out.appendChild(row);
  if (!open) return;
  const limit = shown.get(n.path) ?? CHILD_PAGE;
  for (const c of kids.slice(0, limit)) renderNode(c, depth + 1, out);
  if (kids.length > limit) {
    const more = el('div', 'node more', `${'  '.repeat(depth + 1)}… ${kids.length - limit} more (click)`);
    more.dataset.more = n.path;
    out.appendChild(more);
  }
}

function renderTree(): void {
  const frag = document.createDocumentFragment();
  if (result?.tree) renderNode(result.tree, 0, frag);
  tree.replaceChildren(frag);
  const sel = tree.querySelector('.node.sel');
  if (sel) sel.scrollIntoView({ block: 'nearest' });
}

function renderValues(offset: number): void {
  const table = el('table');
  if (selected) {
    const tr = el('tr');
    tr.appendChild(el('td', undefined, selected.path || selected.name));
    tr.appendChild(el('td', undefined, `${selected.type}  @${selected.start}..${selected.end} (${selected.end - selected.start} B)`));
    table.appendChild(tr);
  }
  const len = selected && offset >= selected.start && offset < selected.end ? selected.end - offset : undefined;
  for (const r of inspectValues(bytes, offset, len === undefined ? undefined : Math.min(len, 256))) {
    const tr = el('tr');
    tr.appendChild(el('td', undefined, `${r.label} @${offset}`));
    tr.appendChild(el('td', undefined, r.value));
    table.appendChild(tr);
  }
  values.replaceChildren(table);
}

function renderStatus(): void {
  status.replaceChildren();
  if (!result) return;
  const parts = `${result.root ?? '?'} · ${result.mode} · ${bytes.length} B · window ${result.window.start}..${result.window.end}${result.truncated ? ' · tree truncated' : ''}`;
  status.appendChild(el('span', undefined, parts));
  if (result.error) {
    const e = result.error;
    const err = el('span', 'error', `  ✖ at offset ${e.offset}${e.path ? ` (${e.path})` : ''}: ${e.message}`);
    err.addEventListener('click', () => {
      scrollToOffset(e.offset);
      select(nodeAt(result?.tree ?? null, Math.max(0, e.offset - 1)), e.offset, false);
    });
    status.appendChild(err);
  }
}

/** The schema declaration a node points at (a count's or presence byte's: its owner's). */
function schemaNode(n: InspectNode | undefined): InspectNode | undefined {
  while (n && !n.schemaRange) n = index.parent.get(n.path);
  return n;
}

function select(n: InspectNode | undefined, offset: number, reveal: boolean): void {
  selected = n;
  cursorOffset = offset;
  if (n) for (const a of ancestry(index, n).slice(0, -1)) expanded.add(a.path);
  renderHex();
  renderTree();
  renderValues(offset >= 0 ? offset : (n?.start ?? 0));
  const target = schemaNode(n);
  if (reveal && target?.schemaRange) vscode.postMessage({ type: 'reveal', range: target.schemaRange });
}

hex.addEventListener('scroll', () => renderHex());
window.addEventListener('resize', () => renderHex());
hex.addEventListener('click', (ev) => {
  const o = Number((ev.target as HTMLElement).dataset?.o);
  if (!Number.isInteger(o)) return;
  select(leafAt(index, o) ?? nodeAt(result?.tree ?? null, o), o, true);
});
tree.addEventListener('click', (ev) => {
  const row = (ev.target as HTMLElement).closest('.node') as HTMLElement | null;
  if (!row) return;
  const more = row.dataset.more;
  if (more !== undefined) {
    shown.set(more, (shown.get(more) ?? CHILD_PAGE) + CHILD_PAGE);
    renderTree();
    return;
  }
  const n = index.byPath.get(row.dataset.path ?? '');
  if (!n) return;
  if (n.children?.length) {
    if (expanded.has(n.path)) expanded.delete(n.path);
    else expanded.add(n.path);
  }
  scrollToOffset(n.start);
  select(n, n.start, true);
});

function onSchemaCursor(p: Pos | null): void {
  schemaCursor = p;
  highlights = p ? nodesAtSchemaPosition(result?.tree ?? null, p) : [];
  // A reveal from a byte click moves the cursor too: then stay at the clicked byte.
  if (highlights.length && !highlights.some((n) => n.path === selected?.path)) scrollToOffset(highlights[0]!.start);
  renderHex();
  renderTree();
}

window.addEventListener('message', (ev: MessageEvent) => {
  const m = ev.data as { type: string } & Record<string, unknown>;
  if (m.type === 'init') {
    bytes = fromBase64(String(m.bytes ?? ''), atob);
    status.textContent = `Decoding ${bytes.length} B…`;
    renderHex();
  } else if (m.type === 'result') {
    result = m.result as InspectResult;
    index = indexTree(result.tree);
    asked = `${result.window.start}:${result.window.end - result.window.start}`;
    // Keep the selection across re-decodes when its path still exists; the highlights are
    // the new tree's nodes (a schema edit moves and resizes them).
    selected = selected ? index.byPath.get(selected.path) : undefined;
    highlights = schemaCursor ? nodesAtSchemaPosition(result.tree, schemaCursor) : [];
    // A new error: open the tree down to the last value decoded before it.
    const e = result.error;
    const errorKey = e ? `${e.offset}:${e.path}:${e.message}` : '';
    if (e && errorKey !== openedError && e.offset >= result.window.start && e.offset <= result.window.end) {
      const last = nodeAt(result.tree, Math.max(0, e.offset - 1));
      if (last) for (const a of ancestry(index, last).slice(0, -1)) expanded.add(a.path);
    }
    openedError = errorKey;
    renderStatus();
    renderHex();
    renderTree();
    if (result.error && !selected && result.window.start === 0) scrollToOffset(result.error.offset);
  } else if (m.type === 'schemaCursor') {
    onSchemaCursor((m.position as Pos | null) ?? null);
  } else if (m.type === 'failed') {
    status.textContent = `wirelens/inspect failed: ${String(m.message)}`;
  }
});

vscode.postMessage({ type: 'ready' });
