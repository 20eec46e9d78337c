// Real VS Code OSS (code-server) with the .vsix installed in a fresh profile, a workspace
// open in Chromium (playwright-core), and the workbench helpers the end-to-end test and the
// editor benchmark (bench/vscode-hints) share. Run under scripts/e2e.sh, which installs the
// tools and sets the WIRELENS_E2E_* variables and NODE_PATH.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';

const require = createRequire(join(process.env.NODE_PATH, 'x.js'));
const { chromium } = require('playwright-core');

export const codeServer = process.env.WIRELENS_E2E_CODE_SERVER;
export const vsix = process.env.WIRELENS_E2E_VSIX;
export const repo = process.env.WIRELENS_E2E_REPO;
/** Where runs, logs and screenshots go (editors/vscode/.e2e, gitignored). */
export const dir = process.env.WIRELENS_E2E_DIR;
export const serverBin = process.env.WIRELENS_E2E_SERVER;

/** Settings of every run: no distractions, hints on, the simple (typed path) file dialog. */
export const baseSettings = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'editor.inlayHints.enabled': 'on',
  'telemetry.telemetryLevel': 'off',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  // The open dialog as a path in the quick input (checks that pick a file type its path).
  'files.simpleDialog.enable': true,
  // No chat panel beside the editors (it would take a third of the width).
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

/**
 * Starts code-server on `workspace` with a fresh profile under `run` (user data, extensions,
 * config) and `settings`, installs the .vsix, and opens the workbench in Chromium. Bounded by
 * WIRELENS_E2E_TIMEOUT_S (default `limitS`) in all; SIGINT/SIGTERM stop code-server too.
 * Returns `{page, close}`; `close()` stops everything and writes code-server's log to `dir`.
 */
export async function launch({ run, workspace, settings, limitS = 1200, label = 'e2e' }) {
  const userData = join(run, 'user-data');
  const extensions = join(run, 'extensions');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ ...baseSettings, ...settings }));
  // Machine-scoped settings (`wirelens.server.path`) are read from the remote side's file:
  // code-server is VS Code's remote server.
  mkdirSync(join(userData, 'Machine'), { recursive: true });
  writeFileSync(join(userData, 'Machine', 'settings.json'), JSON.stringify(settings));
  // --config: code-server otherwise creates ~/.config/code-server/config.yaml.
  const config = join(run, 'config.yaml');
  writeFileSync(config, 'auth: none\ncert: false\n');
  const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
  console.log(`${label}: installing`, vsix);
  execFileSync(codeServer, [...common, '--install-extension', vsix], { stdio: 'inherit' });

  const port = await freePort();
  const server = spawn(
    codeServer,
    [...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', workspace],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serverLog = '';
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const logFile = join(dir, label === 'e2e' ? 'code-server.log' : `code-server-${label}.log`);
  let browser;
  const close = async () => {
    await browser?.close().catch(() => {});
    server.kill();
    writeFileSync(logFile, serverLog);
  };
  // Never outlive a stuck run (every wait has its own timeout; this bounds them all) and
  // never leave code-server behind.
  const giveUp = (why, status) => {
    console.error(`${label}: ${why}`);
    server.kill();
    writeFileSync(logFile, serverLog);
    process.exit(status);
  };
  const limit = Number(process.env.WIRELENS_E2E_TIMEOUT_S || limitS);
  setTimeout(() => giveUp(`not done within ${limit} s (WIRELENS_E2E_TIMEOUT_S)`, 1), limit * 1000).unref();
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => giveUp(signal, 130));

  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error(`code-server did not start:\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: !process.env.WIRELENS_E2E_HEADED,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    // A loaded 2-core machine (the suite runs beside builds) is slow: waits are generous.
    page.setDefaultTimeout(60_000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 }).catch(() => {});
    return { page, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Polls `probe` (→ [ok, what it saw]) until ok; the error names the last thing seen. */
export async function until(what, probe, timeout = 60_000) {
  const end = Date.now() + timeout;
  let seen;
  for (;;) {
    let ok = false;
    try {
      [ok, seen] = await probe();
    } catch (e) {
      seen = String(e).split('\n')[0];
    }
    if (ok) return seen;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeout / 1000} s; last seen: ${JSON.stringify(seen)?.slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Workbench actions on `page`. */
export function workbench(page) {
  const openFile = async (name) => {
    // Through the Explorer (the quick-open shortcut depends on where the focus is).
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
    await row.waitFor({ timeout: 60_000 });
    await row.dblclick();
    await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 60_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: '' }).first().waitFor();
  };
  const runCommand = async (title) => {
    const input = page.locator('.quick-input-widget input');
    const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first();
    for (let attempt = 1; ; attempt++) {
      // F1 is lost while a webview (the layout view) has the focus: focus the workbench.
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press('F1');
        if (await input.waitFor({ timeout: 2_000 }).then(() => true, () => false)) break;
        await page.locator('.part.sidebar .composite.title').first().click();
      }
      await input.waitFor({ timeout: 60_000 });
      await input.fill(`>${title}`);
      // The extension's commands are listed once VS Code has read its manifest, and only
      // when their `when` holds (a schema editor active): ask again while the UI settles.
      if (await row.waitFor({ timeout: 10_000 }).then(() => true, () => false)) break;
      if (attempt === 6) throw new Error(`no command "${title}" in the palette`);
      await page.keyboard.press('Escape');
    }
    await page.keyboard.press('Enter');
  };
  /** Go to Line (`12` or `12:5`) in the focused editor. */
  const goTo = async (lineCol) => {
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').waitFor({ timeout: 60_000 });
    await page.keyboard.type(lineCol);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 60_000 });
  };
  return { openFile, runCommand, goTo };
}
