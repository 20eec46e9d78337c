// prepackage: copies the release `wirelens` binary (Linux x64) into server/ so the .vsix bundles it.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = join(here, '..', '..');
const source = process.env.WIRELENS_SERVER_BINARY || join(repo, 'target', 'release', 'wirelens');
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.warn(`copy-server: packaging on ${process.platform}-${process.arch}; the .vsix is meant for linux-x64`);
}
if (!existsSync(source)) {
  console.error(`copy-server: ${source} not found. Build it first: cargo build --release -p wirelens`);
  process.exit(1);
}
mkdirSync(join(here, 'server'), { recursive: true });
const target = join(here, 'server', 'wirelens');
copyFileSync(source, target);
chmodSync(target, 0o755);
// Debug symbols are most of the size; strip them when binutils is there (best effort).
try {
  execFileSync('strip', ['--strip-debug', target], { stdio: 'ignore' });
} catch {
  console.warn('copy-server: strip not available; bundling the binary as built');
}
console.log(`copy-server: ${source} -> ${target}`);
