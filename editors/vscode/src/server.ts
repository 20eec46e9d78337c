// Where the `wirelens` binary is: the `wirelens.server.path` setting, then the binary
// bundled in the extension (`server/wirelens`), then `wirelens` on PATH. A binary whose
// header says it is for another OS or CPU (a .vsix for another target, a copied binary)
// is skipped for the next candidate, and named in the error when nothing usable is found.
// No `vscode` import: unit-tested with node's test runner.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type ServerSource = 'setting' | 'bundled' | 'path';

export interface ResolvedServer {
  command: string;
  source: ServerSource;
}

export interface ResolveOptions {
  /** The `wirelens.server.path` setting ('' or undefined: not set). */
  configuredPath?: string;
  /** The extension's install folder (the bundled binary is `server/wirelens` in it). */
  extensionPath: string;
  /** The PATH to search (defaults to process.env.PATH). */
  envPath?: string;
  platform?: NodeJS.Platform;
  /** Injected for tests. */
  isExecutable?: (file: string) => boolean;
  /** Expands a leading `~` (defaults to the home directory). */
  home?: string;
  /** The host's CPU (defaults to process.arch). */
  arch?: string;
  /** Injected for tests: the first bytes of a file (undefined: unreadable). */
  readHeader?: (file: string) => Uint8Array | undefined;
}

/** What the first bytes of an executable say it is. */
export interface BinaryKind {
  format: 'elf' | 'pe' | 'macho' | 'macho-universal' | 'script' | 'unknown';
  /** Node's names (process.platform): linux, win32, darwin; freebsd for an ELF marked so. */
  os?: NodeJS.Platform;
  /** Node's names (process.arch): x64, arm64, ia32, arm, riscv64, …; several in a universal binary. */
  archs: string[];
}

// ELF e_machine values (System V ABI, processor supplements).
const ELF_MACHINES: Record<number, string> = {
  0x03: 'ia32',
  0x08: 'mips',
  0x14: 'ppc',
  0x15: 'ppc64',
  0x16: 's390x',
  0x28: 'arm',
  0x3e: 'x64',
  0xb7: 'arm64',
  0xf3: 'riscv64',
  0x102: 'loong64',
};
// PE/COFF IMAGE_FILE_MACHINE_* values.
const PE_MACHINES: Record<number, string> = {
  0x014c: 'ia32',
  0x01c4: 'arm',
  0x8664: 'x64',
  0xaa64: 'arm64',
};
// Mach-O cputype values (<mach/machine.h>; CPU_ARCH_ABI64 = 0x01000000).
const MACHO_CPUS: Record<number, string> = {
  0x00000007: 'ia32',
  0x0000000c: 'arm',
  0x01000007: 'x64',
  0x0100000c: 'arm64',
  0x00000012: 'ppc',
  0x01000012: 'ppc64',
};

function cpuName(table: Record<number, string>, value: number): string {
  return table[value] ?? `unknown(0x${value.toString(16)})`;
}

/**
 * Identifies an executable from its first bytes (4 KiB is plenty: the PE header is
 * found through the DOS header's e_lfanew, usually within the first 256 bytes). Pure:
 * unit-tested with crafted headers. Unknown or too-short input is `unknown` (never
 * reason to skip a binary: only a positive mismatch is).
 */
export function identifyBinary(bytes: Uint8Array): BinaryKind {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u8 = (at: number) => (at < bytes.length ? bytes[at]! : -1);
  const has = (at: number, n: number) => at >= 0 && at + n <= bytes.length;
  // ELF: 7f 'E' 'L' 'F', EI_DATA at 5 (1 little-endian, 2 big-endian), EI_OSABI at 7, e_machine at 18.
  if (u8(0) === 0x7f && u8(1) === 0x45 && u8(2) === 0x4c && u8(3) === 0x46) {
    if (!has(18, 2)) return { format: 'elf', archs: [] };
    const machine = view.getUint16(18, u8(5) !== 2);
    const os: NodeJS.Platform = u8(7) === 9 ? 'freebsd' : 'linux';
    return { format: 'elf', os, archs: [cpuName(ELF_MACHINES, machine)] };
  }
  // PE: 'MZ', e_lfanew (u32 LE) at 0x3c, 'PE\0\0' there, then the COFF Machine (u16 LE).
  if (u8(0) === 0x4d && u8(1) === 0x5a) {
    if (!has(0x3c, 4)) return { format: 'unknown', archs: [] };
    const pe = view.getUint32(0x3c, true);
    if (!has(pe, 6) || view.getUint32(pe, false) !== 0x50450000) return { format: 'unknown', archs: [] };
    return { format: 'pe', os: 'win32', archs: [cpuName(PE_MACHINES, view.getUint16(pe + 4, true))] };
  }
  if (has(0, 8)) {
    const be = view.getUint32(0, false);
    // Mach-O thin: MH_MAGIC(_64) 0xfeedface/0xfeedfacf in the file's byte order, cputype next.
    if (be === 0xcffaedfe || be === 0xcefaedfe) return { format: 'macho', os: 'darwin', archs: [cpuName(MACHO_CPUS, view.getUint32(4, true))] };
    if (be === 0xfeedfacf || be === 0xfeedface) return { format: 'macho', os: 'darwin', archs: [cpuName(MACHO_CPUS, view.getUint32(4, false))] };
    // Universal (fat): FAT_MAGIC 0xcafebabe (fat_arch: 20 bytes) or FAT_MAGIC_64 0xcafebabf
    // (32 bytes), big-endian, nfat_arch then the entries (cputype first). Java class files
    // share 0xcafebabe; their next word (the class version, >= 45) tells them apart.
    if (be === 0xcafebabe || be === 0xcafebabf) {
      const count = view.getUint32(4, false);
      if (count === 0 || count > 32) return { format: 'unknown', archs: [] };
      const size = be === 0xcafebabe ? 20 : 32;
      const archs: string[] = [];
      for (let i = 0; i < count && has(8 + i * size, 4); i++) archs.push(cpuName(MACHO_CPUS, view.getUint32(8 + i * size, false)));
      return { format: 'macho-universal', os: 'darwin', archs };
    }
  }
  if (u8(0) === 0x23 && u8(1) === 0x21) return { format: 'script', archs: [] };
  return { format: 'unknown', archs: [] };
}

/** `linux-x64`, `darwin-x64+arm64`, or undefined when the kind names no OS. */
export function describeKind(kind: BinaryKind): string | undefined {
  if (!kind.os) return undefined;
  return `${kind.os}-${kind.archs.length ? kind.archs.join('+') : 'unknown'}`;
}

/** False only when the header positively names another OS or CPU than the host's. */
export function runsOn(kind: BinaryKind, platform: NodeJS.Platform, arch: string): boolean {
  if (!kind.os) return true;
  if (kind.os !== platform) return false;
  return kind.archs.length === 0 || kind.archs.includes(arch);
}

export function defaultReadHeader(file: string): Uint8Array | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(4096);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** A candidate skipped because it is built for another OS or CPU. */
export interface Mismatch {
  where: 'setting' | 'bundled' | 'path';
  file: string;
  /** e.g. linux-x64 */
  kind: string;
}

export class ServerNotFoundError extends Error {}

export function binaryName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'wirelens.exe' : 'wirelens';
}

export function defaultIsExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, 'server', binaryName(platform));
}

/**
 * The first executable `name` in the PATH directories that `usable` accepts (default:
 * any), or undefined. `usable` may note the ones it refuses.
 */
export function findOnPath(
  envPath: string | undefined,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
  usable: (file: string) => boolean = () => true,
): string | undefined {
  if (!envPath) return undefined;
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of envPath.split(sep)) {
    if (!dir) continue;
    const candidate = path.join(dir, binaryName(platform));
    if (isExecutable(candidate) && usable(candidate)) return candidate;
  }
  return undefined;
}

/** The host as the per-target packages name it: linux-x64, darwin-arm64, win32-x64, … */
export function hostTarget(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  return `${platform}-${arch}`;
}

const GET_SERVER =
  'Get a server built for it: install the extension package for this platform (the Marketplace picks it; ' +
  'a .vsix named wirelens-HOST.vsix), or build one (`cargo install --path server` from the wirelens ' +
  'repository, or `dist/build HOST` to cross-build: see docs/prebuilt-servers.md), then set ' +
  '"wirelens.server.path" to it or put `wirelens` on PATH, and run "wirelens: Restart server".';

/** The error when the only binaries found are built for another OS or CPU. */
export function wrongTargetMessage(mismatches: Mismatch[], host: string): string {
  const parts = mismatches.map((m) => {
    const what = m.where === 'setting' ? 'the binary set in "wirelens.server.path"' : m.where === 'bundled' ? 'the bundled server' : 'the `wirelens` on PATH';
    return `${what} (${m.file}) is ${m.kind}`;
  });
  const fromSetting = mismatches.some((m) => m.where === 'setting');
  return (
    `wirelens: no language server binary for this machine: ${parts.join('; ')}, this is ${host}` +
    (fromSetting ? ' (fix or clear the setting)' : mismatches.some((m) => m.where === 'path') ? '' : ', and no `wirelens` on PATH') +
    '. ' +
    GET_SERVER.replaceAll('HOST', host)
  );
}

export function notFoundMessage(opts: { configuredPath?: string; bundled: string }): string {
  if (opts.configuredPath) {
    return (
      `wirelens: the language server binary set in "wirelens.server.path" (${opts.configuredPath}) ` +
      'does not exist or is not executable. Fix the setting (an absolute path to the wirelens binary), ' +
      'or clear it to use the bundled binary or `wirelens` on PATH.'
    );
  }
  return (
    'wirelens: no language server binary found (not bundled at ' +
    `${opts.bundled}, and no \`wirelens\` on PATH). Install it with ` +
    '`cargo install --path server` from the wirelens repository (or build it with ' +
    '`cargo build --release -p wirelens`, or cross-build one with `dist/build`: see ' +
    'docs/prebuilt-servers.md) and set "wirelens.server.path" to the binary, ' +
    'or put `wirelens` on PATH, then run "wirelens: Restart server".'
  );
}

/**
 * Resolves the server binary. A configured path that does not work is an error
 * (never silently replaced by another binary).
 */
export function resolveServer(opts: ResolveOptions): ResolvedServer {
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const isExecutable = opts.isExecutable ?? defaultIsExecutable;
  const readHeader = opts.readHeader ?? defaultReadHeader;
  const configured = (opts.configuredPath ?? '').trim();
  const bundled = bundledServerPath(opts.extensionPath, platform);
  const mismatches: Mismatch[] = [];
  const usable = (where: Mismatch['where']) => (file: string) => {
    const header = readHeader(file);
    if (!header) return true; // unreadable here: let the start tell
    const kind = identifyBinary(header);
    if (runsOn(kind, platform, arch)) return true;
    mismatches.push({ where, file, kind: describeKind(kind) ?? kind.format });
    return false;
  };
  if (configured) {
    let p = configured;
    const home = opts.home ?? process.env.HOME ?? '';
    if (home && (p === '~' || p.startsWith('~/'))) p = path.join(home, p.slice(1));
    if (!isExecutable(p)) throw new ServerNotFoundError(notFoundMessage({ configuredPath: configured, bundled }));
    // A configured binary is never silently replaced, not even one for another target.
    if (usable('setting')(p)) return { command: p, source: 'setting' };
    throw new ServerNotFoundError(wrongTargetMessage(mismatches, hostTarget(platform, arch)));
  }
  if (isExecutable(bundled) && usable('bundled')(bundled)) return { command: bundled, source: 'bundled' };
  const onPath = findOnPath(opts.envPath ?? process.env.PATH, platform, isExecutable, usable('path'));
  if (onPath) return { command: onPath, source: 'path' };
  if (mismatches.length) throw new ServerNotFoundError(wrongTargetMessage(mismatches, hostTarget(platform, arch)));
  throw new ServerNotFoundError(notFoundMessage({ bundled }));
}

/**
 * Some unzip paths drop the executable bit of the bundled binary: restore it (best effort).
 * Returns true when the bundled binary exists and is executable afterwards.
 */
export function ensureBundledExecutable(extensionPath: string, platform: NodeJS.Platform = process.platform): boolean {
  const bundled = bundledServerPath(extensionPath, platform);
  if (!fs.existsSync(bundled)) return false;
  if (platform !== 'win32' && !defaultIsExecutable(bundled)) {
    try {
      fs.chmodSync(bundled, 0o755);
    } catch {
      return false;
    }
  }
  return defaultIsExecutable(bundled);
}
