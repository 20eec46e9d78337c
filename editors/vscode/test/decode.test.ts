import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  buildDecodeArgs,
  dialectOf,
  hasOrderDirective,
  layoutTypes,
  looksLikeHex,
  messageTypeId,
  parseHex,
  rootCandidates,
  rootForTypeId,
  shortError,
  typeNames,
} from '../src/decode';

test('the basic invocation', () => {
  assert.deepEqual(buildDecodeArgs({ schema: '/s/a.sdp', root: 'Plugin', input: '/d/x.bin' }), [
    'decode',
    '--annotate',
    '--schema',
    '/s/a.sdp',
    '--root',
    'Plugin',
    '--input',
    '/d/x.bin',
  ]);
});

test('paths with spaces and dashes stay single arguments (no shell)', () => {
  const args = buildDecodeArgs({ schema: '/my dir/a b.ffi', root: 'Frame', input: '--all.bin' });
  assert.equal(args[args.indexOf('--schema') + 1], '/my dir/a b.ffi');
  assert.equal(args[args.indexOf('--input') + 1], '--all.bin');
});

test('--mode only for SDP, --order only for ffire, --all when asked', () => {
  assert.deepEqual(buildDecodeArgs({ schema: 'a.sdp', root: 'T', input: 'b', mode: 'message', order: 'declaration' }).slice(8), [
    '--mode',
    'message',
  ]);
  assert.deepEqual(buildDecodeArgs({ schema: 'a.FFI', root: 'T', input: 'b', mode: 'message', order: 'declaration', all: true }).slice(8), [
    '--order',
    'declaration',
    '--all',
  ]);
});

test('missing parts are errors', () => {
  assert.throws(() => buildDecodeArgs({ schema: '', root: 'T', input: 'b' }), /schema/);
  assert.throws(() => buildDecodeArgs({ schema: 'a.sdp', root: '', input: 'b' }), /root/);
  assert.throws(() => buildDecodeArgs({ schema: 'a.sdp', root: 'T', input: '' }), /input/);
});

test('order directive detection, dialects, type names', () => {
  assert.equal(hasOrderDirective('//wirelens:order declaration\npackage p\n'), true);
  assert.equal(hasOrderDirective('// wirelens:order declaration\npackage p\n'), false);
  assert.equal(dialectOf('x.sdp'), 'sdp');
  assert.equal(dialectOf('x.txt'), undefined);
  assert.deepEqual(typeNames('struct A {\n}\n  struct B{}\n// struct C\n', 'sdp'), ['A', 'B']);
  assert.deepEqual(typeNames('package p\ntype Frame struct {\n}\ntype X int32\n', 'ffi'), ['Frame']);
});

// With a built binary, the arguments really work (skipped on a machine without one).
const repo = path.resolve(__dirname, '..', '..', '..');
const binary = ['release', 'debug'].map((p) => path.join(repo, 'target', p, 'wirelens')).find((p) => fs.existsSync(p));
test('the built arguments decode a real value with the real CLI', { skip: binary ? false : 'no target/*/wirelens' }, () => {
  const schema = path.join(repo, 'examples', 'audiounit', 'plugin_registry.sdp');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wirelens decode '));
  try {
    const value = { component_type: 1635083896, component_subtype: 2, manufacturer: 3, version: 65536 };
    const bytes = execFileSync(binary!, ['encode', '--schema', schema, '--root', 'ComponentId'], { input: JSON.stringify(value) });
    const input = path.join(dir, 'component id.bin');
    fs.writeFileSync(input, bytes);
    const out = execFileSync(binary!, buildDecodeArgs({ schema, root: 'ComponentId', input }), { encoding: 'utf8' });
    assert.match(out, /component_type/);
    assert.match(out, /1635083896/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('hex: separators, 0x prefixes, errors with their position', () => {
  assert.deepEqual([...parseHex('53 44 50 32\n0a,0x0B:ff')], [0x53, 0x44, 0x50, 0x32, 0x0a, 0x0b, 0xff]);
  assert.deepEqual([...parseHex('0x00')], [0]);
  assert.deepEqual([...parseHex('00ff')], [0, 255]);
  assert.throws(() => parseHex('12 3'), /odd number of hex digits \(3\)/);
  assert.throws(() => parseHex('12 zz'), /not a hex digit: "z" at character 4/);
  assert.throws(() => parseHex('  '), /no hex digits/);
  assert.equal(looksLikeHex('de ad be ef'), true);
  assert.equal(looksLikeHex('struct A {}'), false);
});

test('the SDP message header names the root; an unknown id says which exist', () => {
  const header = parseHex('53 44 50 32 03 00 00 00 00 00');
  assert.equal(messageTypeId(header), 3);
  assert.equal(messageTypeId(parseHex('53 44 50 32 03 01 00 00 00 00')), 259);
  assert.equal(messageTypeId(parseHex('53 44 50 32 03 00')), undefined, 'shorter than a header');
  assert.equal(messageTypeId(parseHex('53 44 50 31 03 00 00 00 00 00')), undefined, 'another version byte');
  const types = [
    { name: 'A', message_id: 1, root: null },
    { name: 'B', message_id: 2, root: null },
  ];
  assert.equal(rootForTypeId(types, 2, 'x.sdp'), 'B');
  assert.throws(() => rootForTypeId(types, 7, 'x.sdp'), /type id 7, which is not a struct of x\.sdp \(its ids: 1–2\)/);
  assert.deepEqual(
    rootCandidates([
      { name: 'Frame', message_id: null, root: true },
      { name: 'Helper', message_id: null, root: false },
    ]),
    ['Frame'],
  );
});

test('a failed decode toasts its last line, not the dump', () => {
  assert.equal(shortError('0000  01 00  a: u8 = 1\nerror: at offset 2: unexpected end of input\n', 1), 'at offset 2: unexpected end of input');
  assert.equal(shortError('', 3), 'exit status 3');
  assert.equal(shortError('x'.repeat(500), 1).length, 200);
});

test('without an input file the arguments read stdin', () => {
  assert.deepEqual(buildDecodeArgs({ schema: 'a.sdp', root: 'T', mode: 'message' }), ['decode', '--annotate', '--schema', 'a.sdp', '--root', 'T', '--mode', 'message']);
});

// As the extension does it: hex text -> bytes -> the header's type id -> the root from
// `wirelens layout --format json` -> `wirelens decode --annotate` reading stdin.
test('pasted hex of an SDP message decodes with the root its header names', { skip: binary ? false : 'no target/*/wirelens' }, () => {
  const schema = path.join(repo, 'examples', 'audiounit', 'plugin_registry.sdp');
  const types = layoutTypes(execFileSync(binary!, ['layout', '--format', 'json', schema], { encoding: 'utf8' }));
  const component = types.find((t) => t.name === 'ComponentId');
  assert.ok(component && typeof component.message_id === 'number');
  const value = { component_type: 1635083896, component_subtype: 2, manufacturer: 3, version: 65536 };
  const bytes = execFileSync(binary!, ['encode', '--schema', schema, '--root', 'ComponentId', '--mode', 'message'], {
    input: JSON.stringify(value),
  });
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const parsed = parseHex(hex);
  const id = messageTypeId(parsed);
  assert.equal(id, component.message_id);
  const root = rootForTypeId(types, id!, 'plugin_registry.sdp');
  assert.equal(root, 'ComponentId');
  const out = execFileSync(binary!, buildDecodeArgs({ schema, root, mode: 'message' }), { input: parsed, encoding: 'utf8' });
  assert.match(out, /component_type/);
  assert.match(out, /1635083896/);
  // A cut message fails with a one-line error for the toast.
  let stderr = '';
  try {
    execFileSync(binary!, buildDecodeArgs({ schema, root, mode: 'message' }), { input: parsed.subarray(0, 12), encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    stderr = String((e as { stderr?: string }).stderr ?? '');
  }
  const short = shortError(stderr, 1);
  assert.ok(stderr.length > 0, 'the cut message fails');
  assert.ok(!short.includes('\n') && /offset/.test(short), short);
});
