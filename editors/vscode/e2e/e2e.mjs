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
// decodes into a read-only view with its field = value column. The binary inspector (its
// webview, nested iframes) on the AudioUnit golden vectors: the 112 KB one shows coloured hex
// beside the decoded tree and fetches the window at its end when scrolled there; on the
// 156 B one the schema cursor highlights a field's bytes, a click on a byte selects its field
// in the tree and moves the schema's cursor to it, the value inspector reads u8…f64/UTF-8, a
// schema edit re-decodes and keeps the field under the cursor highlighted; a truncated copy
// shows the error at byte 138 with its field path, the values before it still in the tree.
// Expected byte ranges come from `wirelens decode --annotate`. Each failed check leaves a
// screenshot in WIRELENS_E2E_DIR; the compatibility, hint and inspector checks keep theirs in
// WIRELENS_E2E_DIR/artifacts/ either way; exit status 1 if any failed.
// WIRELENS_E2E_ONLY=regex runs only the checks whose names match.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dir, launch, repo, serverBin, until, workbench } from './harness.mjs';

const run = join(dir, 'run');
rmSync(run, { recursive: true, force: true });
const workspace = join(run, 'workspace');
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
// The binary inspector: the AudioUnit golden vectors (112 KB and 156 B) with their schema, and
// the small one cut short inside its second parameter (a decode error at byte 138).
const vectors = join(repo, 'tests', 'vectors', 'sdp');
cpSync(join(vectors, 'schemas', 'audiounit.sdp'), join(workspace, 'audiounit.sdp'));
cpSync(join(vectors, 'cases', 'audiounit_full.bin'), join(workspace, 'audiounit_full.bin'));
cpSync(join(vectors, 'cases', 'audiounit_small.bin'), join(workspace, 'audiounit_small.bin'));
writeFileSync(join(workspace, 'audiounit_cut.bin'), readFileSync(join(vectors, 'cases', 'audiounit_small.bin')).subarray(0, 140));
writeFileSync(join(workspace, 'broken.sdp'), '/// A reference to a type nobody declared.\nstruct Broken {\n    a: u32,\n    b: Missing,\n}\n');
const { page, close } = await launch({
  run,
  workspace,
  settings: { 'wirelens.trace.server': 'messages', 'wirelens.generate.onSave': true },
});
const { openFile, runCommand, goTo } = workbench(page);
const results = [];
// WIRELENS_E2E_ONLY=regex runs only the checks whose names match (while working on some).
const only = process.env.WIRELENS_E2E_ONLY ? new RegExp(process.env.WIRELENS_E2E_ONLY) : undefined;
const check = async (name, fn) => {
  if (only && !only.test(name)) return;
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

try {
  await check('language mode, and the status bar shows the server running', async () => {
    await openFile('broken.sdp');
    await page.locator('.statusbar-item', { hasText: 'SDP' }).first().waitFor({ timeout: 60_000 });
    // `$(pass) wirelens` once the client is running (`$(error)` / `$(circle-slash)` otherwise).
    await page
      .locator('.statusbar-item', { hasText: 'wirelens', has: page.locator('.codicon-pass') })
      .first()
      .waitFor({ timeout: 60_000 });
  });

  await check('diagnostics (UNKNOWN_TYPE squiggle and the Problems count)', async () => {
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'Missing' }).first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
  });

  await check('layout hover on a struct name (field table, size, fixed blocks)', async () => {
    await openFile('plugin_registry.sdp');
    // ComponentId: fixed-size, so the hover says `size = 16 B (0x10), fixed`.
    const name = page.locator('.monaco-editor .view-line span', { hasText: /^ComponentId$/ }).first();
    await name.waitFor({ timeout: 60_000 });
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
    await hover.locator('table td', { hasText: 'component_subtype' }).first().waitFor({ timeout: 10_000 });
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
    await lens.waitFor({ timeout: 60_000 });
    await lens.click();
    await page.locator('.tab', { hasText: /Wire layout: \w+/ }).first().waitFor({ timeout: 60_000 });
  });

  // The text of the webviews (the layout view: nested iframes), not of the workbench,
  // whose editors show the schema itself.
  const framesText = async () => {
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    const texts = await Promise.all(frames.map((f) => f.evaluate(() => document.body?.innerText ?? '').catch(() => '')));
    return texts.join('\n');
  };
  const activeEditor = () => page.locator('.editor-group-container.active .monaco-editor .view-lines').first();

  const sameSet = (a, b) => a.length === b.length && [...a].sort((x, y) => x - y).every((x, i) => x === [...b].sort((p, q) => p - q)[i]);
  /** A quick pick (or the simple file dialog) titled `title`: type `text`, accept `label`'s row. */
  const quickPick = async (title, text, label = text) => {
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('input');
    await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 60_000 });
    // The file dialog fills in its folder once it has listed it: type after that.
    if (text.startsWith('/')) await until('the file dialog', async () => [(await input.inputValue()).endsWith('/'), await input.inputValue()]);
    // The list follows the text asynchronously: accept only once the wanted row is the focused
    // one (the file dialog: once the input holds the path as typed).
    const row = widget.locator('.quick-input-list .monaco-list-row.focused', { hasText: label }).first();
    const settled = () =>
      text.startsWith('/')
        ? until('the path typed', async () => [(await input.inputValue()) === text, await input.inputValue()], 10_000).then(() => true, () => false)
        : row.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    const titled = widget.locator('.quick-input-title', { hasText: title });
    for (let attempt = 1; ; attempt++) {
      await input.fill(text);
      if ((await settled()) && (await titled.isVisible())) {
        await page.keyboard.press('Enter');
        if (await titled.waitFor({ state: 'hidden', timeout: 10_000 }).then(() => true, () => false)) return;
      }
      if (attempt === 5) throw new Error(`"${title}": ${label} not accepted for ${text}; the input says ${await input.inputValue()}`);
      console.log(`     "${title}": ${label} not accepted at attempt ${attempt} (the input says ${await input.inputValue()}); again`);
    }
  };
  /** Focuses the schema's editor (group 1) without moving its cursor. */
  const focusSchema = async (name) => {
    await page.locator('.tab', { hasText: name }).first().click();
    await page.locator('.editor-group-container.active .tab.active', { hasText: name }).first().waitFor({ timeout: 60_000 });
  };


  await check('outside a struct, Show wire layout offers a pick of the types', async () => {
    await runCommand('View: Close All Editors');
    await openFile('live.sdp');
    await activeEditor().click();
    await page.keyboard.press('Control+Home');
    await runCommand('wirelens: Show wire layout');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Live' }).first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'Wire layout: Live' }).first().waitFor({ timeout: 60_000 });
  });

  await check('the layout view follows edits of its schema', async () => {
    // The view of Live is open beside (previous check).
    const shown = () => until('the layout of Live', async () => {
      const text = await framesText();
      return [/Wire layout: Live[\s\S]*\bu32\b/.test(text), text.slice(0, 300)];
    });
    if (/\bbeta\b/.test(await shown())) throw new Error('the view shows `beta` before it was typed');
    await page.locator('.tab', { hasText: 'live.sdp' }).first().click();
    await activeEditor().click();
    await goTo('4');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('beta: u64,');
    await until('the layout view refreshed', async () => {
      const text = await framesText();
      return [/\bbeta\b/.test(text), text.slice(0, 300)];
    });
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
    await pick.waitFor({ timeout: 60_000 });
    await pick.click();
    await page.locator('.tab', { hasText: /ComponentId \(\d+\)\.decoded/ }).first().waitFor({ timeout: 60_000 });
    await page.waitForFunction(
      () => /component_type/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent ?? ''),
      null,
      { timeout: 60_000 },
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
    await row.waitFor({ timeout: 60_000 });
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
    await quickPick('Bytes to decode', 'Binary file', 'Binary file…');
    // The simple open dialog: a path in the quick input.
    await quickPick('Binary file to decode', join(workspace, 'message.bin'), 'message.bin');
    await page.locator('.tab', { hasText: /ComponentId \(\d+\)\.decoded/ }).first().waitFor({ timeout: 60_000 });
    const view = () => activeEditor().evaluate((e) => e.textContent.replace(/\u00a0/g, ' '));
    await page.waitForFunction(
      () => /component_type = 1635083896/.test(document.querySelector('.editor-group-container.active .monaco-editor .view-lines')?.textContent?.replace(/\u00a0/g, ' ') ?? ''),
      null,
      { timeout: 60_000 },
    );
    const text = await view();
    for (const want of ['message.bin', 'field = value', 'message header = SDP2 · type id 3', 'version = 65536']) {
      if (!text.includes(want)) throw new Error(`no "${want}" in the view: ${text.slice(0, 400)}`);
    }
    // In a browser the clipboard is not read for a suggestion: the workbench would say it cannot.
    const clipboard = await page.locator('.notification-toast', { hasText: 'clipboard' }).allTextContents();
    if (clipboard.length) throw new Error(`a clipboard toast: ${clipboard[0]}`);
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
  // ---- The binary inspector (webview: code-server nests it in two iframes) ----------------
  const inspector = () => page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  // What `wirelens decode --annotate` says each leaf's bytes are: [{start, end, field, value}]
  // (the CLI and the inspector share one decode walk; these are the expected ranges).
  const annotated = (schemaText, bin) => {
    const schema = join(run, 'annotate.sdp');
    writeFileSync(schema, schemaText);
    const r = spawnSync(serverBin, ['decode', '--schema', schema, '--root', 'PluginRegistry', '--annotate', '--input', join(workspace, bin)], {
      encoding: 'utf8',
    });
    const out = [];
    // A dump cut by an error goes to stderr, the error last.
    for (const line of (r.stdout + r.stderr).split('\n')) {
      const m = /^([0-9a-f]{8})  ((?:[0-9a-f]{2} )*[0-9a-f]{2})\s+(\S+) = (.*)$/.exec(line);
      const more = /^ {10}((?:[0-9a-f]{2} )*[0-9a-f]{2})\s*$/.exec(line);
      if (m) {
        const start = parseInt(m[1], 16);
        out.push({ start, end: start + m[2].split(' ').length, field: m[3], value: m[4] });
      } else if (more && out.length) out.at(-1).end += more[1].split(' ').length;
    }
    return out;
  };
  const audiounitText = readFileSync(join(workspace, 'audiounit.sdp'), 'utf8');
  const offsets = (ranges) => ranges.flatMap((r) => Array.from({ length: r.end - r.start }, (_, i) => r.start + i));
  /** The offsets of the hex bytes that carry `cls` (only the rows in the DOM: the view is virtualised). */
  const bytesWith = (cls) =>
    inspector()
      .locator(`#hex .b.${cls}`)
      .evaluateAll((spans) => spans.map((s) => Number(s.dataset.o)));
  const treeLines = () =>
    inspector()
      .locator('#tree .node')
      .evaluateAll((rows) => rows.map((r) => r.textContent.replace(/\s+/g, ' ').trim()));
  /** Opens the inspector on `bin` with audiounit.sdp, root PluginRegistry; ms to its first paint. */
  const openInspector = async (bin) => {
    await runCommand('View: Close All Editors');
    await openFile('audiounit.sdp');
    await page.locator('.statusbar-item', { hasText: 'wirelens', has: page.locator('.codicon-pass') }).first().waitFor({ timeout: 60_000 });
    await runCommand('wirelens: Inspect binary file');
    await quickPick('Binary file to inspect', join(workspace, bin), bin);
    await quickPick('Root type of the bytes', 'PluginRegistry');
    const t = Date.now();
    await page.locator('.tab', { hasText: `Inspect: ${bin}` }).first().waitFor({ timeout: 60_000 });
    await inspector().locator('#tree .node').first().waitFor({ timeout: 60_000 });
    await inspector().locator('#hex .b.c0').first().waitFor({ timeout: 60_000 });
    return Date.now() - t;
  };
  const statusText = () => inspector().locator('#status').textContent();

  await check('inspector: the 112 KB AudioUnit vector, hex view and decoded tree, scrolled to its end (artifacts/inspector-audiounit.png)', async () => {
    const full = JSON.parse(readFileSync(join(vectors, 'cases', 'audiounit_full.json'), 'utf8')).value;
    const ms = await openInspector('audiounit_full.bin');
    console.log(`     first paint of audiounit_full.bin (112,490 B): ${ms} ms from the root pick`);
    await until('the status line', async () => {
      const s = await statusText();
      return [/PluginRegistry · byte · 112490 B · window 0\.\.65536/.test(s), s];
    });
    // The hex view shows all 16 bytes of a row (its rows are absolutely positioned: it needs a
    // width of its own).
    const fit = await inspector()
      .locator('#hex')
      .evaluate((e) => {
        const box = e.getBoundingClientRect();
        const last = e.querySelector('.b[data-o="15"]')?.getBoundingClientRect();
        return { view: Math.round(e.clientWidth), byte15: last ? Math.round(last.right - box.left) : -1 };
      });
    if (fit.byte15 <= 0 || fit.byte15 > fit.view) throw new Error(`the hex view is ${fit.view} px wide, byte 15 ends at ${fit.byte15} px`);
    // Coloured bytes in the hex view: the count of `plugins` (an auxiliary node) and the first name.
    const aux = await bytesWith('aux');
    if (![0, 1, 2, 3].every((o) => aux.includes(o))) throw new Error(`bytes 0..3 (the plugins count) are not marked: ${aux.slice(0, 8)}`);
    await inspector().locator('#tree .node', { hasText: /^\s*▸ plugins / }).first().click();
    await until('the expanded plugins', async () => {
      const lines = await treeLines();
      const ok = lines.some((l) => l.includes(`(count) = ${full.plugins.length}`)) && lines.some((l) => /^▸ \[0\] Plugin @4\.\./.test(l));
      return [ok, lines.slice(0, 6)];
    });
    await page.screenshot({ path: join(artifacts, 'inspector-audiounit.png') });
    // The end of the file lies beyond the first 64 KiB window: scrolling there asks for it.
    await inspector().locator('#hex').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    await until('the window at the end and its values', async () => {
      const [s, lines, coloured] = [await statusText(), await treeLines(), await bytesWith('b[class*=" c"]')];
      const ok =
        /window \d+\.\.112490/.test(s) &&
        lines.some((l) => l.includes(`total_plugin_count = ${full.total_plugin_count}`)) &&
        lines.some((l) => l.includes(`total_parameter_count = ${full.total_parameter_count}`)) &&
        coloured.includes(112489);
      return [ok, { status: s, tree: lines.slice(-3), lastColoured: Math.max(...coloured) }];
    });
    await page.screenshot({ path: join(artifacts, 'inspector-audiounit-end.png') });
  });

  // The small vector: 1 plugin, 2 parameters, 156 B (every byte in view).
  const small = annotated(audiounitText, 'audiounit_small.bin');
  const ranges = (field) => small.filter((r) => r.field === field);

  await check('inspector: the cursor on a schema field highlights its bytes (artifacts/inspector-small.png)', async () => {
    await openInspector('audiounit_small.bin');
    await focusSchema('audiounit.sdp');
    await goTo('10:5'); // `min_value: f32` of Parameter
    const want = offsets(ranges('min_value'));
    if (want.length !== 8) throw new Error(`the CLI's annotate gave ${JSON.stringify(ranges('min_value'))}`);
    await until('min_value of both parameters highlighted', async () => {
      const hl = await bytesWith('hl');
      return [sameSet(hl, want), { highlighted: hl, want }];
    });
    await page.screenshot({ path: join(artifacts, 'inspector-small.png') });
  });

  await check('inspector: a click on a byte selects its field in the tree and in the schema', async () => {
    const [id] = ranges('identifier').slice(1); // the second parameter's "pan"
    await inspector().locator(`#hex .b[data-o="${id.start + 5}"]`).click();
    await until('the field selected in the tree', async () => {
      const sel = await inspector().locator('#tree .node.sel').allTextContents();
      return [sel.length === 1 && sel[0].includes(`identifier = ${id.value}`), sel];
    });
    const sel = await bytesWith('sel');
    if (!sameSet([...new Set(sel)], offsets([id]))) throw new Error(`selected bytes ${sel} for ${JSON.stringify(id)}`);
    // The schema's cursor is on `identifier: str` (line 8); the status bar shows it once the
    // schema's editor has the focus.
    await runCommand('View: Focus First Editor Group');
    await page.locator('.statusbar-item', { hasText: /Ln 8, Col 5\b/ }).first().waitFor({ timeout: 60_000 });
  });

  await check('inspector: the value inspector reads the selected bytes as u8…f64 and UTF-8', async () => {
    const [, min] = ranges('min_value'); // -100.0 as f32: 00 00 c8 c2
    await inspector().locator(`#hex .b[data-o="${min.start}"]`).click();
    const want = {
      u8: '0', i8: '0', u16: '0', i16: '0', u32: '3267887104', i32: '-1027080192', f32: '-100',
    };
    const rows = await until('the value inspector', async () => {
      const cells = await inspector()
        .locator('#values tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
      const at = Object.fromEntries(cells.filter(([k]) => k.endsWith(` @${min.start}`)).map(([k, v]) => [k.split(' ')[0], v]));
      const ok = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f32', 'f64', 'utf-8'].every((k) => k in at) &&
        Object.entries(want).every(([k, v]) => at[k] === v);
      return [ok, at];
    });
    console.log(`     values at ${min.start}: ${JSON.stringify(rows)}`);
  });

  await check('inspector: a schema edit re-decodes, the field under the cursor stays highlighted (artifacts/inspector-edit.png)', async () => {
    const count = ranges('total_plugin_count');
    await focusSchema('audiounit.sdp');
    await goTo('29:5'); // `total_plugin_count: u32,`
    await until('total_plugin_count highlighted', async () => {
      const [hl, lines] = [await bytesWith('hl'), await inspector().locator('#tree .node.hl').allTextContents()];
      return [sameSet(hl, offsets(count)) && lines.some((l) => l.includes('total_plugin_count = 1')), { hl, lines }];
    });
    // Rename it and widen it to u64 in one edit (the cursor stays inside the field, before the comma).
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.insertText('plugin_total: u64');
    const edited = audiounitText.replace('total_plugin_count: u32', 'plugin_total: u64');
    const want = annotated(edited, 'audiounit_small.bin').filter((r) => r.field === 'plugin_total');
    if (want.length !== 1 || want[0].end - want[0].start !== 8) throw new Error(`the CLI's annotate gave ${JSON.stringify(want)}`);
    await until('the re-decode, with the new field highlighted', async () => {
      const [hl, lines, s] = [await bytesWith('hl'), await inspector().locator('#tree .node.hl').allTextContents(), await statusText()];
      const ok = sameSet(hl, offsets(want)) && lines.some((l) => l.includes(`plugin_total = ${want[0].value}`)) &&
        /✖ at offset 156 \(total_parameter_count\)/.test(s);
      return [ok, { hl, lines, status: s }];
    });
    await page.screenshot({ path: join(artifacts, 'inspector-edit.png') });
    // Back to the file's text, saved (a dirty schema would make Close All Editors ask).
    await page.keyboard.press('Escape');
    await goTo('29:5');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.insertText('total_plugin_count: u32');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+S');
    await until('the schema saved as it was', async () => {
      const text = readFileSync(join(workspace, 'audiounit.sdp'), 'utf8');
      const dirty = await page.locator('.tab.dirty', { hasText: 'audiounit.sdp' }).count();
      return [text === audiounitText && dirty === 0, { dirty, same: text === audiounitText }];
    });
    await until('the schema decoded as before', async () => {
      const lines = await treeLines();
      return [lines.some((l) => l.includes('total_plugin_count = 1')) && !(await statusText()).includes('✖'), lines];
    });
  });

  await check('inspector: a truncated binary shows the error at the failing byte, values before it stay (artifacts/inspector-error.png)', async () => {
    await openInspector('audiounit_cut.bin');
    const s = await until('the error in the status line', async () => {
      const t = await statusText();
      return [t.includes('✖'), t];
    });
    const want = '✖ at offset 138 (plugins[0].parameters[1].current_value): f32 needs 4 byte(s) but only 2 are left at offset 138';
    if (!s.includes(want)) throw new Error(`the status says: ${s}`);
    const err = await bytesWith('err');
    if (!sameSet(err, [138])) throw new Error(`error bytes: ${err}`);
    // Everything decoded before it is there: the tree opens down to the last value read.
    const cut = annotated(audiounitText, 'audiounit_cut.bin');
    await until('the values before the error in the tree', async () => {
      const lines = await treeLines();
      // The plugin's own fields and the second parameter's, up to the error (the first
      // parameter stays folded).
      const second = cut.filter((r) => r.field === 'address')[1].start;
      const wantLines = cut
        .filter((r) => (r.start >= 4 && r.start < 42) || r.start >= second)
        .map((r) => `${r.field} = ${r.value.replace(/\.0$/, '')}`);
      return [wantLines.every((w) => lines.some((l) => l.includes(w))), lines];
    });
    await page.screenshot({ path: join(artifacts, 'inspector-error.png') });
  });
} finally {
  await close();
}

console.log(`\ne2e: ${results.filter((r) => r.startsWith('ok')).length} passed, ${results.filter((r) => !r.startsWith('ok')).length} failed`);
process.exit(results.every((r) => r.startsWith('ok')) ? 0 : 1);
