#!/usr/bin/env python3
"""Reads criterion's estimates for the codec benchmark and prints RATIO lines and a table.

usage: codec-report.py CRITERION_HOME [--table FILE]

Every ratio is ours over a baseline measured in the same run (lower is better; below 1
means faster than the baseline):
  <ds>-encode            rust-encode (append to a reused Vec)   / memcpy (into a reused buffer)
  <ds>-encode-slice      rust-encode-slice (encode_into a reused caller buffer: the
                         upstream-bench kit's "encode (reused buffer)") / memcpy
  <ds>-encode-fresh      rust-encode-fresh (to_bytes)           / memcpy-fresh (to_vec)
  <ds>-decode            rust-decode-view (zero-copy)           / memcpy
  <ds>-decode-owned      rust-decode (owned values)             / memcpy
  <ds>-decode-owned-compact rust-compact-decode (owned, CompactString strings) / memcpy
  <ds>-decode-owned-reuse rust-decode-reuse (owned, every record into one value: decode_prefix_into) / memcpy
  <ds>-decode-owned-reuse-compact rust-compact-decode-reuse (the same, CompactString strings) / memcpy
  <ds>-decode-view-arena rust-arena-decode-view (zero-copy, arrays in a reused arena) / memcpy
  <ds>-clone-owned       rust-clone (a clone of every decoded record: the allocations and
                         copies an owned decode into new String/Vec fields cannot avoid) / memcpy
  <ds>-decode-owned-vs-clone rust-decode / rust-clone (owned decode over that floor)
  <ds>-encode-vs-plain   rust-encode / plain-encode             (field-by-field codec)
  <ds>-decode-vs-plain   rust-decode / plain-decode
  <ds>-encode-vs-bincode rust-encode / bincode-encode           (both into a reused Vec)
  <ds>-decode-vs-bincode rust-decode / bincode-decode           (both owned)
  <ds>-encode-vs-prost   rust-encode / prost-encode
  <ds>-decode-vs-prost   rust-decode / prost-decode

Exits 1 (after printing the rest) when a data set's memcpy baseline is implausible: more
than twice memcpy-fresh, which copies the same bytes and allocates too.
"""
import json
import os
import sys

DATASETS = ["sdp-audiounit", "sdp-arrays", "sdp-arrays-first", "ffi-complex", "ffi-array-int", "ffi-array-struct", "ffi-array-string"]
FUNCS = ["memcpy", "memcpy-fresh", "rust-encode", "rust-encode-fresh", "rust-encode-slice", "rust-decode",
         "rust-decode-view", "rust-arena-decode-view", "rust-compact-decode", "rust-decode-reuse", "rust-compact-decode-reuse", "rust-compact-encode", "rust-clone", "plain-encode", "plain-encode-fresh", "plain-decode", "plain-decode-view",
         "bincode-encode", "bincode-encode-fresh", "bincode-decode", "prost-encode", "prost-encode-fresh",
         "prost-decode"]
RATIOS = [
    ("encode", "rust-encode", "memcpy"),
    ("encode-slice", "rust-encode-slice", "memcpy"),
    ("encode-fresh", "rust-encode-fresh", "memcpy-fresh"),
    ("decode", "rust-decode-view", "memcpy"),
    ("decode-owned", "rust-decode", "memcpy"),
    ("decode-owned-compact", "rust-compact-decode", "memcpy"),
    ("decode-owned-reuse", "rust-decode-reuse", "memcpy"),
    ("decode-owned-reuse-compact", "rust-compact-decode-reuse", "memcpy"),
    ("decode-view-arena", "rust-arena-decode-view", "memcpy"),
    ("clone-owned", "rust-clone", "memcpy"),
    ("decode-owned-vs-clone", "rust-decode", "rust-clone"),
    ("encode-vs-plain", "rust-encode", "plain-encode"),
    ("decode-vs-plain", "rust-decode", "plain-decode"),
    ("encode-vs-bincode", "rust-encode", "bincode-encode"),
    ("decode-vs-bincode", "rust-decode", "bincode-decode"),
    ("encode-vs-prost", "rust-encode", "prost-encode"),
    ("decode-vs-prost", "rust-decode", "prost-decode"),
]


def estimate(home, ds, fn):
    path = os.path.join(home, ds, fn, "new", "estimates.json")
    try:
        with open(path) as f:
            e = json.load(f)
    except OSError:
        return None
    return e["median"]["point_estimate"], e["median_abs_dev"]["point_estimate"]


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def main():
    home = sys.argv[1]
    table = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else None
    rows = []
    failed = []
    for ds in DATASETS:
        est = {fn: estimate(home, ds, fn) for fn in FUNCS}
        # Copying into a reused buffer can never be slower than allocating and copying;
        # when it is (seen on ffi-array-int before the bench placed its buffers: 6.6 µs
        # against 0.39 µs for 20 KB, `rep movsb` with the destination just after the
        # source modulo 4 KiB), every ratio over `memcpy` in this data set would be off:
        # they are left out and the report fails.
        bad = est["memcpy"] and est["memcpy-fresh"] and est["memcpy"][0] > 2 * est["memcpy-fresh"][0]
        if bad:
            failed.append(ds)
            print(
                f"ERROR {ds}: memcpy into a reused buffer took {fmt(est['memcpy'][0])}, "
                f"{est['memcpy'][0] / est['memcpy-fresh'][0]:.1f}x memcpy-fresh: an implausible "
                "baseline; its ratios over memcpy are left out",
                file=sys.stderr,
            )
        for name, num, den in RATIOS:
            if bad and den == "memcpy":
                continue
            if est[num] and est[den]:
                print(f"RATIO {ds}-{name} {est[num][0] / est[den][0]:.2f} {num}/{den}")
        rows.append((ds, est))
    if table:
        with open(table, "w") as f:
            f.write("| data set | " + " | ".join(FUNCS) + " |\n")
            f.write("|---|" + "---:|" * len(FUNCS) + "\n")
            for ds, est in rows:
                cells = [f"{fmt(e[0])} ± {fmt(e[1])}" if e else "–" for e in (est[fn] for fn in FUNCS)]
                f.write(f"| {ds} | " + " | ".join(cells) + " |\n")
    if failed:
        sys.exit(f"codec-report: implausible memcpy baseline in {', '.join(failed)}")


if __name__ == "__main__":
    main()
