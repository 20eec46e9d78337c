"""Generates the inputs of the C and C++ harnesses: every golden schema (ffire in both
field orders) copied under a unique module name, its C and C++ code from `wirelens gen`,
`all.h` / `all.hpp` including them, and `targets.inc` / `targets_cpp.inc` listing the
decoders in the order of the Rust target `rust_decode` (see fuzz/build.rs).

usage: gen.py WIRELENS VECTORS_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

wirelens, vectors, work = sys.argv[1:4]
schemas_dir = os.path.join(work, "schemas")
gen_dir = os.path.join(work, "gen")
for d in (schemas_dir, gen_dir):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)

modules = []  # (module, path, order)
for dialect in ("sdp", "ffi"):
    folder = os.path.join(vectors, dialect, "schemas")
    for name in sorted(os.listdir(folder)):
        stem, ext = os.path.splitext(name)
        stem = "".join(c if c.isalnum() else "_" for c in stem.lower())
        orders = [(None, "")] if dialect == "sdp" else [("canonical", "_canon"), ("declaration", "_decla")]
        for order, suffix in orders:
            module = f"{dialect}_{stem}{suffix}"
            copy = os.path.join(schemas_dir, module + ext)
            shutil.copyfile(os.path.join(folder, name), copy)
            modules.append((module, copy, order, dialect))

c_lines, cpp_lines, headers, hpps = [], [], [], []
for module, path, order, dialect in modules:
    flags = ["--order", order] if order else []
    subprocess.run([wirelens, "gen", path, "--lang", "c,cpp", "--out", gen_dir, *flags], check=True, stdout=subprocess.DEVNULL)
    layout = json.loads(subprocess.run([wirelens, "layout", "--format", "json", path, *flags], check=True, capture_output=True).stdout)
    headers.append(f'#include "{module}.h"')
    hpps.append(f'#include "{module}.hpp"')
    for t in layout["types"]:
        if t["kind"] != "struct" and not t.get("root"):
            continue
        c_name = t["name"] + ("Message" if t.get("root") else "")
        cpp_name = "".join(p[:1].upper() + p[1:] for p in t["name"].split("_") if p) + ("Message" if t.get("root") else "")
        c_lines.append(f"BYTE({module}, {c_name})")
        cpp_lines.append(f"BYTE({module}, {cpp_name})")
        if dialect == "sdp":
            c_lines.append(f"MESSAGE({module}, {c_name})")
            cpp_lines.append(f"MESSAGE({module}, {cpp_name})")

def write(name, lines):
    with open(os.path.join(gen_dir, name), "w") as f:
        f.write("\n".join(lines) + "\n")

write("all.h", headers)
write("all.hpp", hpps)
write("targets.inc", c_lines)
write("targets_cpp.inc", cpp_lines)
print(f"{len(modules)} modules, {len(c_lines)} decoders")
