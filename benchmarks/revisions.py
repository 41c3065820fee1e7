"""Start-up hook cost (off MUSA) and activation cost (simulated MUSA) of two revisions, paired.

Checks both revisions out as git worktrees and alternates their runs (A B A B ...):
  hook       : in a ``python -S`` child, ``site.addsitedir`` of a directory holding only the
               revision's torchada_autoload.pth, minus the same call on an empty directory
               in the same child (the reference), in microseconds. No MUSA hint is present:
               this is the cost every non-MUSA interpreter pays.
  activation : in a child with TORCHADA_SIMULATE_MUSA=1 that imports torch, the time spent
               in the registry (area imports, gates, apply steps) minus the torch_musa
               import it triggers, in ms; every area must have applied.
Medians per revision and the after/before ratio are printed and appended to history.jsonl.

Rerun:  .venv/bin/python benchmarks/revisions.py --before fb3f444 [--after HEAD] [--runs 15]
(``--after`` defaults to the working tree.)
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# PYTHONDONTWRITEBYTECODE dropped: installed packages are byte-compiled, so children must not
# pay source compilation on every run (the warm-up run writes the .pyc files).
CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith("TORCHADA_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}

HOOK = r'''
import os, site, sys, tempfile, time
pth = sys.argv[1]
ref, hook = tempfile.mkdtemp(), tempfile.mkdtemp()
with open(pth) as src, open(os.path.join(hook, "torchada_autoload.pth"), "w") as dst:
    dst.write(src.read())
order = [(ref, "ref"), (hook, "hook")] if sys.argv[2] == "0" else [(hook, "hook"), (ref, "ref")]
took = {}
for d, name in order:
    t = time.perf_counter()
    site.addsitedir(d)
    took[name] = time.perf_counter() - t
print((took["hook"] - took["ref"]) * 1e6)
'''

# Time inside the registry's outermost process() calls minus the torch_musa import they
# trigger: area module imports, gates and apply steps, whichever revision decides when to
# import area modules (summing the per-area times status reports would miss imports done
# outside them).
ACTIVATION = r'''
import time
from torchada._core import registry as r
spent = {"process": 0.0, "backend": 0.0}
depth = [0]

def timed(key, fn):
    def wrapper(*a, **k):
        depth[0] += 1
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            depth[0] -= 1
            if key == "backend" or depth[0] == 0:
                spent[key] += time.perf_counter() - t
    return wrapper

r.Registry.process = timed("process", r.Registry.process)
r.Registry._load_backend = timed("backend", r.Registry._load_backend)
import torch, torchada
assert not [a for a in torchada.status().areas if a.state == "failed"], torchada.status()
print((spent["process"] - spent["backend"]) * 1e3)
'''


def checkout(rev, tmp):
    path = Path(tmp) / rev
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(path), rev],
                   check=True, capture_output=True)
    return path


def run_hook(tree, i):
    out = subprocess.run([sys.executable, "-S", "-c", HOOK, str(tree / "torchada_autoload.pth"),
                          str(i % 2)], env=CLEAN, capture_output=True, text=True, check=True)
    return float(out.stdout)


def run_activation(tree):
    env = dict(CLEAN, TORCHADA_SIMULATE_MUSA="1", PYTHONPATH=str(tree / "src"))
    out = subprocess.run([sys.executable, "-c", ACTIVATION], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default=None, help="a revision; default: the working tree")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="torchada-revs-")
    trees = {"before": checkout(args.before, tmp),
             "after": checkout(args.after, tmp) if args.after else ROOT}
    try:
        for tree in trees.values():  # warm: the simulator backend of each source is built once
            run_activation(tree)
        samples = {k: {"hook_us": [], "activation_ms": []} for k in trees}
        for i in range(args.runs):
            for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
                samples[name]["hook_us"].append(run_hook(trees[name], i))
                samples[name]["activation_ms"].append(run_activation(trees[name]))
    finally:
        for name, tree in trees.items():
            if tree != ROOT:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                               capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    results = {}
    for measure in ("hook_us", "activation_ms"):
        before = statistics.median(samples["before"][measure])
        after = statistics.median(samples["after"][measure])
        results[measure] = {"before": round(before, 2), "after": round(after, 2),
                            "ratio": round(after / before, 3) if before else None}
        print("%-14s before %9.2f  after %9.2f  ratio %.3f" % (measure, before, after,
                                                              after / before if before else 0))
    results["revisions"] = {"before": args.before, "after": args.after or "working tree"}
    results["runs"] = args.runs
    if not args.no_history:
        history.append("revisions", results)


if __name__ == "__main__":
    main()
