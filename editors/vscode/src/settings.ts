// The extension's settings and what the server receives. No `vscode` import.

export type FfiOrder = 'default' | 'canonical' | 'declaration';
export type GenLanguage = 'c' | 'cpp' | 'rust';
export type NumberFormat = 'decimal' | 'hex';

export interface Settings {
  ffiOrder: FfiOrder;
  generateOnSave: boolean;
  generateLanguages: GenLanguage[];
  generateOutDir: string;
  inlayHintsEnabled: boolean;
  /** How hovers write numbers: `8 (0x8)` or `0x8 (8)` (as rust-analyzer's setting). */
  numberFormat: NumberFormat;
}

export const DEFAULTS: Settings = {
  ffiOrder: 'default',
  generateOnSave: false,
  // The server generates all three unless `wirelens.toml` or the user says otherwise.
  generateLanguages: ['c', 'cpp', 'rust'],
  generateOutDir: '',
  inlayHintsEnabled: true,
  numberFormat: 'decimal',
};

/** The effective settings (package.json defaults filled in) through a getter like
 * `WorkspaceConfiguration.get`, with validation: what the extension itself uses. */
export function readSettings(get: (key: string) => unknown): Settings {
  return { ...DEFAULTS, generateLanguages: [...DEFAULTS.generateLanguages], ...readUserSettings(get) };
}

/** What the server reads (`initializationOptions`; `{ wirelens: … }` on change): only
 * what the user set, since a value the server receives beats `wirelens.toml`. */
export interface ServerOptions {
  ffi?: { order: 'canonical' | 'declaration' };
  generate?: { onSave?: boolean; languages?: GenLanguage[]; outDir?: string };
  inlayHints?: { enabled: boolean };
  numberFormat?: NumberFormat;
}

/** One setting as `WorkspaceConfiguration.inspect` reports it. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * A getter that answers only values the user set (folder over workspace over user
 * settings) and `undefined` for the rest: VS Code's `get` fills in package.json's
 * defaults, which the server could not tell from a choice.
 */
export function explicitOnly(inspect: (key: string) => Inspected | undefined): (key: string) => unknown {
  return (key) => {
    const i = inspect(key);
    return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
  };
}

/** The settings the user set, validated (invalid values count as unset). */
export function readUserSettings(get: (key: string) => unknown): Partial<Settings> {
  const out: Partial<Settings> = {};
  const order = get('ffi.order');
  if (order === 'canonical' || order === 'declaration') out.ffiOrder = order;
  const onSave = get('generate.onSave');
  if (typeof onSave === 'boolean') out.generateOnSave = onSave;
  const langs = get('generate.languages');
  if (Array.isArray(langs)) {
    const valid = [...new Set(langs.filter((l): l is GenLanguage => l === 'c' || l === 'cpp' || l === 'rust'))];
    if (valid.length > 0) out.generateLanguages = valid;
  }
  const outDir = get('generate.outDir');
  if (typeof outDir === 'string' && outDir.trim()) out.generateOutDir = outDir.trim();
  const inlay = get('inlayHints.enabled');
  if (typeof inlay === 'boolean') out.inlayHintsEnabled = inlay;
  const numbers = get('numberFormat');
  if (numbers === 'decimal' || numbers === 'hex') out.numberFormat = numbers;
  return out;
}

/**
 * The server's view of the settings: only what is set, so `wirelens.toml` decides the
 * rest (`ffi.order` "default" counts as unset).
 */
export function toServerOptions(s: Partial<Settings>): ServerOptions {
  const out: ServerOptions = {};
  if (s.ffiOrder === 'canonical' || s.ffiOrder === 'declaration') out.ffi = { order: s.ffiOrder };
  const generate: NonNullable<ServerOptions['generate']> = {};
  if (s.generateOnSave !== undefined) generate.onSave = s.generateOnSave;
  if (s.generateLanguages !== undefined && s.generateLanguages.length > 0) generate.languages = [...s.generateLanguages];
  if (s.generateOutDir) generate.outDir = s.generateOutDir;
  if (Object.keys(generate).length > 0) out.generate = generate;
  if (s.inlayHintsEnabled !== undefined) out.inlayHints = { enabled: s.inlayHintsEnabled };
  if (s.numberFormat !== undefined) out.numberFormat = s.numberFormat;
  return out;
}

/** The server command that generates code (nvim uses the same name and arguments). */
export const GENERATE_COMMAND = 'wirelens.generate';

/** Arguments of `workspace/executeCommand` `wirelens.generate` for one file: only what
 * the user set, so `wirelens.toml` decides the rest. */
export function generateArguments(uri: string, s: Partial<Settings>): [{ uri: string; languages?: GenLanguage[]; outDir?: string }] {
  const arg: { uri: string; languages?: GenLanguage[]; outDir?: string } = { uri };
  if (s.generateLanguages && s.generateLanguages.length > 0) arg.languages = [...s.generateLanguages];
  if (s.generateOutDir) arg.outDir = s.generateOutDir;
  return [arg];
}

/** Whether the server advertises a command in `executeCommandProvider`. */
export function serverOffers(capabilities: { executeCommandProvider?: { commands?: string[] } } | undefined, command: string): boolean {
  return capabilities?.executeCommandProvider?.commands?.includes(command) ?? false;
}
