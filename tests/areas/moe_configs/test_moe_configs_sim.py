"""vLLM and SGLang find the bundled MTT S5000 fused-MoE tables on MUSA, through their own
lookup rules (tests/fixtures/serving, written from their sources); nothing is set off MUSA
or where the user set a value."""
import os

import pytest

from tests._fresh import FIXTURES, clean_env, last_json, run_python, sim_env

SERVING = str(FIXTURES / "serving")
MUSA_TRITON = str(FIXTURES / "musa_triton")

PROGRAM = """
import json, os, sys
import torch, torchada
before = {v: os.environ.get(v) for v in ("VLLM_TUNED_CONFIG_FOLDER", "SGLANG_MOE_CONFIG_DIR")}
import %s as lib
after = {v: os.environ.get(v) for v in ("VLLM_TUNED_CONFIG_FOLDER", "SGLANG_MOE_CONFIG_DIR")}
shapes = [(128, 192, None, None, False),                      # Qwen3-30B-A3B, TP 4
          (256, 256, "fp8_w8a8", [128, 128], False),           # DeepSeek-V3, TP 8
          (128, 192, None, None, True)]                        # a down-projection table
found = [lib.moe_config_path(*s) for s in shapes]
rows = [json.load(open(p)) if p else None for p in found]
print(json.dumps({"before": before, "after": after, "found": found,
                  "buckets": [sorted(map(int, r)) if r else None for r in rows]}))
"""


def run(lib, env):
    return last_json(run_python(PROGRAM % lib, env=env))


@pytest.mark.parametrize("lib", ["vllm", "sglang"])
def test_tables_found_by_the_library_lookup(lib):
    out = run(lib, sim_env(PYTHONPATH=os.pathsep.join([SERVING, MUSA_TRITON])))
    assert out["before"] == {"VLLM_TUNED_CONFIG_FOLDER": None, "SGLANG_MOE_CONFIG_DIR": None}
    folder = out["after"]["VLLM_TUNED_CONFIG_FOLDER"]
    assert folder.endswith(os.path.join("torchada", "moe", "configs", "triton_3_2_0"))
    assert out["after"]["SGLANG_MOE_CONFIG_DIR"] == os.path.dirname(os.path.dirname(folder))
    names = [os.path.basename(p) for p in out["found"]]
    fp8 = "E=256,N=256,device_name=MTT_S5000,dtype=fp8_w8a8,block_shape=%s.json"
    assert names == ["E=128,N=192,device_name=MTT_S5000.json",
                     fp8 % ("[128,128]" if lib == "vllm" else "[128, 128]"),
                     "E=128,N=192,device_name=MTT_S5000_down.json"]
    assert all(b and b[0] == 1 and len(b) >= 17 for b in out["buckets"]), out["buckets"]


def test_upstream_triton_version_takes_the_newest_bundled_folder_not_newer():
    # PyPI's triton: with torch 2.13 a version with no folder of its own (3.9), with torch
    # 2.11 3.6 (its own folder), with 2.7 3.3
    triton = pytest.importorskip("triton")
    release = tuple(int(p) for p in triton.__version__.split("+")[0].split(".")[:2])
    expected = "triton_3_6_0" if release >= (3, 6) else "triton_3_2_0"
    out = run("vllm", sim_env(PYTHONPATH=SERVING))
    assert out["after"]["VLLM_TUNED_CONFIG_FOLDER"].endswith(expected)
    # Qwen3-30B-A3B TP 4 is tuned for Triton 3.2 only (3.6's folder holds two shapes)
    assert (out["found"][0] is not None) == (expected == "triton_3_2_0")


@pytest.mark.parametrize("value", ["/opt/my-tables", ""])
def test_a_value_the_user_set_is_kept(value):
    env = sim_env(PYTHONPATH=os.pathsep.join([SERVING, MUSA_TRITON]),
                  VLLM_TUNED_CONFIG_FOLDER=value)
    out = run("vllm", env)
    assert out["after"]["VLLM_TUNED_CONFIG_FOLDER"] == value
    assert out["after"]["SGLANG_MOE_CONFIG_DIR"] is not None  # the other one is still set
    assert out["found"] == [None, None, None]  # the user's (empty) folder, as they asked


@pytest.mark.parametrize("lib", ["vllm", "sglang"])
def test_off_musa_nothing_is_set(lib):
    # CPU machine: no device to name a table after, so only the variables are compared
    proc = run_python("""
import json, os, torch, torchada, %s
print(json.dumps({v: os.environ.get(v) for v in ("VLLM_TUNED_CONFIG_FOLDER", "SGLANG_MOE_CONFIG_DIR")}))
""" % lib, env=clean_env(PYTHONPATH=os.pathsep.join([SERVING, MUSA_TRITON])))
    assert last_json(proc) == {"VLLM_TUNED_CONFIG_FOLDER": None, "SGLANG_MOE_CONFIG_DIR": None}


def test_no_serving_library_imported_means_nothing_set_and_area_pending():
    proc = run_python("""
import json, os, torch, torchada
area = [a for a in torchada.status().areas if a.name == "moe_configs"][0]
print(json.dumps({"state": area.state, "env": os.environ.get("SGLANG_MOE_CONFIG_DIR"),
                  "loaded": [m for m in ("torchada.areas.moe_configs", "torchada.moe.tables")
                             if m in __import__("sys").modules]}))
""", env=sim_env())
    assert last_json(proc) == {"state": "pending", "env": None, "loaded": []}
