// package.json contributes both languages, grammars, settings and commands consistently.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '..');
const read = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');
const pkg = JSON.parse(read('package.json'));
const c = pkg.contributes;

test('both languages, each with its extension and a language configuration', () => {
  const langs = Object.fromEntries(c.languages.map((l: { id: string }) => [l.id, l]));
  assert.deepEqual(Object.keys(langs).sort(), ['ffi', 'sdp']);
  for (const id of ['sdp', 'ffi']) {
    assert.deepEqual(langs[id].extensions, [`.${id}`]);
    const conf = JSON.parse(read(langs[id].configuration));
    assert.equal(conf.comments.lineComment, '//');
    assert.ok(conf.brackets.length >= 2);
    assert.ok(conf.autoClosingPairs.length >= 2);
    new RegExp(conf.indentationRules.increaseIndentPattern);
    new RegExp(conf.indentationRules.decreaseIndentPattern);
  }
  assert.deepEqual(JSON.parse(read(langs.ffi.configuration)).comments.blockComment, ['/*', '*/']);
  assert.equal(JSON.parse(read(langs.sdp.configuration)).comments.blockComment, undefined);
});

test('each language has a TextMate grammar: valid JSON with the right scopeName', () => {
  assert.equal(c.grammars.length, 2);
  for (const g of c.grammars) {
    assert.equal(g.scopeName, `source.${g.language}`);
    assert.equal(g.path, `./syntaxes/${g.language}.tmLanguage.json`);
    const grammar = JSON.parse(read(g.path));
    assert.equal(grammar.scopeName, g.scopeName);
    assert.ok(Array.isArray(grammar.patterns) && grammar.patterns.length > 0);
    // every #include names a repository entry
    const text = read(g.path);
    for (const m of text.matchAll(/"include": "#([^"]+)"/g)) assert.ok(grammar.repository[m[1]!], `${g.path}: #${m[1]}`);
  }
});

test('settings: exactly the documented ones, with defaults', () => {
  const props = c.configuration.properties;
  assert.deepEqual(Object.keys(props).sort(), [
    'wirelens.ffi.order',
    'wirelens.generate.languages',
    'wirelens.generate.onSave',
    'wirelens.generate.outDir',
    'wirelens.inlayHints.enabled',
    'wirelens.numberFormat',
    'wirelens.server.path',
    'wirelens.trace.server',
  ]);
  for (const [key, p] of Object.entries<{ default?: unknown }>(props)) assert.ok('default' in p, key);
  assert.deepEqual(props['wirelens.ffi.order'].enum, ['default', 'canonical', 'declaration']);
  assert.deepEqual(props['wirelens.trace.server'].enum, ['off', 'messages', 'verbose']);
  assert.deepEqual(props['wirelens.numberFormat'].enum, ['decimal', 'hex']);
  // The documented default is what the server does with nothing set: all three languages.
  assert.deepEqual(props['wirelens.generate.languages'].default, ['c', 'cpp', 'rust']);
  // the settings module reads every server-facing key
  const settingsSrc = read('src/settings.ts');
  for (const key of Object.keys(props)) {
    if (key === 'wirelens.server.path' || key === 'wirelens.trace.server') continue;
    assert.ok(settingsSrc.includes(`'${key.slice('wirelens.'.length)}'`), key);
  }
  // the client id is "wirelens", so vscode-languageclient honours wirelens.trace.server
  assert.match(read('src/extension.ts'), /new LanguageClient\('wirelens'/);
});

test('commands: every contributed command is registered, and the other way round', () => {
  const contributed = c.commands.map((x: { command: string }) => x.command).sort();
  assert.deepEqual(contributed, ['wirelens.decode', 'wirelens.generateFile', 'wirelens.inspect', 'wirelens.restart', 'wirelens.showLayout']);
  const src = read('src/extension.ts');
  const registered = [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
  // wirelens.showLayout is the server's command (vscode-languageclient registers it; a second
  // registration makes the client fail to start): the extension handles it in middleware.
  assert.ok(!registered.includes('wirelens.showLayout'));
  assert.match(src, /const SHOW_LAYOUT = 'wirelens\.showLayout'/);
  assert.match(src, /executeCommand: \(command, args, next\) => \{\s*if \(command === SHOW_LAYOUT\) return showLayout\(/);
  assert.match(src, /if \(command === GENERATE_COMMAND\) return runGenerate\(/);
  assert.deepEqual([...registered, 'wirelens.showLayout'].sort(), contributed);
  for (const x of c.commands) assert.equal(x.category, 'wirelens');
  // not "wirelens.generate": vscode-languageclient registers server commands under their own name
  assert.ok(!contributed.includes('wirelens.generate'));
  for (const m of c.menus.commandPalette) assert.ok(contributed.includes(m.command));
  // Decoding hex selected in any editor (not only in a schema).
  const decodeWhen = c.menus.commandPalette.find((m: { command: string }) => m.command === 'wirelens.decode')?.when ?? '';
  assert.match(decodeWhen, /\|\| editorHasSelection$/);
});

test('engine, entry point, pinned dependencies', () => {
  assert.equal(pkg.engines.vscode, '^1.91.0');
  assert.equal(pkg.main, './dist/extension.js');
  assert.match(pkg.dependencies['vscode-languageclient'], /^11\.\d+\.\d+$/);
  for (const [name, v] of Object.entries<string>({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(v, /^\d+\.\d+\.\d+$/, `${name} is not pinned exactly`);
  }
  assert.equal(pkg.devDependencies['@types/vscode'], '1.91.0');
  for (const e of pkg.activationEvents) assert.match(e, /^workspaceContains:\*\*\/\*\.(sdp|ffi)$/);
});

test('.vscodeignore is an allowlist: the bundle, the server, grammars and configurations', () => {
  const lines = read('.vscodeignore')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '**');
  const kept = lines.slice(1);
  for (const p of ['!package.json', '!dist/extension.js', '!server/wirelens', '!syntaxes/*.tmLanguage.json', '!language-configuration/*.json'])
    assert.ok(kept.includes(p), p);
  assert.ok(kept.includes(`!${pkg.main.replace(/^\.\//, '')}`));
});

/** What VS Code appends on Enter: the first `onEnterRules` entry whose `beforeText`,
 * `afterText` and `previousLineText` (those it has) all match, as VS Code picks it. */
function onEnter(conf: { onEnterRules?: Array<Record<string, any>> }, before: string, after: string, previous: string): string | undefined {
  const rule = (conf.onEnterRules ?? []).find(
    (r) =>
      new RegExp(r.beforeText).test(before) &&
      (r.afterText === undefined || new RegExp(r.afterText).test(after)) &&
      (r.previousLineText === undefined || new RegExp(r.previousLineText).test(previous)),
  );
  return rule?.action.appendText;
}

test('`///` continues a doc comment being written, not onto the declaration after it', () => {
  const conf = JSON.parse(read('language-configuration/sdp.json'));
  // Enter after a one-line doc comment: the next line is for `struct …`, not `/// struct …`.
  assert.equal(onEnter(conf, '/// A point.', '', 'struct Line {'), undefined);
  assert.equal(onEnter(conf, '    /// The x coordinate.', '', '    a: u8,'), undefined);
  // Inside a doc comment of several lines, or splitting one: continued.
  assert.equal(onEnter(conf, '/// second line', '', '/// first line'), '/// ');
  assert.equal(onEnter(conf, '/// A po', 'int.', ''), '/// ');
  // Enter on an empty `///` line ends the comment.
  assert.equal(onEnter(conf, '/// ', '', '/// first line'), undefined);
  // Plain code is never commented.
  assert.equal(onEnter(conf, 'struct Point {', '', '/// A point.'), undefined);
});
