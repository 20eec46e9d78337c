import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  bundledServerPath,
  defaultReadHeader,
  describeKind,
  ensureBundledExecutable,
  findOnPath,
  identifyBinary,
  notFoundMessage,
  resolveServer,
  runsOn,
  ServerNotFoundError,
} from '../src/server';

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

// Minimal real headers, as the toolchains write them (only the bytes the checks read).
function elf(machine: number, opts: { bigEndian?: boolean; osabi?: number } = {}): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, opts.bigEndian ? 2 : 1, 1, opts.osabi ?? 0]);
  const v = new DataView(b.buffer);
  v.setUint16(16, 3, !opts.bigEndian); // ET_DYN (a PIE)
  v.setUint16(18, machine, !opts.bigEndian);
  return b;
}
function pe(machine: number, lfanew = 0x80): Uint8Array {
  const b = new Uint8Array(lfanew + 24);
  b.set([0x4d, 0x5a]);
  const v = new DataView(b.buffer);
  v.setUint32(0x3c, lfanew, true);
  b.set([0x50, 0x45, 0, 0], lfanew);
  v.setUint16(lfanew + 4, machine, true);
  return b;
}
function macho(cputype: number): Uint8Array {
  const b = new Uint8Array(32);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0xfeedfacf, true); // MH_MAGIC_64, little-endian on disk: cf fa ed fe
  v.setUint32(4, cputype, true);
  v.setUint32(12, 2, true); // MH_EXECUTE
  return b;
}
function fat(...cputypes: number[]): Uint8Array {
  const b = new Uint8Array(8 + 20 * cputypes.length);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0xcafebabe, false);
  v.setUint32(4, cputypes.length, false);
  cputypes.forEach((c, i) => v.setUint32(8 + 20 * i, c, false));
  return b;
}
const X86_64 = 0x01000007;
const ARM64 = 0x0100000c;

test('identifyBinary: ELF x86-64 and aarch64, big-endian and FreeBSD too', () => {
  assert.deepEqual(identifyBinary(elf(0x3e)), { format: 'elf', os: 'linux', archs: ['x64'] });
  assert.deepEqual(identifyBinary(elf(0xb7)), { format: 'elf', os: 'linux', archs: ['arm64'] });
  assert.deepEqual(identifyBinary(elf(0x16, { bigEndian: true })), { format: 'elf', os: 'linux', archs: ['s390x'] });
  assert.equal(describeKind(identifyBinary(elf(0x3e, { osabi: 9 }))), 'freebsd-x64');
  assert.equal(describeKind(identifyBinary(elf(0x1234))), 'linux-unknown(0x1234)');
});

test('identifyBinary: PE AMD64 and ARM64 (found through e_lfanew)', () => {
  assert.deepEqual(identifyBinary(pe(0x8664)), { format: 'pe', os: 'win32', archs: ['x64'] });
  assert.deepEqual(identifyBinary(pe(0xaa64, 0x100)), { format: 'pe', os: 'win32', archs: ['arm64'] });
  assert.equal(describeKind(identifyBinary(pe(0x14c))), 'win32-ia32');
  // MZ without a PE header behind it (a DOS program, a truncated read): not a verdict.
  assert.equal(identifyBinary(pe(0x8664, 0x2000).subarray(0, 0x100)).format, 'unknown');
});

test('identifyBinary: Mach-O 64 x86_64 and arm64, universal binaries', () => {
  assert.deepEqual(identifyBinary(macho(X86_64)), { format: 'macho', os: 'darwin', archs: ['x64'] });
  assert.deepEqual(identifyBinary(macho(ARM64)), { format: 'macho', os: 'darwin', archs: ['arm64'] });
  assert.deepEqual(identifyBinary(fat(X86_64, ARM64)), { format: 'macho-universal', os: 'darwin', archs: ['x64', 'arm64'] });
  assert.equal(describeKind(identifyBinary(fat(X86_64, ARM64))), 'darwin-x64+arm64');
  // A Java class file shares the magic; its version (>= 45) is no architecture count.
  assert.equal(identifyBinary(new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x41])).format, 'unknown');
});

test('identifyBinary: scripts, empty and unknown input name no target', () => {
  assert.deepEqual(identifyBinary(new TextEncoder().encode('#!/bin/sh\nexec wirelens "$@"\n')), { format: 'script', archs: [] });
  assert.deepEqual(identifyBinary(new Uint8Array()), { format: 'unknown', archs: [] });
  assert.deepEqual(identifyBinary(new Uint8Array([0x7f, 0x45, 0x4c, 0x46])), { format: 'elf', archs: [] });
  for (const k of [identifyBinary(new Uint8Array()), identifyBinary(new Uint8Array([0x7f, 0x45, 0x4c, 0x46]))]) {
    assert.equal(runsOn(k, 'darwin', 'arm64'), true);
  }
});

test('runsOn compares with the host platform and arch', () => {
  assert.equal(runsOn(identifyBinary(elf(0x3e)), 'linux', 'x64'), true);
  assert.equal(runsOn(identifyBinary(elf(0x3e)), 'linux', 'arm64'), false);
  assert.equal(runsOn(identifyBinary(elf(0xb7)), 'darwin', 'arm64'), false);
  assert.equal(runsOn(identifyBinary(pe(0x8664)), 'win32', 'x64'), true);
  assert.equal(runsOn(identifyBinary(macho(X86_64)), 'darwin', 'arm64'), false);
  assert.equal(runsOn(identifyBinary(fat(X86_64, ARM64)), 'darwin', 'arm64'), true);
  assert.equal(runsOn(identifyBinary(fat(X86_64, ARM64)), 'linux', 'arm64'), false);
});

const headers =
  (map: Record<string, Uint8Array>) =>
  (f: string): Uint8Array | undefined =>
    map[f];

test('a bundled server for another target is skipped for PATH', () => {
  const r = resolveServer({
    extensionPath: ext,
    envPath: '/usr/bin',
    platform: 'linux',
    arch: 'arm64',
    isExecutable: only(bundled, '/usr/bin/wirelens'),
    readHeader: headers({ [bundled]: elf(0x3e), '/usr/bin/wirelens': elf(0xb7) }),
  });
  assert.deepEqual(r, { command: '/usr/bin/wirelens', source: 'path' });
});

test('PATH entries for another target are skipped too', () => {
  const r = resolveServer({
    extensionPath: ext,
    envPath: '/a:/b',
    platform: 'darwin',
    arch: 'arm64',
    isExecutable: only('/a/wirelens', '/b/wirelens'),
    readHeader: headers({ '/a/wirelens': macho(X86_64), '/b/wirelens': fat(X86_64, ARM64) }),
  });
  assert.deepEqual(r, { command: '/b/wirelens', source: 'path' });
});

test('only binaries for another target: the error says what was found, for what host, and how to fix it', () => {
  assert.throws(
    () =>
      resolveServer({
        extensionPath: ext,
        envPath: '/usr/bin',
        platform: 'darwin',
        arch: 'arm64',
        isExecutable: only(bundled),
        readHeader: headers({ [bundled]: elf(0x3e) }),
      }),
    (e: unknown) => {
      assert.ok(e instanceof ServerNotFoundError);
      assert.match(e.message, /the bundled server \(\/opt\/ext\/server\/wirelens\) is linux-x64, this is darwin-arm64, and no `wirelens` on PATH/);
      assert.match(e.message, /"wirelens\.server\.path"/);
      assert.match(e.message, /wirelens-darwin-arm64\.vsix/);
      assert.match(e.message, /dist\/build darwin-arm64/);
      assert.match(e.message, /docs\/prebuilt-servers\.md/);
      assert.match(e.message, /cargo install --path server/);
      assert.match(e.message, /Restart server/);
      return true;
    },
  );
  assert.throws(
    () =>
      resolveServer({
        extensionPath: ext,
        envPath: '/usr/bin',
        platform: 'win32',
        arch: 'x64',
        isExecutable: () => true,
        readHeader: () => elf(0xb7),
      }),
    /the bundled server \(.*wirelens\.exe\) is linux-arm64; the `wirelens` on PATH \(.*\) is linux-arm64, this is win32-x64\./,
  );
});

test('a configured binary for another target is an error, never replaced', () => {
  assert.throws(
    () =>
      resolveServer({
        configuredPath: '/custom/wirelens',
        extensionPath: ext,
        envPath: '/usr/bin',
        platform: 'linux',
        arch: 'x64',
        isExecutable: only('/custom/wirelens', bundled, '/usr/bin/wirelens'),
        readHeader: headers({ '/custom/wirelens': pe(0x8664), [bundled]: elf(0x3e) }),
      }),
    (e: unknown) => {
      assert.ok(e instanceof ServerNotFoundError);
      assert.match(e.message, /the binary set in "wirelens\.server\.path" \(\/custom\/wirelens\) is win32-x64, this is linux-x64 \(fix or clear the setting\)/);
      return true;
    },
  );
});

test('the real file system: a bundled binary of another target is read and skipped', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wirelens-test-'));
  try {
    const ext2 = path.join(dir, 'ext');
    fs.mkdirSync(path.join(ext2, 'server'), { recursive: true });
    const other = process.platform === 'win32' ? elf(0x3e) : pe(0x8664);
    const b = bundledServerPath(ext2);
    fs.writeFileSync(b, other);
    fs.chmodSync(b, 0o755);
    assert.equal(describeKind(identifyBinary(defaultReadHeader(b)!)), process.platform === 'win32' ? 'linux-x64' : 'win32-x64');
    assert.throws(() => resolveServer({ extensionPath: ext2, envPath: '' }), /is (linux|win32)-x64, this is /);
    assert.equal(defaultReadHeader(path.join(dir, 'missing')), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The binaries cargo built (the host's) and dist/build cross-built, where present.
const repo = path.resolve(__dirname, '..', '..', '..');
test('identifyBinary agrees with the real host binary', () => {
  const built = ['release', 'debug']
    .map((p) => path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target'), p, process.platform === 'win32' ? 'wirelens.exe' : 'wirelens'))
    .filter((f) => fs.existsSync(f));
  if (!built.length) return; // nothing built yet: the crafted headers above still ran
  for (const f of built) {
    const kind = identifyBinary(defaultReadHeader(f)!);
    assert.equal(kind.os, process.platform, f);
    assert.ok(runsOn(kind, process.platform, process.arch), `${f}: ${describeKind(kind)}`);
  }
});

test('identifyBinary agrees with the cross-built servers under dist/ (dist/build)', () => {
  const dist = path.join(repo, 'dist');
  for (const target of ['linux-x64', 'linux-arm64', 'win32-x64', 'darwin-x64', 'darwin-arm64']) {
    const f = path.join(dist, target, target.startsWith('win32') ? 'wirelens.exe' : 'wirelens');
    if (!fs.existsSync(f)) continue;
    assert.equal(describeKind(identifyBinary(defaultReadHeader(f)!)), target, f);
  }
});
