"""One mechanism each (issue 22, part 9): checks on the source tree that fail when a second
copy of a mechanism comes back. The simulated torch_musa (testing/_simroot) is left out: it
models torch_musa's own code, once-flags included."""
import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "torchada"
SIMROOT = SRC / "testing" / "_simroot"


def _sources():
    for path in sorted(SRC.rglob("*.py")):
        if SIMROOT not in path.parents:
            yield path, ast.parse(path.read_text(), str(path))


def _rel(path):
    return str(path.relative_to(SRC))


def test_one_warn_once_helper():
    """Every "warn once" goes through torchada/_core/warn_once.py: no other module keeps a
    module-level once-flag (``_WARNED = []``...) or defines its own warn-once function."""
    flag = re.compile(r"warned", re.I)
    found = []
    for path, tree in _sources():
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            found += ["%s: %s" % (_rel(path), t.id) for t in targets
                      if isinstance(t, ast.Name) and flag.search(t.id)]
        found += ["%s: def %s" % (_rel(path), n.name) for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef) and re.search(r"warn.*once", n.name)
                  and _rel(path) != "_core/warn_once.py"]
    assert found == []
    users = [_rel(p) for p, tree in _sources() if any(
        isinstance(n, ast.ImportFrom) and n.module == "torchada._core.warn_once"
        for n in ast.walk(tree))]
    assert len(users) >= 5, users  # the settings, cache, lock, graphs and cudart warnings
