// The extension's settings and what the server receives. No `vscode` import.

export type FfiOrder = 'default' | 'canonical' | 'declaration';
export type GenLanguage = 'c' | 'cpp' | 'rust';

export interface Settings {
  ffiOrder: FfiOrder;
  generateOnSave: boolean;
  generateLanguages: GenLanguage[];
  generateOutDir: string;
  inlayHintsEnabled: boolean;
}

export const DEFAULTS: Settings = {
  ffiOrder: 'default',
  generateOnSave: false,
  generateLanguages: ['rust'],
  generateOutDir: '',
  inlayHintsEnabled: true,
};

/** What the server reads (`initializationOptions`; `{ wirelens: … }` on change). */
export interface ServerOptions {
  ffi?: { order: 'canonical' | 'declaration' };
  generate: { onSave: boolean; languages: GenLanguage[]; outDir?: string };
  inlayHints: { enabled: boolean };
}

/** Reads settings through a getter like `WorkspaceConfiguration.get`, with validation. */
export function readSettings(get: (key: string) => unknown): Settings {
  const order = get('ffi.order');
  const langs = get('generate.languages');
  const outDir = get('generate.outDir');
  const onSave = get('generate.onSave');
  const inlay = get('inlayHints.enabled');
  return {
    ffiOrder: order === 'canonical' || order === 'declaration' ? order : 'default',
    generateOnSave: typeof onSave === 'boolean' ? onSave : DEFAULTS.generateOnSave,
    generateLanguages: Array.isArray(langs)
      ? [...new Set(langs.filter((l): l is GenLanguage => l === 'c' || l === 'cpp' || l === 'rust'))]
      : [...DEFAULTS.generateLanguages],
    generateOutDir: typeof outDir === 'string' ? outDir.trim() : '',
    inlayHintsEnabled: typeof inlay === 'boolean' ? inlay : DEFAULTS.inlayHintsEnabled,
  };
}

/**
 * The server's view of the settings. `ffi.order` is left out when it is "default",
 * so `wirelens.toml` decides (the client's setting overrides the file's otherwise).
 */
export function toServerOptions(s: Settings): ServerOptions {
  const out: ServerOptions = {
    generate: { onSave: s.generateOnSave, languages: [...s.generateLanguages] },
    inlayHints: { enabled: s.inlayHintsEnabled },
  };
  if (s.ffiOrder !== 'default') out.ffi = { order: s.ffiOrder };
  if (s.generateOutDir) out.generate.outDir = s.generateOutDir;
  return out;
}

/** The server command that generates code (nvim uses the same name and arguments). */
export const GENERATE_COMMAND = 'wirelens.generate';

/** Arguments of `workspace/executeCommand` `wirelens.generate` for one file. */
export function generateArguments(uri: string, s: Settings): [{ uri: string; languages?: GenLanguage[]; outDir?: string }] {
  const arg: { uri: string; languages?: GenLanguage[]; outDir?: string } = { uri };
  if (s.generateLanguages.length > 0) arg.languages = [...s.generateLanguages];
  if (s.generateOutDir) arg.outDir = s.generateOutDir;
  return [arg];
}

/** Whether the server advertises a command in `executeCommandProvider`. */
export function serverOffers(capabilities: { executeCommandProvider?: { commands?: string[] } } | undefined, command: string): boolean {
  return capabilities?.executeCommandProvider?.commands?.includes(command) ?? false;
}
