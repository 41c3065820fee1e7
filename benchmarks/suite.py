"""Record a full test-suite run: one ``suite`` line in history.jsonl, and the log kept as the
only one for its torch version in benchmarks/results (older runs live in history.jsonl).

    .ci/run-torch-version 2.9.1 2>&1 | tee benchmarks/results/torch-2.9.1-suite.log
    .venv/bin/python benchmarks/suite.py benchmarks/results/torch-2.9.1-suite.log [--commit REV]

It prints the ``git rm`` of the logs it replaces (it deletes nothing itself).
"""
import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

RESULTS = Path(__file__).with_name("results")
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)")
_SUMMARY = re.compile(r"^=*\s*(\d+ \w+.*) in ([\d.]+)s")
_NAME = re.compile(r"^torch-(\d+\.\d+(?:\.\d+)?)-suite")


def summary(text):
    """{"passed": n, "failed": n, "skipped": n, ..., "seconds": s} from pytest's last
    summary line; ValueError when the log has none (an interrupted run is not recorded)."""
    for line in reversed(text.splitlines()):
        match = _SUMMARY.match(line.strip())
        if match:
            counts = {"passed": 0, "failed": 0, "skipped": 0}
            for number, kind in _COUNTS.findall(match.group(1)):
                counts["errors" if kind.startswith("error") else kind] = int(number)
            counts["seconds"] = float(match.group(2))
            return counts
    raise ValueError("no pytest summary line (N passed ... in S s) in the log")


def torch_version(log):
    match = _NAME.match(Path(log).name)
    if not match:
        raise ValueError("%s: name it torch-<version>-suite.log" % log)
    return match.group(1)


def older_logs(version, keep):
    return sorted(p for p in RESULTS.glob("torch-%s-suite*.log" % version)
                  if p.resolve() != Path(keep).resolve())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--commit", help="the commit tested (default: HEAD)")
    args = parser.parse_args(argv)
    version = torch_version(args.log)
    counts = summary(Path(args.log).read_text(errors="replace"))
    extra = {"commit": args.commit} if args.commit else {}
    record = history.append("suite", counts, torch_version=version,
                            log=Path(args.log).name, **extra)
    print("recorded: torch %s, %s" % (version, counts))
    old = older_logs(version, args.log)
    if old:
        print("replace the older logs: git rm " + " ".join(str(p) for p in old))
    return record


if __name__ == "__main__":
    main()
