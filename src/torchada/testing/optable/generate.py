"""Generate a torch_musa release's operator table from its sources.

    python -m torchada.testing.optable.generate --source PATH --ref v2.7.1 \
        [--native-functions PATH] [--release 2.7.1] [-o FILE]

PATH is a torch_musa git directory (bare) or checkout; REF a tag or commit. PATH may
also be a collected tree (a folder of some of the release's files with collected.json
naming their commit and what was not read: _treesource.py); the table then lists those
unread files under not_read. The
operators' structured/unstructured kinds come from torch's native_functions.yaml of the
torch the release is built against (default: the one torchgen ships with the running
torch, so run it with that torch: torch 2.7.1 for torch_musa 2.7.1). The output is the
table as JSON (format documented in torchada/testing/optable/__init__.py).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

from torchada.testing.optable import FORMAT, table_path
from torchada.testing.optable import _cpp_regs, _py_regs, _yaml_ops
from torchada.testing.optable._treesource import open_source

CSRC = "torch_musa/csrc"
# What the build compiles that this generator does not read, so the table cannot speak for it.
NOT_READ = [
    {"what": "PyTorch CUDA sources ported into GENERATED_PORTING_DIR at build time "
             "(torch_musa/csrc/CMakeLists.txt)",
     "why": "not in the repository; their kernels reach PrivateUse1 through "
            "musa_functions.yaml entries, but a TORCH_LIBRARY_IMPL inside one would be "
            "missed (unknown)"},
]
PYROOT = "torch_musa"


def _default_native_functions() -> str:
    import torchgen
    return os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")


def _cpp(src):
    files = [f for f in src.files(CSRC) if f.endswith(_cpp_regs.EXTENSIONS)]
    texts = {f: src.read(f) for f in files}
    rows, fallbacks, macros = [], [], {}
    for path, text in texts.items():
        r, fb, m = _cpp_regs.scan_file(path, text)
        rows += r
        fallbacks += fb
        macros.update(m)
    for path, text in texts.items():
        rows += _cpp_regs.expand_macro_uses(path, text, macros)
    return rows, fallbacks


def _python(src):
    rows = []
    for path in src.files(PYROOT):
        if path.endswith(".py"):
            rows += _py_regs.scan_file(path, src.read(path))
    return rows


def build(source: str, ref: str, native_functions: str, release: str) -> dict:
    src = open_source(source, ref)
    with open(native_functions, "rb") as fh:
        native_bytes = fh.read()
    patch = _yaml_ops.patched_torch_entries(src.read(_yaml_ops.NATIVE_PATCH)) \
        if _yaml_ops.NATIVE_PATCH in src.files("torch_patches") else []
    index = _yaml_ops.torch_index(native_bytes.decode("utf-8"), patch)
    rows = _yaml_ops.rows(src.read(_yaml_ops.YAML_PATH), index)
    cpp_rows, fallbacks = _cpp(src)
    rows += cpp_rows + _python(src)
    for row in rows:  # a collected tree's files read at another ref say so on their rows
        carried = src.carried(row["source"].rsplit(":", 1)[0])
        if carried:
            row["read_at"] = carried
    rows.sort(key=lambda r: (r["op"], r["key"], r["source"]))
    import torch  # the torch whose native_functions.yaml was read (by default)
    return {
        "format": FORMAT,
        "release": release,
        "source": {"repository": "MooreThreads/torch_musa", "ref": ref, "commit": src.commit},
        "torch": {"native_functions_sha256": hashlib.sha256(native_bytes).hexdigest(),
                  "generated_with": torch.__version__.split("+")[0]},
        "generator": "python -m torchada.testing.optable.generate",
        "fallbacks": sorted(fallbacks, key=lambda f: (f["key"], f["source"])),
        "not_read": NOT_READ + src.not_read(),
        "ops": rows,
        "torch_ops": _yaml_ops.universe(index),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m torchada.testing.optable.generate",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", required=True, help="torch_musa git dir or checkout, or a collected tree")
    ap.add_argument("--ref", required=True, help="tag or commit, e.g. v2.7.1")
    ap.add_argument("--release", help="release label (default: the ref without 'v')")
    ap.add_argument("--native-functions", default=None,
                    help="torch's native_functions.yaml (default: torchgen's, of this torch)")
    ap.add_argument("-o", "--output", help="output file (default: the package's table file)")
    args = ap.parse_args(argv)
    release = args.release or args.ref.lstrip("v")
    table = build(args.source, args.ref, args.native_functions or _default_native_functions(),
                  release)
    out = args.output or table_path(release)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(table, fh, indent=1, sort_keys=True)
        fh.write("\n")
    counts = {}
    for row in table["ops"]:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    print("%s: %s" % (out, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
