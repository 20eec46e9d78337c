import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeGeneration, progressOutcome, shortRequestError } from '../src/generation';

test('success reads as a status line, with counts and plurals right', () => {
  assert.equal(
    describeGeneration('a.sdp', { written: ['a.h', 'a.c'], unchanged: ['wirelens.h'] }),
    'wirelens: generated a.sdp: 2 files written, 1 unchanged',
  );
  assert.equal(describeGeneration('a.sdp', { written: ['a.rs'], unchanged: [] }), 'wirelens: generated a.sdp: 1 file written');
  assert.equal(describeGeneration('a.sdp', null), 'wirelens: generated a.sdp: 0 files written');
});

test('a failed request is one short line without the JSON-RPC wrapping', () => {
  const e = Object.assign(new Error('Request workspace/executeCommand failed with message: a.sdp has 2 error(s); fix them first\nmore'), {
    code: -32603,
  });
  assert.equal(shortRequestError(e), 'a.sdp has 2 error(s); fix them first');
  assert.equal(shortRequestError({ code: -32603, message: 'boom' }), 'boom');
  assert.ok(!shortRequestError(e).includes('-32603'));
  assert.equal(shortRequestError(new Error('y'.repeat(400))).length, 200);
});

test('the end of a generation progress: written or failed', () => {
  assert.deepEqual(progressOutcome('3 file(s) written'), { ok: true, text: '3 file(s) written' });
  assert.deepEqual(progressOutcome('failed: a.sdp has 1 error(s)'), { ok: false, text: 'a.sdp has 1 error(s)' });
});
