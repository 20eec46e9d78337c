// Where the `wirelens` binary is: the `wirelens.server.path` setting, then the binary
// bundled in the extension (`server/wirelens`), then `wirelens` on PATH.
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

/** The first executable `name` in the PATH directories, or undefined. */
export function findOnPath(
  envPath: string | undefined,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
): string | undefined {
  if (!envPath) return undefined;
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of envPath.split(sep)) {
    if (!dir) continue;
    const candidate = path.join(dir, binaryName(platform));
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
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
    '`cargo build --release -p wirelens`) and set "wirelens.server.path" to the binary, ' +
    'or put `wirelens` on PATH, then run "wirelens: Restart server".'
  );
}

/**
 * Resolves the server binary. A configured path that does not work is an error
 * (never silently replaced by another binary).
 */
export function resolveServer(opts: ResolveOptions): ResolvedServer {
  const platform = opts.platform ?? process.platform;
  const isExecutable = opts.isExecutable ?? defaultIsExecutable;
  const configured = (opts.configuredPath ?? '').trim();
  const bundled = bundledServerPath(opts.extensionPath, platform);
  if (configured) {
    let p = configured;
    const home = opts.home ?? process.env.HOME ?? '';
    if (home && (p === '~' || p.startsWith('~/'))) p = path.join(home, p.slice(1));
    if (isExecutable(p)) return { command: p, source: 'setting' };
    throw new ServerNotFoundError(notFoundMessage({ configuredPath: configured, bundled }));
  }
  if (isExecutable(bundled)) return { command: bundled, source: 'bundled' };
  const onPath = findOnPath(opts.envPath ?? process.env.PATH, platform, isExecutable);
  if (onPath) return { command: onPath, source: 'path' };
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
