import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { bundledServerPath, ensureBundledExecutable, findOnPath, notFoundMessage, resolveServer, ServerNotFoundError } from '../src/server';

const ext = '/opt/ext';
const bundled = path.join(ext, 'server', 'wirelens');
const only = (...files: string[]) => (f: string) => files.includes(f);

test('the setting wins over the bundled binary and PATH', () => {
  const r = resolveServer({
    configuredPath: '/custom/wirelens',
    extensionPath: ext,
    envPath: '/usr/bin',
    platform: 'linux',
    isExecutable: only('/custom/wirelens', bundled, '/usr/bin/wirelens'),
  });
  assert.deepEqual(r, { command: '/custom/wirelens', source: 'setting' });
});

test('a setting with surrounding spaces and ~ is expanded', () => {
  const r = resolveServer({
    configuredPath: '  ~/bin/wirelens ',
    extensionPath: ext,
    home: '/home/me',
    platform: 'linux',
    isExecutable: only('/home/me/bin/wirelens'),
  });
  assert.deepEqual(r, { command: '/home/me/bin/wirelens', source: 'setting' });
});

test('a broken setting is an error naming the setting, never silently replaced', () => {
  assert.throws(
    () =>
      resolveServer({
        configuredPath: '/nope/wirelens',
        extensionPath: ext,
        envPath: '/usr/bin',
        platform: 'linux',
        isExecutable: only(bundled, '/usr/bin/wirelens'),
      }),
    (e: unknown) => {
      assert.ok(e instanceof ServerNotFoundError);
      assert.match(e.message, /wirelens\.server\.path/);
      assert.match(e.message, /\/nope\/wirelens/);
      assert.match(e.message, /clear it/);
      return true;
    },
  );
});

test('then the bundled binary', () => {
  const r = resolveServer({
    configuredPath: '',
    extensionPath: ext,
    envPath: '/usr/bin',
    platform: 'linux',
    isExecutable: only(bundled, '/usr/bin/wirelens'),
  });
  assert.deepEqual(r, { command: bundled, source: 'bundled' });
});

test('then the first wirelens on PATH (empty entries skipped)', () => {
  const r = resolveServer({
    extensionPath: ext,
    envPath: '::/a:/b:/c',
    platform: 'linux',
    isExecutable: only('/b/wirelens', '/c/wirelens'),
  });
  assert.deepEqual(r, { command: '/b/wirelens', source: 'path' });
});

test('Windows: wirelens.exe and ; separators', () => {
  assert.equal(bundledServerPath('C:\\ext', 'win32').endsWith('wirelens.exe'), true);
  const found = findOnPath('C:\\a;C:\\b', 'win32', (f) => f.endsWith('wirelens.exe') && f.includes('b'));
  assert.ok(found?.endsWith('wirelens.exe'));
});

test('nothing found: the message says how to fix it', () => {
  assert.throws(
    () => resolveServer({ extensionPath: ext, envPath: '/usr/bin', platform: 'linux', isExecutable: () => false }),
    (e: unknown) => {
      assert.ok(e instanceof ServerNotFoundError);
      assert.match(e.message, /no language server binary found/);
      assert.match(e.message, /cargo install --path server/);
      assert.match(e.message, /wirelens\.server\.path/);
      assert.match(e.message, /PATH/);
      assert.match(e.message, /Restart server/);
      assert.ok(e.message.includes(bundled));
      return true;
    },
  );
  assert.equal(notFoundMessage({ bundled: 'x' }).includes('x'), true);
});

test('the real file system: executable bits are checked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wirelens-test-'));
  try {
    fs.mkdirSync(path.join(dir, 'ext', 'server'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'bin'));
    const plain = path.join(dir, 'ext', 'server', 'wirelens');
    fs.writeFileSync(plain, '');
    fs.chmodSync(plain, 0o644);
    const onPath = path.join(dir, 'bin', 'wirelens');
    fs.writeFileSync(onPath, '#!/bin/sh\n');
    fs.chmodSync(onPath, 0o755);
    const ext2 = path.join(dir, 'ext');
    if (process.platform !== 'win32') {
      assert.deepEqual(resolveServer({ extensionPath: ext2, envPath: path.join(dir, 'bin') }), { command: onPath, source: 'path' });
      fs.chmodSync(plain, 0o755);
    }
    assert.deepEqual(resolveServer({ extensionPath: ext2, envPath: path.join(dir, 'bin') }), { command: plain, source: 'bundled' });
    assert.throws(() => resolveServer({ configuredPath: path.join(dir, 'bin'), extensionPath: ext2 }), ServerNotFoundError);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a bundled binary without its executable bit gets it back', { skip: process.platform === 'win32' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wirelens-test-'));
  try {
    assert.equal(ensureBundledExecutable(dir), false);
    fs.mkdirSync(path.join(dir, 'server'));
    const bin = path.join(dir, 'server', 'wirelens');
    fs.writeFileSync(bin, '#!/bin/sh\n');
    fs.chmodSync(bin, 0o644);
    assert.equal(ensureBundledExecutable(dir), true);
    assert.equal(fs.statSync(bin).mode & 0o111, 0o111);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
