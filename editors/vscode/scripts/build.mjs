// Bundles the extension (Node, CommonJS) and the inspector's webview script (browser,
// IIFE) into dist/. `--minify` (npm run build -- --minify) minifies both.
import { build } from 'esbuild';
import { join } from 'node:path';

const here = new URL('..', import.meta.url).pathname;
const minify = process.argv.includes('--minify');
await build({
  entryPoints: [join(here, 'src/extension.ts')],
  outfile: join(here, 'dist/extension.js'),
  bundle: true,
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  minify,
  logLevel: 'warning',
});
await build({
  entryPoints: [join(here, 'src/webview/inspector.ts')],
  outfile: join(here, 'dist/inspector.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  sourcemap: minify ? false : 'inline',
  minify,
  logLevel: 'warning',
});
