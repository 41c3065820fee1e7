"""The accelerator area and its memory_routes fix on the simulator (fresh interpreters)."""
import textwrap

import pytest

from tests._fresh import last_json, run_python, sim_env
from tests._releases import importable_or_skip


ACC = textwrap.dedent("""
    import json, torch
    x = torch.ones(1024, device="cuda")
    present = getattr(torch.accelerator, "memory_allocated", None)  # torch >= 2.8 has it
    out = {"present": present is not None, "routed": hasattr(present, "__wrapped__")}
    try:
        out["allocated"] = torch.accelerator.memory_allocated()
        out["info_ok"] = torch.accelerator.get_memory_info()[1] > 0
        out["stats"] = "allocated_bytes.all.current" in torch.accelerator.memory_stats()
        torch.accelerator.empty_cache()
        torch.accelerator.synchronize()
        with torch.accelerator.device_index(1):
            out["idx"] = torch.accelerator.current_device_index()
        out["error"] = None
    except Exception as exc:
        out["error"] = type(exc).__name__
    print(json.dumps(out))
""")


@pytest.mark.parametrize("version,routed", [("2.7.1", True), ("2.11.0.post1", True),
                                            ("2.11.0.post2", False), ("2.12.0", False)])
def test_accelerator_memory_fix_acts_only_on_broken_releases(version, routed):
    out = last_json(run_python(ACC, env=sim_env(
        TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(version))))
    assert out["error"] is None, out
    assert out["routed"] is routed
    assert out["allocated"] >= 4096 and out["info_ok"] and out["stats"] and out["idx"] == 1


def test_accelerator_defect_is_real_without_the_area():
    out = last_json(run_python(ACC, env=sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1",
                                     TORCHADA_DISABLE_AREAS="accelerator")))
    if out["present"]:  # the simulator reproduces the vendor defect (seed README fix table)
        assert out["error"] == "RuntimeError", out
    else:  # torch 2.7 has no torch.accelerator memory APIs: the area is what provides them
        assert out["error"] == "AttributeError", out
