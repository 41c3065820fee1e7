"""accelerator and env_mirror areas on the simulator (fresh interpreters)."""
import textwrap

import pytest

from tests._fresh import clean_env, last_json, run_argv, run_python, sim_env


ACC = textwrap.dedent("""
    import json, torch
    x = torch.ones(1024, device="cuda")
    out = {"routed": hasattr(torch.accelerator.memory_allocated, "__wrapped__")}
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
    out = last_json(run_python(ACC, env=sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=version)))
    assert out["error"] is None, out
    assert out["routed"] is routed
    assert out["allocated"] >= 4096 and out["info_ok"] and out["stats"] and out["idx"] == 1


def test_accelerator_defect_is_real_without_the_area():
    out = last_json(run_python(ACC, env=sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1",
                                     TORCHADA_DISABLE_AREAS="accelerator")))
    assert out["error"] is not None  # the simulator reproduces the vendor defect


ENV = textwrap.dedent("""
    import json, os, torch, torchada
    out = {k: os.environ.get(k) for k in ("MUSA_VISIBLE_DEVICES", "PYTORCH_MUSA_ALLOC_CONF")}
    out["count"] = torch.cuda.device_count()
    torchada.revert("env_mirror")
    out["after_revert"] = os.environ.get("MUSA_VISIBLE_DEVICES")
    print(json.dumps(out))
""")


def test_env_mirror_sets_musa_names_and_reverts():
    proc = run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1", PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:64"))
    out = last_json(proc)
    assert out["MUSA_VISIBLE_DEVICES"] == "1"
    assert out["PYTORCH_MUSA_ALLOC_CONF"] == "max_split_size_mb:64"
    assert out["after_revert"] is None


def test_env_mirror_musa_wins_with_one_warning():
    proc = run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1", MUSA_VISIBLE_DEVICES="0"))
    out = last_json(proc)
    assert out["MUSA_VISIBLE_DEVICES"] == "0" and out["count"] == 1
    assert proc.stderr.count("MUSA_VISIBLE_DEVICES wins") == 1


def test_env_mirror_nothing_set_without_cuda_names():
    out = last_json(run_python(ENV, env=sim_env()))
    assert out["MUSA_VISIBLE_DEVICES"] is None and out["PYTORCH_MUSA_ALLOC_CONF"] is None


def test_env_mirror_visible_devices_take_effect():
    out = last_json(run_python(ENV, env=sim_env(CUDA_VISIBLE_DEVICES="1")))
    assert out["count"] == 1
