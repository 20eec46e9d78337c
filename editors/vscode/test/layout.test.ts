import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enclosingType, escapeHtml, layoutAnswer, layoutPage } from '../src/layout';

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const syms = [
  { name: 'A', range: r(0, 0, 3, 1), selectionRange: r(0, 7, 0, 8) },
  { name: 'B', range: r(5, 0, 9, 1), selectionRange: r(5, 7, 5, 8) },
];

test('the struct under the cursor', () => {
  assert.equal(enclosingType(syms, { line: 2, character: 4 })?.name, 'A');
  assert.equal(enclosingType(syms, { line: 9, character: 1 })?.name, 'B');
  assert.equal(enclosingType(syms, { line: 4, character: 0 }), undefined);
});

test('the page escapes the title and keeps a strict CSP', () => {
  assert.equal(escapeHtml('<a & "b">'), '&lt;a &amp; &quot;b&quot;&gt;');
  const page = layoutPage('T<x>', '<p>ok</p>', 'vscode-resource:');
  assert.match(page, /T&lt;x&gt;/);
  assert.match(page, /default-src 'none'/);
  assert.match(page, /<p>ok<\/p>/);
});

test('the layout answer: Markdown alone (older servers) or Markdown with the SVG diagram', () => {
  assert.deepEqual(layoutAnswer('| a |'), { markdown: '| a |' });
  assert.deepEqual(layoutAnswer({ markdown: 'm', svg: '<svg x="1"></svg>' }), { markdown: 'm', svg: '<svg x="1"></svg>' });
  // Anything but an SVG is not put into the page.
  assert.deepEqual(layoutAnswer({ markdown: 'm', svg: '<script>x</script>' }), { markdown: 'm', svg: undefined });
  assert.deepEqual(layoutAnswer(null), {});
});
