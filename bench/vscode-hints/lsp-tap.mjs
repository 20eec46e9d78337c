// Runs a language server between the client and itself and logs every message as a JSON
// line {t (Date.now()), dir (">" client → server, "<" server → client), method, id, bytes}: what
// VS Code asks, when, and how big the answers are. Usage: node lsp-tap.mjs LOG SERVER [ARGS…]
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const [log, server, ...args] = process.argv.slice(2);
const out = createWriteStream(log, { flags: 'a' });
const child = spawn(server, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const methods = new Map(); // request id → method (client's requests)

function tap(dir) {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /content-length:\s*(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
      const len = m ? Number(m[1]) : 0;
      if (buf.length < end + 4 + len) return;
      const body = buf.subarray(end + 4, end + 4 + len);
      buf = buf.subarray(end + 4 + len);
      let msg = {};
      try {
        msg = JSON.parse(body.toString('utf8'));
      } catch {}
      let method = msg.method;
      if (method && msg.id !== undefined) methods.set(`${dir}${msg.id}`, method);
      if (!method && msg.id !== undefined) method = `${methods.get(`${dir === '>' ? '<' : '>'}${msg.id}`) ?? '?'} (answer)`;
      out.write(`${JSON.stringify({ t: Date.now(), dir, method, id: msg.id, bytes: len })}\n`);
    }
  };
}
process.stdin.on('data', tap('>'));
child.stdout.on('data', tap('<'));
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => {
  out.end(() => process.exit(code ?? 0));
});
