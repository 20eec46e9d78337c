#!/usr/bin/env python3
"""Times `wirelens/inspect` on the 112 KB AudioUnit vector (python3 stdlib only).

Spawns the release server (`target/release/wirelens lsp`, or $WIRELENS_BIN), opens the
AudioUnit schema, and times the request the editors send first (a 64 KiB window, the
default 20,000-node cap), then the whole file (100,000 nodes), then a window in the
middle. Target: the first window in <= 300 ms.

    cargo build --release -p wirelens && python3 bench/inspect_first_paint.py [--runs N]
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("WIRELENS_BIN") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "wirelens")
SCHEMA = os.path.join(ROOT, "tests/vectors/sdp/schemas/audiounit.sdp")
VECTOR = os.path.join(ROOT, "tests/vectors/sdp/cases/audiounit_full.bin")
URI = "file://" + SCHEMA


class Server:
    def __init__(self):
        self.p = subprocess.Popen([BIN, "lsp", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = 0
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("the server exited")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i and "method" not in m:
                if "error" in m:
                    raise RuntimeError(m["error"])
                return m["result"]
            if "id" in m and "method" in m:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        self.p.kill()
        self.p.wait()


def count(n):
    return 1 + sum(count(c) for c in n.get("children", [])) if n else 0


def main():
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 10
    s = Server()
    s.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    s.notify("initialized", {})
    with open(SCHEMA) as f:
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "sdp", "version": 1, "text": f.read()}})
    cases = [
        ("first window (0, 64 KiB)", {"start": 0, "length": 65536}),
        ("whole file (100,000 nodes)", {"maxNodes": 100000}),
        ("window at 56 KiB", {"start": 57344, "length": 65536}),
    ]
    first = None
    for name, extra in cases:
        params = {"uri": URI, "root": "PluginRegistry", "path": VECTOR, **extra}
        times, nodes, size = [], 0, 0
        for _ in range(runs):
            t = time.perf_counter()
            r = s.request("wirelens/inspect", params)
            times.append((time.perf_counter() - t) * 1000)
            nodes, size = count(r["tree"]), len(json.dumps(r))
            assert "error" not in r, r.get("error")
        if first is None:
            first = times[0]
        print(f"{name:28} first {times[0]:7.1f} ms  median {statistics.median(times):7.1f} ms  "
              f"{nodes:6} nodes  {size / 1024:7.0f} KiB JSON")
    s.close()
    print(f"first paint (first request after open): {first:.1f} ms (target <= 300 ms)")
    return 0 if first <= 300 else 1


if __name__ == "__main__":
    sys.exit(main())
