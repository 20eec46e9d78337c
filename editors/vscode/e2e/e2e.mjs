// End to end in real VS Code OSS (code-server) + chromium (playwright-core). Run by
// scripts/e2e.sh, which sets the WIRELENS_E2E_* variables and NODE_PATH.
//
// Installs the .vsix into a fresh code-server profile, opens a workspace with the two
// example schemas and a broken one, and checks: the status bar shows the server running;
// an unknown type gets a squiggle and a Problems entry; hovering a struct shows its layout
// (a field table, `size = 16 B (0x10), fixed`, fixed blocks); SDP inlay hints (`@0 · 8 B`)
// and ffire ones (`wire #N`) are rendered; a layout code lens opens the layout view; outside
// a struct *Show wire layout* offers a pick and the view follows an edit; hex selected in an
// editor decodes with the root its SDP message header names; generation (on save too) shows
// success in the status bar and a failure as one short toast; a schema edited against its git
// HEAD gets a wire-break warning and a "breaks N messages since HEAD" lens; SDP hints after
// variable-size fields are shown whole (VS Code cuts labels over 43 characters); a binary file
// decodes into a read-only view with its field = value column. Each failed check leaves a
// screenshot in WIRELENS_E2E_DIR; the compatibility and hint checks keep one in
// WIRELENS_E2E_DIR/artifacts/ either way; exit status 1 if any failed.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';

const require = createRequire(join(process.env.NODE_PATH, 'x.js'));
const { chromium } = require('playwright-core');

const codeServer = process.env.WIRELENS_E2E_CODE_SERVER;
const vsix = process.env.WIRELENS_E2E_VSIX;
const repo = process.env.WIRELENS_E2E_REPO;
const dir = process.env.WIRELENS_E2E_DIR;
const serverBin = process.env.WIRELENS_E2E_SERVER;

const run = join(dir, 'run');
rmSync(run, { recursive: true, force: true });
const userData = join(run, 'user-data');
const extensions = join(run, 'extensions');
const workspace = join(run, 'workspace');
mkdirSync(join(userData, 'User'), { recursive: true });
mkdirSync(workspace, { recursive: true });
cpSync(join(repo, 'examples', 'audiounit', 'plugin_registry.sdp'), join(workspace, 'plugin_registry.sdp'));
cpSync(join(repo, 'examples', 'telemetry', 'telemetry.ffi'), join(workspace, 'telemetry.ffi'));
writeFileSync(join(workspace, 'live.sdp'), '// A struct the layout view follows.\n\nstruct Live {\n    a: u32,\n}\n');
// The hex of a ComponentId message (type id 3 in plugin_registry.sdp), as a user would paste it.
const message = execFileSync(serverBin, ['encode', '--schema', join(workspace, 'plugin_registry.sdp'), '--root', 'ComponentId', '--mode', 'message'], {
  input: JSON.stringify({ component_type: 1635083896, component_subtype: 2, manufacturer: 3, version: 65536 }),
});
writeFileSync(join(workspace, 'message.hex'), `${[...message].map((b) => b.toString(16).padStart(2, '0')).join(' ')}\n`);
// The message as a binary file too (decoding a file).
writeFileSync(join(workspace, 'message.bin'), message);
// A schema committed in git and then edited: `Point.y` becomes a u64, which changes the wire
// of `Point` and of `Shape` (it contains a Point).
const shapes =
  '/// A point.\nstruct Point {\n    x: u32,\n    y: u32,\n}\n\nstruct Shape {\n    name: str,\n    at: Point,\n}\n';
writeFileSync(join(workspace, 'shapes.sdp'), shapes);
const git = (...args) =>
  execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@localhost', '-c', 'init.defaultBranch=main', ...args], {
    cwd: workspace,
    stdio: 'pipe',
  });
git('init', '-q');
git('add', 'shapes.sdp');
git('commit', '-q', '-m', 'shapes');
writeFileSync(join(workspace, 'shapes.sdp'), shapes.replace('    y: u32,', '    y: u64,'));
const artifacts = join(dir, 'artifacts');
rmSync(artifacts, { recursive: true, force: true });
mkdirSync(artifacts, { recursive: true });
writeFileSync(join(workspace, 'broken.sdp'), '/// A reference to a type nobody declared.\nstruct Broken {\n    a: u32,\n    b: Missing,\n}\n');
writeFileSync(
  join(userData, 'User', 'settings.json'),
  JSON.stringify({
    'workbench.startupEditor': 'none',
    'security.workspace.trust.enabled': false,
    'editor.inlayHints.enabled': 'on',
    'telemetry.telemetryLevel': 'off',
    'workbench.tips.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'wirelens.trace.server': 'messages',
    'wirelens.generate.onSave': true,
    // The open dialog as a path in the quick input (the check that decodes a file types it).
    'files.simpleDialog.enable': true,
  }),
);

// --config: code-server otherwise creates ~/.config/code-server/config.yaml.
const config = join(run, 'config.yaml');
writeFileSync(config, 'auth: none\ncert: false\n');
const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
console.log('e2e: installing', vsix);
execFileSync(codeServer, [...common, '--install-extension', vsix], { stdio: 'inherit' });

const port = await new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn(
  codeServer,
  [...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--disable-getting-started-override', workspace],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
let serverLog = '';
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));

const deadline = Date.now() + 60_000;
for (;;) {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    if (r.ok) break;
  } catch {}
  if (Date.now() > deadline) throw new Error(`code-server did not start:\n${serverLog}`);
  await new Promise((r) => setTimeout(r, 500));
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: !process.env.WIRELENS_E2E_HEADED,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
const results = [];
const check = async (name, fn) => {
  const t = Date.now();
  try {
    await fn();
    results.push(`ok   ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    await page.screenshot({ path: join(dir, `failure-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
    results.push(`FAIL ${name}: ${String(e).split('\n')[0]}`);
  }
  console.log(results.at(-1));
};

async function openFile(name) {
  // Through the Explorer (the quick-open shortcut depends on where the focus is).
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ timeout: 30_000 });
  await row.dblclick();
  await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 20_000 });
  await page.locator('.monaco-editor .view-lines', { hasText: '' }).first().waitFor();
}

try {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 }).catch(() => {});

  await check('language mode, and the status bar shows the server running', async () => {
    await openFile('broken.sdp');
    await page.locator('.statusbar-item', { hasText: 'SDP' }).first().waitFor({ timeout: 30_000 });
    // `$(pass) wirelens` once the client is running (`$(error)` / `$(circle-slash)` otherwise).
    await page
      .locator('.statusbar-item', { hasText: 'wirelens', has: page.locator('.codicon-pass') })
      .first()
      .waitFor({ timeout: 60_000 });
  });

  await check('diagnostics (UNKNOWN_TYPE squiggle and the Problems count)', async () => {
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'Missing' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Shift+M');
  });

  await check('layout hover on a struct name (field table, size, fixed blocks)', async () => {
    await openFile('plugin_registry.sdp');
    // ComponentId: fixed-size, so the hover says `size = 16 B (0x10), fixed`.
    const name = page.locator('.monaco-editor .view-line span', { hasText: /^ComponentId$/ }).first();
    await name.waitFor({ timeout: 30_000 });
    // The hover appears once the server answers; retry the mouse move while it starts.
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'Fixed blocks' }).first();
    let shown = false;
    for (let i = 0; i < 20 && !shown; i++) {
      await page.mouse.move(0, 0);
      await name.hover();
      shown = await hover.waitFor({ timeout: 3_000 }).then(() => true, () => false);
    }
    if (!shown) throw new Error('no layout hover');
    const text = await hover.textContent();
    if (!/size = 16 B \(0x10\), fixed/.test(text)) throw new Error(`no "size = 16 B" in the hover: ${text}`);
    const header = (await hover.locator('table th').allTextContents()).map((t) => t.trim());
    for (const column of ['field', 'type', 'offset', 'size']) {
      if (!header.includes(column)) throw new Error(`hover table columns ${JSON.stringify(header)} lack "${column}"`);
    }
    await hover.locator('table td', { hasText: 'component_subtype' }).first().waitFor({ timeout: 1_000 });
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
  });

  await check('inlay hints after SDP fields (@offset · size)', async () => {
    await page.waitForFunction(
      () => /@0\s·\s8\sB/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''),
      null,
      { timeout: 60_000 },
    );
  });

  await check('code lens runs wirelens.showLayout (layout view beside)', async () => {
    const lens = page.locator('.monaco-editor .codelens-decoration a').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    await page.locator('.tab', { hasText: /Wire layout: \w+/ }).first().waitFor({ timeout: 30_000 });
  });

  // The text of the webviews (the layout view: nested iframes), not of the workbench,
  // whose editors show the schema itself.
  const framesText = async () => {
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    const texts = await Promise.all(frames.map((f) => f.evaluate(() => document.body?.innerText ?? '').catch(() => '')));
    return texts.join('\n');
  };
  const runCommand = async (title) => {
    const input = page.locator('.quick-input-widget input');
    // F1 is lost while a webview (the layout view) has the focus: focus the workbench.
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('F1');
      if (await input.waitFor({ timeout: 2_000 }).then(() => true, () => false)) break;
      await page.locator('.part.sidebar .composite.title').first().click();
    }
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
  };

  const activeEditor = () => page.locator('.editor-group-container.active .monaco-editor .view-lines').first();

  await check('outside a struct, Show wire layout offers a pick of the types', async () => {
    await runCommand('View: Close All Editors');
    await openFile('live.sdp');
    await activeEditor().click();
    await page.keyboard.press('Control+Home');
    await runCommand('wirelens: Show wire layout');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Live' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'Wire layout: Live' }).first().waitFor({ timeout: 30_000 });
  });

  await check('the layout view follows edits of its schema', async () => {
    await page.waitForFunction(() => true); // the view of Live is open beside (previous check)
    let text = '';
    for (let i = 0; i < 40 && !/Wire layout: Live[\s\S]*\bu32\b/.test(text); i++) {
      text = await framesText();
      await page.waitForTimeout(250);
    }
    if (!/Wire layout: Live[\s\S]*\bu32\b/.test(text)) throw new Error(`the view does not show Live: ${text.slice(0, 300)}`);
    if (/\bbeta\b/.test(text)) throw new Error('the view shows `beta` before it was typed');
    await page.locator('.tab', { hasText: 'live.sdp' }).first().click();
    await activeEditor().click();
    await page.keyboard.press('Control+G');
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('beta: u64,');
    for (let i = 0; i < 60 && !/\bbeta\b/.test(text); i++) {
      await page.waitForTimeout(250);
      text = await framesText();
    }
    if (!/\bbeta\b/.test(text)) throw new Error(`the layout view did not refresh: ${text.slice(0, 300)}`);
  });

  await check('generation on save shows in the status bar', async () => {
    await page.locator('.tab', { hasText: 'live.sdp' }).first().click();
    await activeEditor().click();
    await page.keyboard.press('Control+S');
    await page.locator('.statusbar-item', { hasText: 'generated on save' }).first().waitFor({ timeout: 60_000 });
    if (!existsSync(join(workspace, 'generated', 'live.rs'))) throw new Error('no generated/live.rs');
  });

  await check('decode: hex selected in an editor, SDP message root from the header', async () => {
    await runCommand('View: Close All Editors');
    await openFile('message.hex');
    await activeEditor().click();
    await page.keyboard.press('Control+A');
    await runCommand('wirelens: Decode bytes');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'plugin_registry.sdp' }).first();
    await pick.waitFor({ timeout: 20_000 });
    await pick.click();
    await page.locator('.tab', { hasText: /ComponentId \(\d+\)\.decoded/ }).first().waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () => /component_type/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''),
      null,
      { timeout: 20_000 },
    );
  });

  await check('generation: success in the status bar, a failure as one short toast', async () => {
    await openFile('plugin_registry.sdp');
    await runCommand('wirelens: Generate encoders for this file');
    await page.locator('.statusbar-item', { hasText: 'generated plugin_registry.sdp' }).first().waitFor({ timeout: 60_000 });
    await openFile('broken.sdp');
    await runCommand('wirelens: Generate encoders for this file');
    const toast = page.locator('.notification-toast', { hasText: 'generation failed' });
    await toast.first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1_000);
    const texts = await toast.allTextContents();
    if (texts.length !== 1) throw new Error(`${texts.length} toasts: ${JSON.stringify(texts)}`);
    if (/-32603|Request workspace\/executeCommand failed/.test(texts[0])) throw new Error(`a raw error: ${texts[0]}`);
  });

  await check('compatibility: a wire-break warning and the lens against git HEAD (artifacts/compat.png)', async () => {
    await runCommand('View: Close All Editors');
    await openFile('shapes.sdp');
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 60_000 });
    await page
      .locator('.monaco-editor .codelens-decoration', { hasText: 'breaks 2 messages since HEAD' })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'wire break against HEAD' }).first();
    await row.waitFor({ timeout: 30_000 });
    const text = await row.textContent();
    if (!/field `Point\.y` changed from `u32` to `u64`, size 4 B → 8 B/.test(text)) throw new Error(`the warning says: ${text}`);
    await page.screenshot({ path: join(artifacts, 'compat.png') });
    await page.keyboard.press('Control+Shift+M');
  });

  await check('inlay hints after variable-size fields are not truncated (artifacts/inlay-hints.png)', async () => {
    await runCommand('View: Close All Editors');
    await openFile('plugin_registry.sdp');
    // Hints are spans of the view lines; VS Code would end a cut label with `…`.
    const hints = await page.waitForFunction(
      () => {
        const lines = document.querySelector('.editor-group-container.active .monaco-editor .view-lines');
        const texts = [...(lines?.querySelectorAll('span') ?? [])]
          .filter((s) => s.children.length === 0)
          .map((s) => s.textContent.replace(/\u00a0/g, ' ').trim())
          .filter((t) => /^@(after |\d)/.test(t));
        return texts.some((t) => t.startsWith('@after ')) ? texts : null;
      },
      null,
      { timeout: 60_000 },
    ).then((h) => h.jsonValue());
    await page.screenshot({ path: join(artifacts, 'inlay-hints.png') });
    const cut = hints.filter((t) => t.includes('…') || !/ · \S.* B$/.test(t));
    if (cut.length) throw new Error(`hints cut or without a size: ${JSON.stringify(cut)}`);
    if (hints.some((t) => t.length > 43)) throw new Error(`hints over 43 characters: ${JSON.stringify(hints)}`);
  });

  await check('decode: a binary file into a read-only view with the field = value column', async () => {
    await runCommand('View: Close All Editors');
    await openFile('plugin_registry.sdp');
    await runCommand('wirelens: Decode bytes');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Binary file' }).first().click({ timeout: 20_000 });
    // The simple open dialog: a path in the quick input.
    const input = page.locator('.quick-input-widget input');
    await page.waitForTimeout(500);
    await input.fill(join(workspace, 'message.bin'));
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: /ComponentId \(\d+\)\.decoded/ }).first().waitFor({ timeout: 30_000 });
    const view = () => activeEditor().evaluate((e) => e.textContent.replace(/\u00a0/g, ' '));
    await page.waitForFunction(
      () => /component_type = 1635083896/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent?.replace(/\u00a0/g, ' ') ?? ''),
      null,
      { timeout: 20_000 },
    );
    const text = await view();
    for (const want of ['message.bin', 'field = value', 'message header = SDP2 · type id 3', 'version = 65536']) {
      if (!text.includes(want)) throw new Error(`no "${want}" in the view: ${text.slice(0, 400)}`);
    }
    await activeEditor().click();
    await page.keyboard.type('zzz');
    await page.waitForTimeout(500);
    if ((await view()).includes('zzz')) throw new Error('the decoded view is editable');
  });

  await check('ffire: inlay hints show the wire order', async () => {
    await openFile('telemetry.ffi');
    await page.waitForFunction(
      // Inlay hints render spaces as no-break spaces (\s matches both).
      () => /wire\s#\d+/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''),
      null,
      { timeout: 60_000 },
    );
  });
} finally {
  await browser.close().catch(() => {});
  server.kill();
  writeFileSync(join(dir, 'code-server.log'), serverLog);
}

console.log(`\ne2e: ${results.filter((r) => r.startsWith('ok')).length} passed, ${results.filter((r) => !r.startsWith('ok')).length} failed`);
process.exit(results.every((r) => r.startsWith('ok')) ? 0 : 1);
