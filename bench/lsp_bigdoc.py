# Per-keystroke cost of `wirelens lsp` against document size, over stdio (BENCHMARKS.md,
# "Big documents"). Usage: python3 bench/lsp_bigdoc.py BINARY MIB
import json, subprocess, sys, time
binary, mib = sys.argv[1], float(sys.argv[2])
def schema(nbytes):
    out, n, i = [], 0, 0
    while n < nbytes:
        s = ("struct S%d {\n    a: u32,\n    c: u16,\n    p: S0,\n    b: str\n}\n" % i) if i else "struct S0 {\n    a: u32,\n    c: u16,\n    b: str\n}\n"
        out.append(s); n += len(s); i += 1
    return "".join(out)
p = subprocess.Popen([binary, "lsp", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(m):
    b = json.dumps(m).encode(); p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
def recv():
    n = 0
    while True:
        l = p.stdout.readline().strip()
        if not l: break
        if l.startswith(b"Content-Length:"): n = int(l.split()[1])
    return json.loads(p.stdout.read(n))
nid = [0]
def req(method, params):
    nid[0] += 1; send({"jsonrpc": "2.0", "id": nid[0], "method": method, "params": params})
    while True:
        m = recv()
        if m.get("id") == nid[0] and "method" not in m: return m
def notify(method, params): send({"jsonrpc": "2.0", "method": method, "params": params})
def diags(version):
    while True:
        m = recv()
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version: return m
req("initialize", {"processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {"diagnostics": {"delayMs": 0}}})
notify("initialized", {})
text = schema(int(mib * 1024 * 1024)); uri = "file:///tmp/wirelens-bigdoc/big.sdp"
t = time.time()
notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sdp", "version": 1, "text": text}})
diags(1); t_open = time.time() - t
best = 1e9
for v in range(2, 7):
    t = time.time()
    notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 5}}, "text": "ab"[v % 2]}]})
    m_last = diags(v); best = min(best, time.time() - t)
def timed(m, params):
    b = 1e9
    for _ in range(3):
        t = time.time(); req(m, params); b = min(b, time.time() - t)
    return b
st = timed("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
ih = timed("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 60, "character": 0}}})
cl = timed("textDocument/codeLens", {"textDocument": {"uri": uri}})
hwm = [l for l in open("/proc/%d/status" % p.pid) if l.startswith("VmHWM")][0].split()[1]
print("%5.1f MiB  open→diag %.3fs  edit→diag %.3fs  semTokens %.3fs  inlay(60 lines) %.3fs  lenses %.3fs  VmHWM %d MiB  (%d diagnostics)" % (mib, t_open, best, st, ih, cl, int(hwm)//1024, len(m_last["params"]["diagnostics"])))
p.kill()
