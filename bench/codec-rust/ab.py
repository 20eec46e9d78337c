#!/usr/bin/env python3
"""A/B of two builds of the codec benchmark on a busy machine (docs/benchmarks/history.md,
"#14 Rust, 2026-11-24"): runs the two bench binaries alternately ROUNDS times each
(criterion quick mode), keeps the minimum median per cell (what contention inflates least),
and prints new/base per cell and each binary's ratios over its own memcpy.

usage: bench/codec-rust/ab.py ROUNDS FILTER BASE_BIN NEW_BIN
(build each side with `cargo bench --locked -p wirelens-bench-codec --bench codec --no-run`
and copy `target/release/deps/codec-*` away: both builds use the same file name)"""
import re, subprocess, sys, os
rounds, filt, base, new = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
units = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
best = {}
for r in range(rounds):
    for tag, exe in (("base", base), ("new", new)):
        env = dict(os.environ, WIRELENS_BENCH_QUICK="1", CRITERION_HOME=os.path.join(os.environ.get("TMPDIR", "/tmp"), f"wirelens-ab-{tag}"))
        out = subprocess.run([exe, "--bench", filt], capture_output=True, text=True, env=env,
                             cwd=os.path.dirname(os.path.abspath(__file__))).stdout
        name = None
        for line in out.splitlines():
            m = re.match(r"^(\S+/\S+)", line)
            if m and not line.startswith(" "):
                name = m.group(1)
            t = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
            if t and name:
                v = float(t.group(1)) * units[t.group(2)]
                k = (tag, name)
                best[k] = min(best.get(k, 1e9), v)
names = sorted({n for _, n in best})
for n in names:
    b, w = best.get(("base", n)), best.get(("new", n))
    if b and w:
        print(f"{n:45s} base {b*1e6:10.3f} µs  new {w*1e6:10.3f} µs  new/base {w/b:.3f}")
groups = sorted({n.split("/")[0] for n in names})
for g in groups:
    for tag in ("base", "new"):
        mc = best.get((tag, f"{g}/memcpy"))
        if not mc: continue
        cells = [f"{n.split('/')[1]}={best[(tag, n)]/mc:.2f}" for n in names if n.startswith(g + "/") and (tag, n) in best and not n.endswith("/memcpy")]
        print(f"{g} {tag} ratio/memcpy: " + " ".join(cells))
