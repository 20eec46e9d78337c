// Open → first visible inlay hints, open → code lenses, and keystroke → the edited line's hint,
// in real VS Code (code-server + Chromium, the .vsix with the given server) on the schema of
// bench/gen-schema.py. Run by bench/vscode-hints/run (through editors/vscode/scripts/e2e.sh,
// which installs the pinned tools). Times are taken in this process around the UI action and
// the wait for what the user would see (polled every animation frame).
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dir, launch, repo, serverBin, until, workbench } from '../../editors/vscode/e2e/harness.mjs';

const structs = Number(process.env.BENCH_STRUCTS || 5000);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const edits = Number(process.env.BENCH_EDITS || 5);

const run = join(dir, 'bench-hints');
rmSync(run, { recursive: true, force: true });
const workspace = join(run, 'workspace');
mkdirSync(workspace, { recursive: true });
const file = join(workspace, 'big1.sdp');
execFileSync('python3', [join(repo, 'bench', 'gen-schema.py'), 'sdp', String(structs), file]);
// One copy per round: each round opens a file the editor has not seen (and edits it).
for (let round = 2; round <= rounds; round++) copyFileSync(file, join(workspace, `big${round}.sdp`));
const lines = readFileSync(file, 'utf8').split('\n');
// Keystrokes: `fN_val: u64,` → `u32` on lines from the middle of the file on (every 97th
// line, closer in a small file so that it has as many).
const targets = [];
const step = Math.max(1, Math.min(97, Math.floor(lines.length / 2 / (edits + 1))));
for (let i = Math.floor(lines.length / 2); i < lines.length && targets.length < edits; i += step) {
  let j = i;
  while (j < lines.length && !/^ {4}f\d+_val: u64,$/.test(lines[j])) j++;
  if (j < lines.length && !targets.includes(j + 1)) targets.push(j + 1);
}
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`schema: ${structs} structs, ${lines.length} lines; load ${load()}`);

// BENCH_TAP=1: the server runs behind bench/vscode-hints/lsp-tap.mjs, which logs every
// message; each round then prints what VS Code asked while the user waited.
const tapLog = join(run, 'lsp.jsonl');
// Auto save off (code-server saves after a second by default): a save is not part of a keystroke.
// BENCH_SETTINGS='{"editor.codeLens": false}': more settings (what costs what).
const settings = { 'wirelens.trace.server': 'off', 'files.autoSave': 'off', ...JSON.parse(process.env.BENCH_SETTINGS || '{}') };
if (process.env.BENCH_TAP) {
  const wrapper = join(run, 'wirelens-tap');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${join(repo, 'bench', 'vscode-hints', 'lsp-tap.mjs')}' '${tapLog}' '${serverBin}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  settings['wirelens.server.path'] = wrapper;
}
const mark = (what) => process.env.BENCH_TAP && appendFileSync(tapLog, `${JSON.stringify({ t: Date.now(), mark: what })}\n`);
/** The messages between two marks: one line each, ms after the first mark. */
const timeline = (from, to) => {
  if (!existsSync(tapLog)) return;
  const all = readFileSync(tapLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const a = all.findIndex((m) => m.mark === from);
  const b = all.findIndex((m, i) => i > a && m.mark === to);
  if (a < 0) return;
  const t0 = all[a].t;
  for (const m of all.slice(a, b < 0 ? undefined : b + 1)) {
    if (m.mark) console.log(`   +${String(m.t - t0).padStart(6)} ms   -- ${m.mark}`);
    else if (!/^\$\/|window\/logMessage|textDocument\/publishDiagnostics/.test(m.method ?? '') || m.bytes > 10_000)
      console.log(`   +${String(m.t - t0).padStart(6)} ms   ${m.dir} ${m.method}${m.id !== undefined ? ` #${m.id}` : ''}  ${m.bytes} B`);
  }
};

const { page, close } = await launch({ run, workspace, settings, label: 'bench' });
const { runCommand, goTo } = workbench(page);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// window.wlLine(n): the text of line `n` (1-based) of the active editor as rendered (hints
// included), or null while it is not in view.
await page.evaluate(() => {
  window.wlLine = (n) => {
    const ed = document.querySelector('.editor-group-container.active .monaco-editor');
    if (!ed) return null;
    const num = [...ed.querySelectorAll('.margin-view-overlays .line-numbers')].find((e) => e.textContent.trim() === String(n));
    const top = num?.parentElement?.style.top;
    if (!top) return null;
    const line = [...ed.querySelectorAll('.view-lines .view-line')].find((l) => l.style.top === top);
    return line ? line.textContent.replace(/\u00a0/g, ' ') : null;
  };
});

let status = 0;
try {
  // The server is running before the first open (activation on a workspace with schemas).
  await page.locator('.statusbar-item', { hasText: 'wirelens', has: page.locator('.codicon-pass') }).first().waitFor({ timeout: 120_000 });
  for (let round = 1; round <= rounds; round++) {
    const name = `big${round}.sdp`;
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
    await row.waitFor();
    mark(`open ${round}`);
    const t0 = Date.now();
    await row.dblclick();
    const hints = page
      .waitForFunction(
        () => /@(?:\d+|after [^·]+) · /.test((document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')),
        null,
        { polling: 'raf', timeout: 120_000 },
      )
      .then(() => Date.now() - t0);
    const lenses = (settings['editor.codeLens'] === false ? Promise.resolve(-1) : page
      .waitForFunction(
        () => !!document.querySelector('.editor-group-container.active .monaco-editor .codelens-decoration a'),
        null,
        { polling: 'raf', timeout: 120_000 },
      )
      .then(() => Date.now() - t0));
    const [openHints, openLenses] = await Promise.all([
      hints.then((ms) => (mark(`first hints ${round}`), ms)),
      lenses.then((ms) => (mark(`lenses ${round}`), ms)),
    ]);
    const times = [];
    for (const target of targets) {
      const col = lines[target - 1].indexOf('u64') + 2; // 1-based column of `64`
      await goTo(`${target}:${col}`);
      await page.keyboard.press('Shift+ArrowRight');
      await page.keyboard.press('Shift+ArrowRight');
      await until(`the hint of line ${target}`, async () => {
        const t = await page.evaluate((n) => window.wlLine(n), target);
        return [!!t && /u64, ?@.* · 8 B/.test(t), t];
      }, 120_000);
      mark(`keystroke ${round}.${times.length + 1}`);
      const t = Date.now();
      await page.keyboard.insertText('32');
      await page.waitForFunction(
        (n) => {
          const text = window.wlLine(n);
          return !!text && /u32, ?@.* · 4 B/.test(text);
        },
        target,
        { polling: 'raf', timeout: 120_000 },
      );
      times.push(Date.now() - t);
      mark(`hint ${round}.${times.length}`);
    }
    console.log(
      `round ${round}  open → first hints ${String(openHints).padStart(6)} ms   open → lenses ${String(openLenses).padStart(6)} ms   ` +
        `keystroke → hint median ${String(median(times)).padStart(5)} ms (min ${Math.min(...times)}, max ${Math.max(...times)}; ${times.join(", ")})   load ${load()}`,
    );
    if (process.env.BENCH_TAP) {
      console.log(`round ${round}: the messages from open to first hints and lenses`);
      timeline(`open ${round}`, openHints > openLenses ? `first hints ${round}` : `lenses ${round}`);
      console.log(`round ${round}: the messages of the second keystroke`);
      timeline(`keystroke ${round}.2`, `hint ${round}.2`);
    }
    await runCommand('View: Revert and Close Editor');
    await page.locator('.tab', { hasText: name }).first().waitFor({ state: 'detached', timeout: 60_000 });
  }
} catch (e) {
  status = 1;
  console.error(`bench: ${String(e).split('\n')[0]}`);
  await page.screenshot({ path: join(dir, 'bench-hints-failure.png') }).catch(() => {});
} finally {
  await close();
}
process.exit(status);
