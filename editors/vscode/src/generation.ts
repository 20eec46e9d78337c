// What the user is told about a generation. No `vscode` import.

/** The reply of `wirelens.generate`: the files written and those left unchanged. */
export interface GenerateResult {
  outDir?: string;
  written?: string[];
  unchanged?: string[];
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The status-bar line for a successful generation of `file`. */
export function describeGeneration(file: string, result: unknown): string {
  const r = (result ?? {}) as GenerateResult;
  const written = Array.isArray(r.written) ? r.written.length : 0;
  const unchanged = Array.isArray(r.unchanged) ? r.unchanged.length : 0;
  const parts = [plural(written, 'file written', 'files written')];
  if (unchanged > 0) parts.push(`${unchanged} unchanged`);
  return `wirelens: generated ${file}: ${parts.join(', ')}`;
}

/**
 * A failed request's error for a toast: its first line, without the JSON-RPC code, at
 * most 200 characters (the whole problem is in the diagnostics).
 */
export function shortRequestError(e: unknown): string {
  const raw = e instanceof Error ? e.message : typeof e === 'object' && e && 'message' in e ? String(e.message) : String(e);
  const first = (raw.trim().split('\n')[0] ?? '').replace(/^Request \S+ failed with message: /, '');
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** The end message of a generation's `$/progress`: "N file(s) written" or "failed: …". */
export function progressOutcome(message: string): { ok: true; text: string } | { ok: false; text: string } {
  const failed = /^failed:\s*/.exec(message);
  if (failed) return { ok: false, text: message.slice(failed[0].length) };
  return { ok: true, text: message };
}
