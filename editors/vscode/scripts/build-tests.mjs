// Compiles test/*.test.ts (and the src modules they import) into out-test/ for `node --test`.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const here = new URL('..', import.meta.url).pathname;
const tests = readdirSync(join(here, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join(here, 'test', f));
rmSync(join(here, 'out-test'), { recursive: true, force: true });
await build({
  entryPoints: tests,
  outdir: join(here, 'out-test'),
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
});
