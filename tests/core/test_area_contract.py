"""Every real area module follows the contract in docs/internals.md."""

import importlib

import pytest

from torchada._core.gate import Gate
from torchada._core.activation import BASE_TRIGGERS
from torchada.areas import AREA_MODULES
from torchada.areas.manifest import AREAS
from tests._fresh import clean_env, run_python


@pytest.mark.parametrize("name", list(AREA_MODULES))
def test_area_module_shape(name):
    module = importlib.import_module("torchada.areas." + name)
    # trigger, gate and phase live in the manifest only (one place, no reconciliation)
    assert not {"TRIGGERS", "GATE", "BEFORE_BACKEND"} & set(vars(module))
    row = next(a for a in AREAS if a.name == name)
    assert isinstance(row.gate(), Gate) and row.triggers == AREA_MODULES[name]
    assert callable(module.apply)
    doc = module.__doc__ or ""
    assert "torch_musa" in doc and len(doc.splitlines()) >= 3, "docstring must name the APIs"
    assert all(isinstance(t, str) and t for t in row.triggers)


def test_area_names_unique_and_triggers_watched():
    assert len(set(AREA_MODULES)) == len(AREA_MODULES)
    assert "torch" in BASE_TRIGGERS
    assert all(set(t) for t in AREA_MODULES.values())


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
