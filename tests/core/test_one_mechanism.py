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


def _own_module_names(tree):
    """Names a file binds to torchada's own modules (``from torchada.x import y`` where y is
    a module, ``import torchada.x as y``, ``import torchada_boot``)."""
    def is_module(dotted):
        parts = dotted.split(".")
        if parts[0] == "torchada_boot":
            return len(parts) == 1
        if parts[0] != "torchada":
            return False
        base = SRC.joinpath(*parts[1:])
        return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {a.asname or a.name for a in node.names
                      if is_module(node.module + "." + a.name)}
        elif isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.asname and is_module(a.name)}
            names |= {a.name for a in node.names if a.name == "torchada_boot"}
    return names


def test_no_guards_around_torchadas_own_functions():
    """``getattr(native_cache, "check", None)`` and the like: torchada's own modules are
    installed together, so their functions exist; a guard only hides a renamed function."""
    found = []
    for path in sorted(SRC.parent.glob("torchada_boot.py")) + [p for p, _ in _sources()]:
        tree = ast.parse(path.read_text())
        own = _own_module_names(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in own
                    and (node.func.id == "hasattr" or len(node.args) == 3)):
                found.append("%s:%d" % (path.name, node.lineno))
    assert found == []


def test_dead_helpers_stay_gone():
    from torchada._core import gate, settings

    assert not hasattr(settings, "env_int") and not hasattr(settings, "env_flag")
    assert "probe" not in gate.Gate.__dataclass_fields__


def test_module_names_say_one_job():
    """No two modules share a name that says nothing alone (three ``native.py`` were one
    each of the cache, the builder and the graph extension), and the device-name rule and
    the type-slot code each live in one module of the devices area."""
    natives = sorted(_rel(p) for p in SRC.rglob("native.py") if SIMROOT not in p.parents)
    assert natives == []
    assert not (SRC / "areas" / "_devmap.py").exists()
    assert not (SRC / "areas" / "_typeslots.py").exists()
    rule = [_rel(p) for p, tree in _sources() for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == "musa_name"]
    slots = [_rel(p) for p, tree in _sources() for n in tree.body
             if isinstance(n, ast.ClassDef) and n.name == "TpNewPatch"]
    assert rule == ["areas/_devices/names.py"] and slots == ["areas/_devices/type_slots.py"]
