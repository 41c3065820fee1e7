"""Claims in the docs that a reader cannot check by reading the code next to them: the
suite counts docs/migrate.md cites are the logs' own, docs/security.md says when the graph
extension is built as the graph code does it, and torch_musa's headers are called "cited"
(read), never "checked" (no MUSA toolkit here has compiled what cites them)."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"`benchmarks/results/(torch-[0-9.]+-suite\.log)`: ([^|]*?) at ([0-9a-f]{7,40})")
COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?)")
SUMMARY = re.compile(r"=*\s*((?:\d+ \w+(?:, )?)+) in [0-9.]+s")


def _log_counts(text):
    for line in reversed(text.splitlines()):
        match = SUMMARY.match(line.strip())
        if match:
            return {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
                    for n, kind in COUNT.findall(match.group(1))}
    raise AssertionError("no pytest summary line in the log")


def test_migrate_cites_the_logs_counts_and_commits():
    doc = (ROOT / "docs" / "migrate.md").read_text()
    cited = CITED.findall(doc)
    assert len(cited) >= 3, "the compatibility table cites no suite logs"
    for name, counts, commit in cited:
        text = (ROOT / "benchmarks" / "results" / name).read_text(errors="replace")
        header = text.splitlines()[0]
        assert re.search(r"\bat %s\b" % commit, header), (name, commit, header)
        said = {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
                for n, kind in COUNT.findall(counts)}
        logged = {k: v for k, v in _log_counts(text).items() if v}
        assert said == logged, (name, said, logged)


def test_security_says_when_the_graph_extension_is_built_as_the_code_does():
    doc = (ROOT / "docs" / "security.md").read_text()
    [row] = [line for line in doc.splitlines() if "torchada_graph_exec_" in line]
    assert "the first graph capture starts the build" in row and "first eviction" not in row
    # the code: the capture_end that the graphs area installs starts the build first thing
    tree = ast.parse((ROOT / "src/torchada/areas/_graph_exec/install.py").read_text())
    [capture_end] = [n for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef) and n.name == "capture_end"]
    first = capture_end.body[0]
    assert ast.unparse(first) == "prepare.start()", ast.unparse(first)


def test_torch_musa_sources_are_called_cited_never_checked():
    """No MUSA toolkit has compiled the MUSA sources here: their torch_musa names are read
    from torch_musa's source and cited, which is what the text must say."""
    pattern = re.compile(r"checked against torch_musa", re.IGNORECASE)
    found = []
    for folder, suffixes in (("src", (".py", ".cpp", ".mu", ".h")), ("docs", (".md",))):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in suffixes and "_simroot" not in path.parts:
                text = path.read_text(errors="replace")
                found += ["%s: %s" % (path.relative_to(ROOT), m.group(0))
                          for m in pattern.finditer(" ".join(text.split()))]
    assert not found, found
