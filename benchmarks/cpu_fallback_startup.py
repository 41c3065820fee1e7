"""Activation cost of the cpu_fallback area on the simulated device, before and after a change
to it, paired.

"before" is a copy of the working tree's src/ with the area's files (``FILES``) as they are
at the revision given, so nothing else differs. Each child imports torch with
TORCHADA_SIMULATE_MUSA=1 from one of the two and prints
the area's own time as ``torchada.status()`` reports it (its apply step: which operators
torch_musa lacks, one PrivateUse1 kernel registered per operator). Children alternate
before / after (A B A B ...); medians and the median of the paired differences are printed
and appended to history.jsonl. ``after_cold`` runs the working tree with its cached
operator scan deleted first (the first process after a torch or torch_musa change).

Rerun:  .venv/bin/python benchmarks/cpu_fallback_startup.py --before 28bf805 [--runs 15]
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

FILES = ("src/torchada/areas/cpu_fallback.py", "src/torchada/areas/_cpu_fallback/opset.py",
         "src/torchada/areas/_cpu_fallback/kernel.py", "src/torchada/areas/_cpu_fallback/stats.py")

ROOT = Path(__file__).resolve().parents[1]
CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith("TORCHADA_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
CHILD = r'''
import torch, torchada
area = [a for a in torchada.status().areas if a.name == "cpu_fallback"][0]
assert area.state == "applied", area
print(area.seconds * 1e3)
'''


def area_ms(tree):
    env = dict(CLEAN, TORCHADA_SIMULATE_MUSA="1", PYTHONPATH=str(tree / "src"))
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def drop_scan_cache():
    sys.path.insert(0, str(ROOT / "src"))
    from torchada._core import native_cache

    for path in glob.glob(os.path.join(native_cache.trusted_dir("cpu_fallback"),
                                       "needs_device_kernel-*.json")):
        os.unlink(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True, help="a revision before the change")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="torchada-cpufb-")
    before = Path(tmp) / "before"
    shutil.copytree(ROOT / "src", before / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for rel in FILES:
        old = subprocess.run(["git", "-C", str(ROOT), "show", "%s:%s" % (args.before, rel)],
                             check=True, capture_output=True).stdout
        (before / rel).write_bytes(old)
    trees = {"before": before, "after": ROOT}
    samples = {"before": [], "after": [], "after_cold": []}
    try:
        for tree in trees.values():  # warm: .pyc files, the simulator backend, the scan cache
            area_ms(tree)
        for i in range(args.runs):
            for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
                samples[name].append(area_ms(trees[name]))
            drop_scan_cache()
            samples["after_cold"].append(area_ms(ROOT))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results = {name: round(statistics.median(v), 2) for name, v in samples.items()}
    results["paired_saving_ms"] = round(statistics.median(
        b - a for b, a in zip(samples["before"], samples["after"])), 2)
    results["ratio"] = round(results["after"] / results["before"], 3)
    results["runs"] = args.runs
    results["before_rev"] = args.before
    for key, value in results.items():
        print("%-18s %s" % (key, value))
    if not args.no_history:
        history.append("cpu_fallback_startup", results)


if __name__ == "__main__":
    main()
