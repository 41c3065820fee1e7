"""Inductor's template heuristic registry gets musa entries on releases that lack them."""

import pytest
import torch

from tests._fresh import last_json, run_sim
from tests._releases import importable_or_skip

HAS_REGISTRY = True
try:
    import torch._inductor.template_heuristics.registry  # noqa: F401
except ImportError:
    HAS_REGISTRY = False

PROGRAM = """
import json, sys
before = "torch._inductor.template_heuristics" in sys.modules
from torch._inductor.template_heuristics import registry
table = registry._TEMPLATE_HEURISTIC_REGISTRY
cuda = {(t, o): c.__name__ for (t, d, o), c in table.items() if d == "cuda"}
musa = {(t, o): c.__name__ for (t, d, o), c in table.items() if d == "musa"}
h = registry.get_template_heuristic("triton::mm", "musa", "mm")
print(json.dumps({"imported_at_start": before, "same": cuda == musa, "n": len(cuda),
                  "musa": len(musa), "mm": type(h).__name__,
                  "cuda_mm": type(registry.get_template_heuristic("triton::mm", "cuda", "mm")).__name__}))
"""


def run(version):
    proc = run_sim(PROGRAM, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(version))
    return last_json(proc)


@pytest.mark.skipif(not HAS_REGISTRY, reason="torch %s has no template heuristic registry "
                    "(added in torch 2.9)" % torch.__version__)
def test_old_release_gets_the_cuda_entries_and_inductor_is_not_imported_at_start():
    out = run("2.11.0.post1")
    assert out["imported_at_start"] is False
    assert out["same"] is True and out["n"] > 0
    assert out["mm"] == out["cuda_mm"] != "TemplateConfigHeuristics"


@pytest.mark.skipif(not HAS_REGISTRY, reason="torch %s has no template heuristic registry "
                    "(added in torch 2.9)" % torch.__version__)
def test_fixed_release_is_left_alone():
    # 2.11.0.post2 registers its own seven musa entries (torch_musa/_inductor/
    # template_heuristics.py at e205050); the fix stands aside and they stay torch_musa's.
    out = run("2.11.0.post2")
    assert out["musa"] == 7 and out["mm"] == "MUSAMMTemplateConfigHeuristic"
