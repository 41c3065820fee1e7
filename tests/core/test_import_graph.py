"""The import graph has no circle: no two modules of torchada (the simulated torch_musa
included) import each other, directly or round about, and the porter never imports the
public name converters that wrap it. Imports inside functions count: a lazy import still
makes a loop a reader must untangle."""
import ast
from pathlib import Path

from tests._fresh import SRC

SIMROOT = SRC / "torchada" / "testing" / "_simroot"


def modules():
    """{dotted name: path} of every module under src/ (the simulator's as torch_musa.*)."""
    found = {}
    for path in SRC.rglob("*.py"):
        root = SIMROOT if SIMROOT in path.parents else SRC
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def imports(name, path, known):
    """Modules of ``known`` that ``name`` imports (the closest known module of each name)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names = [base + "." + alias.name if base + "." + alias.name in known else base
                     for alias in node.names]
        else:
            continue
        for target in names:
            while target and target not in known:
                target = target.rpartition(".")[0]
            # a package imports its parents anyway: only edges elsewhere make a loop
            if target and target != name and not name.startswith(target + "."):
                targets.add(target)
    return targets


def graph():
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(edges):
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_checker_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_circle():
    edges = graph()
    assert "torch_musa._MUSAC" in edges and "torchada.porting.flags" in edges
    assert circles(edges) == []


def test_the_porter_does_not_import_the_public_converters():
    """torchada.naming wraps the porter; the porter's own modules use porting.names."""
    edges = graph()
    users = sorted(n for n, targets in edges.items()
                   if n.startswith("torchada.porting") and "torchada.naming" in targets)
    assert users == []


def test_no_area_imports_the_porter_but_the_build_translators():
    """Native builds take their lock and toolkit paths from _core; only the areas that
    translate a user's build use the porter: cpp_extension (BuildExtension ports a user's
    sources) and tvm_ffi_build (tvm-ffi's ninja file, through the porter's flag table)."""
    edges = graph()
    users = sorted(n for n, targets in edges.items() if n.startswith("torchada.areas")
                   and any(t.startswith("torchada.porting") for t in targets))
    assert users == ["torchada.areas.cpp_extension", "torchada.areas.tvm_ffi_build"]
