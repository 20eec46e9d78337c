import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, explicitOnly, generateArguments, readSettings, readUserSettings, serverOffers, toServerOptions } from '../src/settings';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

test('defaults: nothing reaches the server, so wirelens.toml decides', () => {
  assert.deepEqual(readSettings(from({})), DEFAULTS);
  assert.deepEqual(toServerOptions(readUserSettings(from({}))), {});
});

test('only values the user set reach the server: package.json defaults do not', () => {
  // As `WorkspaceConfiguration.inspect` answers: defaults only in `defaultValue`.
  const inspected: Record<string, Record<string, unknown>> = {
    'generate.onSave': { defaultValue: false },
    'generate.languages': { defaultValue: ['rust'] },
    'ffi.order': { defaultValue: 'default', workspaceValue: 'declaration' },
    'generate.outDir': { defaultValue: '', globalValue: 'user', workspaceFolderValue: 'folder' },
  };
  const user = readUserSettings(explicitOnly((k) => inspected[k]));
  assert.deepEqual(toServerOptions(user), { ffi: { order: 'declaration' }, generate: { outDir: 'folder' } });
  assert.deepEqual(generateArguments('file:///a.sdp', user), [{ uri: 'file:///a.sdp', outDir: 'folder' }]);
  inspected['generate.onSave'] = { defaultValue: false, globalValue: false };
  assert.deepEqual(toServerOptions(readUserSettings(explicitOnly((k) => inspected[k]))).generate, {
    onSave: false,
    outDir: 'folder',
  });
});

test('every setting reaches the server in the shape it reads ({ ffi: { order } })', () => {
  const s = readUserSettings(
    from({
      'ffi.order': 'declaration',
      'generate.onSave': true,
      'generate.languages': ['c', 'cpp', 'c', 'cobol'],
      'generate.outDir': ' gen ',
      'inlayHints.enabled': false,
      numberFormat: 'hex',
    }),
  );
  assert.deepEqual(toServerOptions(s), {
    ffi: { order: 'declaration' },
    generate: { onSave: true, languages: ['c', 'cpp'], outDir: 'gen' },
    inlayHints: { enabled: false },
    numberFormat: 'hex',
  });
  assert.equal(readUserSettings(from({ numberFormat: 'octal' })).numberFormat, undefined);
});

test('invalid values fall back to the defaults', () => {
  const s = readSettings(
    from({ 'ffi.order': 'sorted', 'generate.onSave': 'yes', 'generate.languages': 'rust', 'inlayHints.enabled': 1 }),
  );
  assert.deepEqual(s, DEFAULTS);
  assert.deepEqual(
    readUserSettings(from({ 'ffi.order': 'sorted', 'generate.onSave': 'yes', 'generate.languages': 'rust', 'inlayHints.enabled': 1 })),
    {},
  );
  assert.equal(toServerOptions(readUserSettings(from({ 'ffi.order': 'canonical' }))).ffi?.order, 'canonical');
});

test('the result is JSON (initializationOptions travel as JSON)', () => {
  const o = toServerOptions(readUserSettings(from({ 'ffi.order': 'canonical', 'generate.outDir': 'out' })));
  assert.deepEqual(JSON.parse(JSON.stringify(o)), o);
});

test('generate arguments match the Neovim plugin: [{ uri, languages, outDir? }]', () => {
  const s = readUserSettings(from({ 'generate.languages': ['c', 'rust'] }));
  assert.deepEqual(generateArguments('file:///a.sdp', s), [{ uri: 'file:///a.sdp', languages: ['c', 'rust'] }]);
  const t = readUserSettings(from({ 'generate.languages': [], 'generate.outDir': 'gen' }));
  assert.deepEqual(generateArguments('file:///a.sdp', t), [{ uri: 'file:///a.sdp', outDir: 'gen' }]);
});

test('generation only when the server advertises the command', () => {
  assert.equal(serverOffers(undefined, 'wirelens.generate'), false);
  assert.equal(serverOffers({}, 'wirelens.generate'), false);
  assert.equal(serverOffers({ executeCommandProvider: { commands: ['other'] } }, 'wirelens.generate'), false);
  assert.equal(serverOffers({ executeCommandProvider: { commands: ['wirelens.generate'] } }, 'wirelens.generate'), true);
});
