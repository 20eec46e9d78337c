import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  ancestry,
  fromBase64,
  indexTree,
  inspectParams,
  inspectValues,
  type InspectNode,
  isSdpMessage,
  inspectorPage,
  leafAt,
  leafIndexAt,
  nodeAt,
  nodesAtSchemaPosition,
  showValue,
  windowAround,
  windowCovers,
} from '../src/inspectorModel';

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

// The shape `wirelens/inspect` answers for audiounit_full.bin's first bytes (see
// server/tests/lsp_inspect.rs for the real thing).
const tree: InspectNode = {
  path: '',
  name: 'PluginRegistry',
  type: 'PluginRegistry',
  start: 0,
  end: 0x74,
  children: [
    {
      path: 'plugins',
      name: 'plugins',
      type: '[]Plugin',
      start: 0,
      end: 0x74,
      schemaRange: r(26, 4, 26, 22),
      children: [
        { path: 'plugins#count', name: '(count)', type: 'u32 count', start: 0, end: 4, value: 1 },
        {
          path: 'plugins[0]',
          name: '[0]',
          type: 'Plugin',
          start: 4,
          end: 0x74,
          children: [
            { path: 'plugins[0].name', name: 'name', type: 'str', start: 4, end: 0x25, value: 'Apple: AUNotQuiteSoSimpleTime', schemaRange: r(19, 4, 19, 13) },
            { path: 'plugins[0].manufacturer_id', name: 'manufacturer_id', type: 'str', start: 0x25, end: 0x2d, value: 'appl', schemaRange: r(20, 4, 20, 24) },
          ],
        },
      ],
    },
  ],
};

test('byte → node: the leaf holding a byte, else the composite around it', () => {
  const index = indexTree(tree);
  assert.deepEqual(
    index.leaves.map((n) => n.path),
    ['plugins#count', 'plugins[0].name', 'plugins[0].manufacturer_id'],
  );
  assert.equal(leafAt(index, 0)?.path, 'plugins#count');
  assert.equal(leafAt(index, 3)?.path, 'plugins#count');
  assert.equal(leafAt(index, 4)?.path, 'plugins[0].name');
  assert.equal(leafAt(index, 0x24)?.path, 'plugins[0].name');
  assert.equal(leafAt(index, 0x25)?.path, 'plugins[0].manufacturer_id');
  assert.equal(leafAt(index, 0x2d), undefined, 'past the last leaf');
  assert.equal(leafIndexAt(index, 0x30), -1);
  assert.equal(leafIndexAt(index, 0x26), 2);
  assert.equal(nodeAt(tree, 0x30)?.path, 'plugins[0]', 'no leaf: the deepest composite');
  assert.equal(nodeAt(tree, 0x74), undefined);
  assert.deepEqual(
    ancestry(index, leafAt(index, 5)!).map((n) => n.path),
    ['', 'plugins', 'plugins[0]', 'plugins[0].name'],
  );
  assert.equal(index.byPath.get('plugins[0]')?.type, 'Plugin');
  assert.deepEqual(indexTree(null).leaves, []);
});

test('byte → node scales: 100,000 leaves looked up by binary search', () => {
  const children: InspectNode[] = [];
  for (let i = 0; i < 100_000; i++) children.push({ path: `[${i}]`, name: `[${i}]`, type: 'u32', start: 4 * i, end: 4 * i + 4, value: i });
  const big: InspectNode = { path: '', name: 'L', type: '[]u32', start: 0, end: 400_000, children };
  const index = indexTree(big);
  const t = Date.now();
  for (let o = 0; o < 400_000; o += 7) assert.equal(leafAt(index, o)?.value, Math.floor(o / 4));
  assert.ok(Date.now() - t < 2_000);
});

test('schema cursor → every node of the field under it', () => {
  const hits = nodesAtSchemaPosition(tree, { line: 19, character: 6 });
  assert.deepEqual(hits.map((n) => n.path), ['plugins[0].name']);
  assert.deepEqual(nodesAtSchemaPosition(tree, { line: 26, character: 4 }).map((n) => n.path), ['plugins']);
  assert.deepEqual(nodesAtSchemaPosition(tree, { line: 3, character: 0 }), []);
  assert.deepEqual(nodesAtSchemaPosition(null, { line: 19, character: 6 }), []);
});

test('value inspector: every little-endian width that fits, floats and UTF-8', () => {
  const bytes = new Uint8Array([0x00, 0x00, 0xc0, 0xc0, 0xff, 0xff, 0xff, 0xff, 0x61, 0xc3, 0xa9]);
  const at = (o: number, len?: number) => Object.fromEntries(inspectValues(bytes, o, len).map((x) => [x.label, x.value]));
  const v = at(0);
  assert.equal(v.u8, '0');
  assert.equal(v.u32, '3233808384');
  assert.equal(v.i32, '-1061158912');
  assert.equal(v.f32, '-6');
  assert.equal(v.u64, String(0xffffffffc0c00000n));
  assert.equal(v.i64, '-1061158912');
  assert.equal(at(4).i8, '-1');
  assert.equal(at(4).u16, '65535');
  assert.equal(at(4).i16, '-1');
  assert.equal(at(4).i32, '-1');
  assert.equal(at(4).f32, 'NaN');
  assert.equal(at(8)['utf-8'], '"aé"');
  assert.equal(at(8, 1)['utf-8'], '"a"');
  assert.equal(at(10).u16, undefined, 'only what fits');
  assert.equal(at(10).u8, '169');
  assert.deepEqual(inspectValues(bytes, 11), []);
  const f64 = new Uint8Array(new Float64Array([0.1]).buffer);
  assert.equal(Object.fromEntries(inspectValues(f64, 0).map((x) => [x.label, x.value])).f64, '0.1');
  const negZero = new Uint8Array([0, 0, 0, 0x80]);
  assert.equal(Object.fromEntries(inspectValues(negZero, 0).map((x) => [x.label, x.value])).f32, '-0');
});

test('windows: around a scroll position, and whether an answer covers the view', () => {
  assert.deepEqual(windowAround(0, 1_000_000), { start: 0, length: 65536 });
  assert.deepEqual(windowAround(500_000, 1_000_000), { start: 483616, length: 65536 });
  assert.deepEqual(windowAround(999_990, 1_000_000), { start: 934464, length: 65536 });
  assert.deepEqual(windowAround(50, 100), { start: 0, length: 65536 });
  // audiounit_full.bin scrolled to its end: the window starts on a row and still reaches
  // the last byte (it stopped 10 bytes short, so the last two fields were never decoded).
  const end = windowAround(112_400, 112_490);
  assert.equal(end.start % 16, 0);
  assert.equal(end.start + end.length, 112_490);
  assert.deepEqual(end, { start: 46944, length: 65546 });
  const result = { length: 1000, root: 'A', mode: 'byte' as const, window: { start: 0, end: 500 }, tree: null, truncated: false };
  assert.ok(windowCovers(result, 0, 400));
  assert.ok(!windowCovers(result, 400, 600));
  assert.ok(windowCovers({ ...result, window: { start: 600, end: 1000 } }, 700, 1200), 'up to the end');
  assert.ok(!windowCovers(undefined, 0, 1));
});

test('request params: a path or base64 data, the root only when picked', () => {
  assert.deepEqual(inspectParams('file:///s.sdp', { path: '/b.bin' }, 'A', { start: 0, length: 16 }), {
    uri: 'file:///s.sdp',
    root: 'A',
    path: '/b.bin',
    start: 0,
    length: 16,
  });
  assert.deepEqual(inspectParams('file:///s.sdp', { data: 'AA==' }, undefined, { start: 16, length: 16 }), {
    uri: 'file:///s.sdp',
    data: 'AA==',
    start: 16,
    length: 16,
  });
});

test('SDP messages pick their own root; base64, value display, page', () => {
  assert.ok(isSdpMessage('sdp', new Uint8Array([0x53, 0x44, 0x50, 0x32, 2, 0, 12, 0, 0, 0])));
  assert.ok(!isSdpMessage('ffi', new Uint8Array([0x53, 0x44, 0x50, 0x32, 2, 0, 12, 0, 0, 0])));
  assert.ok(!isSdpMessage('sdp', new Uint8Array([0x53, 0x44, 0x50])));
  assert.deepEqual([...fromBase64('AAEC/w==', (s) => Buffer.from(s, 'base64').toString('latin1'))], [0, 1, 2, 255]);
  assert.equal(showValue('x'.repeat(100)), JSON.stringify(`${'x'.repeat(80)}…`));
  assert.equal(showValue(3), '3');
  assert.equal(showValue(undefined), '');
  const page = inspectorPage('Inspect <b>', 'vscode-resource:/dist/inspector.js', 'vscode-resource:', 'N0NCE');
  assert.match(page, /script-src 'nonce-N0NCE'/);
  assert.match(page, /default-src 'none'/);
  assert.match(page, /<script nonce="N0NCE" src="vscode-resource:\/dist\/inspector.js">/);
  assert.match(page, /Inspect &lt;b&gt;/);
});

test('the hex view has a width of its own (its rows are absolutely positioned: auto would be 0)', () => {
  const page = inspectorPage('t', 's.js', 'csp:', 'N');
  const rule = /#hex \{([^}]*)\}/.exec(page)?.[1] ?? '';
  assert.match(rule, /flex: 0 1 calc\(76ch \+ 32px\)/);
  assert.match(page, /#hex \.rows \{ position: absolute;/);
  // …and the tree keeps room beside it, or goes below it in a narrow panel.
  assert.match(page, /#side \{[^}]*min-width: 12em/);
  assert.match(page, /@media \(max-width: 1000px\) \{\s*#main \{ flex-direction: column; \}/);
});

test('the webview script uses only the model (no vscode import) and is bundled', () => {
  const root = path.resolve(__dirname, '..');
  const src = fs.readFileSync(path.join(root, 'src/webview/inspector.ts'), 'utf8');
  assert.doesNotMatch(src, /from 'vscode'/);
  assert.match(fs.readFileSync(path.join(root, 'scripts/build.mjs'), 'utf8'), /src\/webview\/inspector\.ts/);
  assert.match(fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8'), /!dist\/inspector\.js/);
});
