// Building the `wirelens decode --annotate` invocation. No `vscode` import.

export interface DecodeRequest {
  schema: string;
  root: string;
  /** A file; without one the bytes come on stdin. */
  input?: string;
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
  const args = ['decode', '--annotate', '--schema', r.schema, '--root', r.root];
  if (r.input !== undefined) {
    if (!r.input) throw new Error('decode: no input file');
    args.push('--input', r.input);
  }
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

/**
 * Hex text to bytes: whitespace, `,`, `:` and `0x` prefixes separate; anything else is an
 * error naming the character and its (1-based) position.
 */
export function parseHex(text: string): Uint8Array {
  const digits: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (/[0-9a-fA-F]/.test(c)) {
      if (c === '0' && /[xX]/.test(chars[i + 1] ?? '') && /[0-9a-fA-F]/.test(chars[i + 2] ?? '')) {
        i++; // a 0x prefix
      } else {
        digits.push(c);
      }
    } else if (!/[\s,:]/.test(c)) {
      throw new Error(`not a hex digit: ${JSON.stringify(c)} at character ${i + 1}`);
    }
  }
  if (digits.length === 0) throw new Error('no hex digits');
  if (digits.length % 2 === 1) throw new Error(`an odd number of hex digits (${digits.length})`);
  const bytes = new Uint8Array(digits.length / 2);
  for (let k = 0; k < bytes.length; k++) bytes[k] = parseInt(digits[2 * k]! + digits[2 * k + 1]!, 16);
  return bytes;
}

/** True when `text` parses as hex (for offering a selection or the clipboard). */
export function looksLikeHex(text: string): boolean {
  try {
    parseHex(text);
    return true;
  } catch {
    return false;
  }
}

/** The type id of an SDP message header (`SDP` '2' u16 id u32 length), if the bytes start with one. */
export function messageTypeId(bytes: Uint8Array): number | undefined {
  if (bytes.length < 10 || bytes[0] !== 0x53 || bytes[1] !== 0x44 || bytes[2] !== 0x50 || bytes[3] !== 0x32) return undefined;
  return bytes[4]! | (bytes[5]! << 8);
}

/** One type of `wirelens layout --format json`, the parts decoding needs. */
export interface LayoutType {
  name: string;
  message_id: number | null;
  root: boolean | null;
}

export function layoutTypes(json: string): LayoutType[] {
  const parsed: unknown = JSON.parse(json);
  const types = (parsed as { types?: unknown }).types;
  if (!Array.isArray(types)) throw new Error('unexpected output of wirelens layout');
  return types as LayoutType[];
}

/** The struct an SDP message header names, or an error that says which ids exist. */
export function rootForTypeId(types: readonly LayoutType[], id: number, schemaName: string): string {
  const t = types.find((x) => x.message_id === id);
  if (t) return t.name;
  const ids = types.map((x) => x.message_id).filter((x): x is number => typeof x === 'number');
  const known = ids.length ? ` (its ids: ${Math.min(...ids)}–${Math.max(...ids)})` : '';
  throw new Error(`the message header names type id ${id}, which is not a struct of ${schemaName}${known}`);
}

/** Types offered as the root: ffire helpers are not roots; SDP has no such notion. */
export function rootCandidates(types: readonly LayoutType[]): string[] {
  return types.filter((t) => t.root !== false).map((t) => t.name);
}

/** The error of a failed CLI run for a toast: the last line of stderr, not the dump before it. */
export function shortError(stderr: string, code: number): string {
  const lines = stderr.trim().split('\n');
  const last = (lines[lines.length - 1] ?? '').trim().replace(/^error: /, '');
  const text = last || `exit status ${code}`;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
