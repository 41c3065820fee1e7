"""The env_mirror area on the simulator (fresh interpreters)."""
import textwrap

from tests._fresh import last_json, run_python, sim_env


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
