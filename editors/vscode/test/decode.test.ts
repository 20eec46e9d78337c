import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildDecodeArgs, dialectOf, hasOrderDirective, typeNames } from '../src/decode';

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
