// The transport case that ended the server, driven through the real vscode-jsonrpc (what
// vscode-languageclient speaks): while an edit splits an emoji, JSON.stringify sends a
// lone UTF-16 surrogate as `\ud83d`. The server must replace it and keep answering.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';

const repo = path.resolve(__dirname, '..', '..', '..');
const binary = ['debug', 'release'].map((p) => path.join(repo, 'target', p, 'wirelens')).find((p) => fs.existsSync(p));

test('a lone surrogate from vscode-jsonrpc does not end the server', { skip: binary ? false : 'no target/*/wirelens', timeout: 30_000 }, async () => {
  const proc = spawn(binary!, ['lsp', '--stdio']);
  let exited: number | null = null;
  proc.on('exit', (code) => {
    exited = code;
  });
  const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onRequest(() => null); // server → client requests (progress, refreshes)
  conn.listen();
  try {
    await conn.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await conn.sendNotification('initialized', {});
    const uri = 'file:///tmp/wirelens-jsonrpc-test/a.sdp';
    const text = 'struct A {\n    x: u8,\n}\n// 😀\n';
    await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'sdp', version: 1, text } });
    // Delete the second half of 😀: the replacement text of the first half alone.
    const half = '😀'.slice(0, 1);
    assert.equal(JSON.stringify(half), '"\\ud83d"', 'what JSON.stringify sends');
    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 3, character: 3 }, end: { line: 3, character: 5 } }, text: half }],
    });
    const hover = await conn.sendRequest<{ contents: { value: string } } | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line: 0, character: 8 },
    });
    assert.ok(hover?.contents.value.includes('struct A'), JSON.stringify(hover));
    assert.equal(exited, null, 'the server is still running');
  } finally {
    conn.dispose();
    proc.kill();
  }
});
