"""``torchada lint`` on real projects' sources, downloaded from PyPI at benchmark time.

Downloads the sdists (pip download --no-binary :all: --no-deps), unpacks them into a
temporary directory, and times the lint of each tree in this process (median of --runs;
walk + read + parse + check, output not printed). Reports files, lines, seconds, files per
second and the findings per rule (what the tool finds in the wild).

Rerun:  .venv/bin/python benchmarks/lint_throughput.py [--runs 5] [--package transformers==4.46.3 ...]
"""
import argparse
import collections
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

DEFAULT_PACKAGES = ("transformers==4.46.3", "accelerate==1.10.1", "deepspeed==0.16.4")


def fetch(spec, into):
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", ":all:", "--no-build-isolation", spec, "-d", into],
                   check=True, capture_output=True, text=True, timeout=600)
    name = spec.split("==")[0].replace("-", "_").lower()
    archive = next(p for p in Path(into).iterdir()
                   if p.name.lower().replace("-", "_").startswith(name) and p.suffixes[-2:] == [".tar", ".gz"])
    tree = Path(into) / ("tree-" + name)
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data") if sys.version_info >= (3, 12) else tar.extractall(tree)
    return tree


def main():
    from torchada.lint.cli import lint

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--package", action="append")
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.package or DEFAULT_PACKAGES:
            try:
                tree = fetch(spec, tmp)
            except (subprocess.SubprocessError, StopIteration) as exc:
                print("%-24s not downloaded (%s)" % (spec, exc))
                continue
            files = [os.path.join(r, f) for r, _, fs in os.walk(tree) for f in fs if f.endswith(".py")]
            lines = sum(open(f, "rb").read().count(b"\n") for f in files)
            times, findings, problems = [], [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                findings, problems = lint([str(tree)])
                times.append(time.perf_counter() - start)
            seconds = statistics.median(times)
            by_rule = dict(sorted(collections.Counter(f.code for f in findings).items()))
            results[spec] = {"files": len(files), "lines": lines, "seconds": round(seconds, 3),
                             "files_per_s": round(len(files) / seconds), "findings": by_rule,
                             "unparsable": len(problems)}
            print("%-24s %5d files %7d lines  %.3f s  %5.0f files/s  findings %s  unparsable %d"
                  % (spec, len(files), lines, seconds, len(files) / seconds, by_rule, len(problems)))
    if not args.no_history and results:
        history.append("lint_throughput", results, runs=args.runs)


if __name__ == "__main__":
    main()
