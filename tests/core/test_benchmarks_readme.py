"""benchmarks/README.md is generated from history.jsonl and stays current; results/ keeps one
suite log per torch version, each recorded in history.jsonl."""
import importlib.util
import json
import re
from collections import Counter

from tests._fresh import ROOT

BENCH = ROOT / "benchmarks"


def load(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, BENCH / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.path.insert(0, str(BENCH))  # suite.py imports history as its neighbour
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def test_readme_is_generated_from_history():
    readme = load("readme")
    assert (BENCH / "README.md").read_text() == readme.render(), \
        "regenerate: .venv/bin/python benchmarks/readme.py > benchmarks/README.md"


def test_every_benchmark_script_has_a_section_and_every_section_a_script():
    readme = load("readme")
    listed = [b.script.split()[0] for b in readme.BENCHMARKS]
    scripts = sorted(p.name for p in BENCH.glob("*.py"))
    assert sorted(set(listed)) == sorted(set(scripts) - readme.NOT_BENCHMARKS)
    names = [b.name for b in readme.BENCHMARKS if b.name]
    assert [n for n, k in Counter(names).items() if k > 1] == []


def test_each_recorded_benchmark_shows_figures_from_its_latest_run():
    """A figure pattern that matches nothing (a key renamed in the script) fails here."""
    readme = load("readme")
    runs, _ = readme.latest()
    for bench in readme.BENCHMARKS:
        if bench.name is None:
            continue
        keys = [key for key, _ in readme.flatten(runs[bench.name]["results"])]
        for pattern in bench.figures:
            assert any(readme.fnmatch.fnmatchcase(k, pattern) for k in keys), (bench.name, pattern)


def test_results_keep_one_suite_log_per_torch_version_recorded_in_history():
    suite = load("suite")
    logs = sorted((BENCH / "results").glob("torch-*-suite*.log"))
    versions = [suite.torch_version(p) for p in logs]
    assert [v for v, n in Counter(versions).items() if n > 1] == []
    records = [json.loads(line) for line in (BENCH / "history.jsonl").read_text().splitlines()]
    for log, version in zip(logs, versions):
        counts = suite.summary(log.read_text(errors="replace"))
        newest = [r for r in records if r["benchmark"] == "suite"
                  and r["torch_version"] == version][-1]
        assert newest["results"] == counts, (log.name, newest["results"], counts)


def test_suite_summary_reads_pytests_last_line():
    suite = load("suite")
    text = "x\n= 2 failed, 741 passed, 6 skipped, 1 error in 838.69s (0:13:58) =\nexit 1\n"
    assert suite.summary(text) == {"passed": 741, "failed": 2, "skipped": 6, "errors": 1,
                                   "seconds": 838.69}
    assert re.match(r"no pytest summary", _error(suite.summary, "interrupted\n"))


def _error(fn, *args):
    try:
        fn(*args)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("no ValueError")
