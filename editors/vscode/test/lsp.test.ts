// The settings as the extension sends them, against the real `wirelens lsp`: the ffire
// order from initializationOptions, then from workspace/didChangeConfiguration carrying the
// whole `wirelens` section (what vscode-languageclient's configuration sync sends).
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { readUserSettings, toServerOptions } from '../src/settings';

const repo = path.resolve(__dirname, '..', '..', '..');
const binary = ['debug', 'release'].map((p) => path.join(repo, 'target', p, 'wirelens')).find((p) => fs.existsSync(p));

class Lsp {
  private buf = Buffer.alloc(0);
  private id = 0;
  private pending = new Map<number, (v: unknown) => void>();
  constructor(private proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (;;) {
        const sep = this.buf.indexOf('\r\n\r\n');
        if (sep < 0) return;
        const len = Number(/Content-Length: (\d+)/i.exec(this.buf.subarray(0, sep).toString())?.[1]);
        if (this.buf.length < sep + 4 + len) return;
        const msg = JSON.parse(this.buf.subarray(sep + 4, sep + 4 + len).toString());
        this.buf = this.buf.subarray(sep + 4 + len);
        if (msg.id !== undefined && msg.method === undefined) this.pending.get(msg.id)?.(msg.result);
        else if (msg.id !== undefined) this.send({ jsonrpc: '2.0', id: msg.id, result: null }); // server → client requests
      }
    });
  }
  send(m: object): void {
    const body = Buffer.from(JSON.stringify(m));
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }
  request<T>(method: string, params: unknown): Promise<T> {
    const id = ++this.id;
    return new Promise((resolve) => {
      this.pending.set(id, resolve as (v: unknown) => void);
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }
  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }
}

test('ffi.order reaches the server at start and on change', { skip: binary ? false : 'no target/*/wirelens', timeout: 30_000 }, async () => {
  const proc = spawn(binary!, ['lsp'], { cwd: repo });
  const lsp = new Lsp(proc);
  try {
    const file = path.join(repo, 'examples', 'telemetry', 'telemetry.ffi');
    const uri = pathToFileURL(file).href;
    const text = fs.readFileSync(file, 'utf8');
    const declaration = toServerOptions(readUserSettings((k) => ({ 'ffi.order': 'declaration' })[k]));
    const init = await lsp.request<{
      capabilities: { inlayHintProvider?: unknown; executeCommandProvider?: { commands: string[] } };
    }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      initializationOptions: declaration,
    });
    assert.ok(init.capabilities.inlayHintProvider);
    // vscode-languageclient registers every server command; registering one of them in the
    // extension too makes the client fail to start ("command … already exists").
    const ours = [...fs.readFileSync(path.join(__dirname, '..', 'src', 'extension.ts'), 'utf8').matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
    for (const command of init.capabilities.executeCommandProvider?.commands ?? []) {
      assert.ok(!ours.includes(command), `${command} is both a server command and registered by the extension`);
    }
    lsp.notify('initialized', {});
    lsp.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'ffi', version: 1, text } });
    const hints = async () =>
      (
        await lsp.request<{ label: string | { value: string }[] }[]>('textDocument/inlayHint', {
          textDocument: { uri },
          range: { start: { line: 0, character: 0 }, end: { line: 10_000, character: 0 } },
        })
      )
        .map((h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('')))
        .join('\n');
    const first = await hints();
    assert.match(first, /@0 · 8 B/);
    assert.doesNotMatch(first, /wire #/, 'declaration order: every field stays in place');
    // The user resets ffi.order: the extension sends only what is still set (nothing),
    // so wirelens.toml decides, else canonical.
    lsp.notify('workspace/didChangeConfiguration', {
      settings: { wirelens: toServerOptions(readUserSettings(() => undefined)) },
    });
    let second = '';
    for (let i = 0; i < 50 && !/wire #/.test(second); i++) {
      second = await hints();
      if (!/wire #/.test(second)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(second, /wire #/, 'canonical order moves fields');
    await lsp.request('shutdown', null);
    lsp.notify('exit', null);
  } finally {
    proc.kill();
  }
});
