// Building the `wirelens decode --annotate` invocation. No `vscode` import.

export interface DecodeRequest {
  schema: string;
  root: string;
  input: string;
  /** SDP only: `message` expects the 10-byte header. */
  mode?: 'byte' | 'message';
  /** ffire only; left out when the schema has its own `//wirelens:order` directive. */
  order?: 'canonical' | 'declaration';
  /** Decode back-to-back records. */
  all?: boolean;
}

/** True when the text has a `//wirelens:order` directive (it wins over client settings). */
export function hasOrderDirective(text: string): boolean {
  return /^[ \t]*\/\/wirelens:order\b/m.test(text);
}

export function dialectOf(file: string): 'sdp' | 'ffi' | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith('.sdp')) return 'sdp';
  if (lower.endsWith('.ffi')) return 'ffi';
  return undefined;
}

/** The argument vector (no shell: every value is one argument, whatever it contains). */
export function buildDecodeArgs(r: DecodeRequest): string[] {
  if (!r.schema) throw new Error('decode: no schema file');
  if (!r.root) throw new Error('decode: no root type');
  if (!r.input) throw new Error('decode: no input file');
  const args = ['decode', '--annotate', '--schema', r.schema, '--root', r.root, '--input', r.input];
  const dialect = dialectOf(r.schema);
  if (r.mode && dialect === 'sdp') args.push('--mode', r.mode);
  if (r.order && dialect === 'ffi') args.push('--order', r.order);
  if (r.all) args.push('--all');
  return args;
}

/** Struct names in a schema, for the root-type picker when the server is not running. */
export function typeNames(text: string, dialect: 'sdp' | 'ffi'): string[] {
  const re = dialect === 'sdp' ? /^[ \t]*struct[ \t]+([A-Za-z_][A-Za-z0-9_]*)/gm : /^[ \t]*type[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+struct\b/gm;
  const names: string[] = [];
  for (const m of text.matchAll(re)) {
    const name = m[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}
