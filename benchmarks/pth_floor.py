"""The start-up hook off MUSA against the cheapest possible .pth line (issue 14).

    .venv/bin/python benchmarks/pth_floor.py [--runs 60] [--wall-runs 200]

Variants: ``none`` (no .pth), ``trivial`` (a one-line ``import sys`` .pth: what any
executable .pth costs CPython), ``ours`` (torchada_autoload.pth of the work tree), and any
``--candidate FILE``.

1. **In the child** (precise): ``python -S`` children each time ``site.addsitedir(D)`` for a
   directory D holding only that variant's .pth, minus the same call on an empty directory
   in the same child. Variants alternate; medians. The ratio ours / trivial is the goal
   (<= 1.2).
2. **Whole process** (paired, as the issue asks): two venvs without pip, a bare one and a
   typical one (another executable .pth beside ours, as setuptools' distutils-precedence.pth
   gives most venvs); ``python -c pass`` with each variant's .pth in site-packages, the
   variants alternating run by run; medians, and each variant's cost over ``none``.
Nothing MUSA-like is on the path, so the line's pre-check fails: the cost every non-MUSA
interpreter pays. Appends one JSON line to benchmarks/history.jsonl.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import history  # noqa: E402

CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith("TORCHADA_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
CHILD = r'''
import site, sys, time
empty, target = sys.argv[1], sys.argv[2]
t = time.perf_counter(); site.addsitedir(empty); ref = time.perf_counter() - t
t = time.perf_counter(); site.addsitedir(target); took = time.perf_counter() - t
print((took - ref) * 1e6)
'''


def variants(candidates):
    out = {"trivial": "import sys\n", "ours": (ROOT / "torchada_autoload.pth").read_text()}
    for path in candidates:
        out[Path(path).stem] = Path(path).read_text()
    return out


def in_child(texts, runs, tmp):
    empty = tmp / "empty"
    empty.mkdir()
    dirs = {}
    for name, text in texts.items():
        d = tmp / ("pth-" + name)
        d.mkdir()
        (d / "zz_variant.pth").write_text(text)
        dirs[name] = d
    samples = {name: [] for name in texts}
    names = list(texts)
    for i in range(runs):
        for name in (names if i % 2 == 0 else names[::-1]):
            out = subprocess.run([sys.executable, "-S", "-c", CHILD, str(empty), str(dirs[name])],
                                 env=CLEAN, capture_output=True, text=True, check=True)
            samples[name].append(float(out.stdout))
    return {name: round(statistics.median(v), 1) for name, v in samples.items()}


def make_venv(path, typical):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    if typical:  # setuptools' distutils-precedence.pth is one executable line like this
        (site / "distutils-precedence.pth").write_text(
            "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'\n")
    return python, site


def whole_process(texts, runs, tmp):
    results = {}
    for kind in ("bare", "typical"):
        python, site = make_venv(tmp / ("venv-" + kind), kind == "typical")
        pth = site / "torchada_autoload.pth"
        order = ["none"] + list(texts)
        samples = {name: [] for name in order}
        for _ in range(5):
            subprocess.run([python, "-c", "pass"], env=CLEAN, check=True)
        for i in range(runs):
            for name in (order if i % 2 == 0 else order[::-1]):
                if name == "none":
                    pth.unlink(missing_ok=True)
                else:
                    pth.write_text(texts[name])
                t = time.perf_counter()
                subprocess.run([python, "-c", "pass"], env=CLEAN, check=True)
                samples[name].append(time.perf_counter() - t)
        med = {name: statistics.median(v) * 1e6 for name, v in samples.items()}
        results[kind] = {"median_us": {k: round(v, 1) for k, v in med.items()},
                         "added_us": {k: round(med[k] - med["none"], 1) for k in texts}}
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--wall-runs", type=int, default=200)
    ap.add_argument("--candidate", action="append", default=[])
    ap.add_argument("--no-history", action="store_true")
    args = ap.parse_args()
    texts = variants(args.candidate)
    with tempfile.TemporaryDirectory() as tmp:
        child = in_child(texts, args.runs, Path(tmp))
        wall = whole_process(texts, args.wall_runs, Path(tmp)) if args.wall_runs else {}
    result = {"in_child_us": child,
              "in_child_ratio_vs_trivial": {k: round(v / child["trivial"], 3) for k, v in child.items()},
              "whole_process": wall, "runs": args.runs, "wall_runs": args.wall_runs}
    for kind, r in wall.items():
        result["whole_process"][kind]["ratio_added_vs_trivial"] = {
            k: round(v / r["added_us"]["trivial"], 3) if r["added_us"]["trivial"] > 0 else None
            for k, v in r["added_us"].items()}
    import json

    print(json.dumps(result, indent=1))
    if not args.no_history:
        history.append("pth_floor", result)


if __name__ == "__main__":
    main()
