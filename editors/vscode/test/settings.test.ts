import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, generateArguments, readSettings, serverOffers, toServerOptions } from '../src/settings';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

test('defaults: no ffi.order (wirelens.toml decides), rust, hints on', () => {
  const s = readSettings(from({}));
  assert.deepEqual(s, DEFAULTS);
  assert.deepEqual(toServerOptions(s), {
    generate: { onSave: false, languages: ['rust'] },
    inlayHints: { enabled: true },
  });
});

test('every setting reaches the server in the shape it reads ({ ffi: { order } })', () => {
  const s = readSettings(
    from({
      'ffi.order': 'declaration',
      'generate.onSave': true,
      'generate.languages': ['c', 'cpp', 'c', 'cobol'],
      'generate.outDir': ' gen ',
      'inlayHints.enabled': false,
    }),
  );
  assert.deepEqual(toServerOptions(s), {
    ffi: { order: 'declaration' },
    generate: { onSave: true, languages: ['c', 'cpp'], outDir: 'gen' },
    inlayHints: { enabled: false },
  });
});

test('invalid values fall back to the defaults', () => {
  const s = readSettings(
    from({ 'ffi.order': 'sorted', 'generate.onSave': 'yes', 'generate.languages': 'rust', 'inlayHints.enabled': 1 }),
  );
  assert.deepEqual(s, DEFAULTS);
  assert.equal(toServerOptions(readSettings(from({ 'ffi.order': 'canonical' }))).ffi?.order, 'canonical');
});

test('the result is JSON (initializationOptions travel as JSON)', () => {
  const o = toServerOptions(readSettings(from({ 'ffi.order': 'canonical', 'generate.outDir': 'out' })));
  assert.deepEqual(JSON.parse(JSON.stringify(o)), o);
});

test('generate arguments match the Neovim plugin: [{ uri, languages, outDir? }]', () => {
  const s = readSettings(from({ 'generate.languages': ['c', 'rust'] }));
  assert.deepEqual(generateArguments('file:///a.sdp', s), [{ uri: 'file:///a.sdp', languages: ['c', 'rust'] }]);
  const t = readSettings(from({ 'generate.languages': [], 'generate.outDir': 'gen' }));
  assert.deepEqual(generateArguments('file:///a.sdp', t), [{ uri: 'file:///a.sdp', outDir: 'gen' }]);
});

test('generation only when the server advertises the command', () => {
  assert.equal(serverOffers(undefined, 'wirelens.generate'), false);
  assert.equal(serverOffers({}, 'wirelens.generate'), false);
  assert.equal(serverOffers({ executeCommandProvider: { commands: ['other'] } }, 'wirelens.generate'), false);
  assert.equal(serverOffers({ executeCommandProvider: { commands: ['wirelens.generate'] } }, 'wirelens.generate'), true);
});
