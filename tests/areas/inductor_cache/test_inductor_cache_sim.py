"""Inductor's system cache key on the simulated device, and compiles that depend on it."""

import torch

from tests._fresh import last_json, run_sim

# torch_musa's patched torch is built without CUDA (torch.version.cuda is None), which sends
# Inductor to the gcnArchName branch. A CUDA build of stock torch (PyPI's 2.7.1) reports a CUDA
# version instead, and Inductor reads the device name: nothing to fix there.
NO_CUDA_VERSION = torch.version.cuda is None

SYSTEM = """
import json
from torch._inductor.codecache import CacheBase
try:
    system = CacheBase.get_system()
    print(json.dumps({"device": system["device"], "musa": system["version"].get("musa"),
                      "hash": system["hash"], "same": CacheBase.get_system() is system}))
except AttributeError as exc:
    print(json.dumps({"error": str(exc)}))
"""


def test_without_the_area_inductor_trips_on_gcnarchname():
    out = last_json(run_sim(SYSTEM, TORCHADA_DISABLE_AREAS="inductor_cache"))
    if NO_CUDA_VERSION:
        assert "gcnArchName" in out["error"]
    else:
        assert out["device"] == {"name": "MTT S5000"} and "error" not in out


def test_system_key_names_the_musa_device_and_version():
    out = last_json(run_sim(SYSTEM, TORCHADA_SIM_DEVICE_NAME="MTT S4000", TORCHADA_SIM_MUSA_VERSION="4020"))
    assert out["device"] == {"name": "MTT S4000"}
    assert out["musa"] == ("4020" if NO_CUDA_VERSION else None)
    assert len(out["hash"]) >= 32 and out["same"] is True
    other = last_json(run_sim(SYSTEM, TORCHADA_SIM_DEVICE_NAME="MTT S5000", TORCHADA_SIM_MUSA_VERSION="4020"))
    assert other["hash"] != out["hash"]          # another device, another cache


def test_cpu_inductor_compile_on_a_musa_machine_matches_eager(tmp_path):
    proc = run_sim("""
        import json
        def f(x):
            return torch.sin(x) * 2 + 3
        x = torch.linspace(-3, 3, 64)
        got = torch.compile(f)(x)
        torch.testing.assert_close(got, f(x))
        print(json.dumps({"ok": True}))
    """, TORCHINDUCTOR_CACHE_DIR=tmp_path, timeout=600)
    assert last_json(proc) == {"ok": True}
