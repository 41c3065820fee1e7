"""Every real area module follows the contract in docs/internals.md."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from torchada._core import area_run
from torchada._core.activation import BASE_TRIGGERS
from torchada.areas import AREA_MODULES
from torchada.areas.manifest import AREAS
from tests._fresh import clean_env, run_python

AREAS_DIR = Path(importlib.import_module("torchada.areas").__file__).parent


@pytest.mark.parametrize("name", list(AREA_MODULES))
def test_area_module_shape(name):
    module = importlib.import_module("torchada.areas." + name)
    row = next(a for a in AREAS if a.name == name)
    # trigger, gate and phase live in the manifest only (one place, no reconciliation)
    assert not {"TRIGGERS", "GATE", "BEFORE_BACKEND"} & set(vars(module))
    # one @_kit.fix function per Fix of the row, and nothing else claims a fix name
    units = area_run.check_shape(module, [f.name for f in row.fixes])
    assert sorted(units) == sorted(f.name for f in row.fixes)
    # the registry builds the context: apply(ctx), units take ctx, status comes from ctx.note
    for fn in [getattr(module, "apply", None)] + list(units.values()):
        if fn is not None:
            assert list(inspect.signature(fn).parameters) == ["ctx"], fn
    assert not hasattr(module, "status_note"), "status comes from ctx.note only"
    doc = module.__doc__ or ""
    assert "torch_musa" in doc and len(doc.splitlines()) >= 3, "docstring must name the APIs"
    assert "Trigger:" not in doc, "the manifest holds the triggers"


def test_area_names_are_unique_and_base_triggers_watched():
    names = [a.name for a in AREAS]
    assert sorted(set(n for n in names if names.count(n) > 1)) == []
    assert "torch" in BASE_TRIGGERS


def _function_lengths(path):
    tree = ast.parse(path.read_text())
    return {node.name: node.end_lineno - node.lineno + 1 for node in tree.body
            if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("name", list(AREA_MODULES))
def test_area_modules_stay_small(name):
    """No area module over ~400 lines, no apply over ~40: a bigger area splits into
    helpers (as devices does into torchada/areas/_devices) or fix units."""
    path = AREAS_DIR / (name + ".py")
    assert len(path.read_text().splitlines()) <= 400, path
    assert _function_lengths(path).get("apply", 0) <= 40, path


def test_no_area_branches_on_a_fix_name_or_writes_past_the_context():
    """Fixes are units the registry calls (no string-matched ``fix_enabled`` branch), and
    areas write through ``ctx.setattr`` / ``setitem`` / ``on_revert``, not its journal."""
    found = [(str(p), word) for p in AREAS_DIR.rglob("*.py") for word in
             ("fix_enabled", "ctx.journal") if word in p.read_text()]
    assert found == []


def test_area_modules_import_nothing_heavy_at_import():
    proc = run_python("""
        import sys
        from torchada.areas import AREA_MODULES
        import importlib
        for n in AREA_MODULES:
            importlib.import_module('torchada.areas.' + n)
        print(sorted(m for m in ('torch', 'torch_musa', 'triton') if m in sys.modules))
    """, env=clean_env())
    assert proc.stdout.strip() == "[]"
