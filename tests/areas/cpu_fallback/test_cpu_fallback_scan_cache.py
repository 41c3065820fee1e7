"""The cpu_fallback area's scan of the CPU / composite registrations is kept per torch and
torch_musa build (``_cpu_fallback/opset.py``): a cached answer equals a fresh scan, a
damaged or foreign cache file is rescanned, and another build's key names another file."""
import os

from tests._fresh import bare_sim_env, last_json, run_python

CODE = r'''
import glob, json, os, torch, torch_musa
from torchada.areas._cpu_fallback import opset
fresh = opset._scan_needs_device_kernel(torch)
path = opset._cache_path(torch)
first = opset.needs_device_kernel(torch)           # scans and writes
written = os.path.exists(path)
cached = opset.needs_device_kernel(torch)          # reads
with open(path, "w") as fh:
    fh.write('{"needs_device_kernel": ')           # a torn file
damaged = opset.needs_device_kernel(torch)
with open(path) as fh:
    rewritten = set(json.load(fh)["needs_device_kernel"])
key = opset._build_key(torch)
torch_musa.__version__ = "0.0.1"                   # another torch_musa build
other_key = opset._build_key(torch)
print(json.dumps({"n": len(fresh), "written": written, "first": first == fresh,
                  "cached": cached == fresh, "damaged": damaged == fresh,
                  "rewritten": rewritten == fresh, "key_changes": key != other_key,
                  "in_cache_dir": path.startswith(os.environ["XDG_CACHE_HOME"])}))
'''


def test_cached_scan_equals_a_fresh_one(tmp_path):
    user_cache = os.path.join(os.path.expanduser("~"), ".cache", "torchada")
    env = bare_sim_env(XDG_CACHE_HOME=str(tmp_path),
                       # the simulator's backend stays in the usual cache (no rebuild)
                       TORCHADA_SIM_CACHE_DIR=os.environ.get("TORCHADA_SIM_CACHE_DIR", user_cache))
    out = last_json(run_python(CODE, env=env, timeout=600))
    assert out.pop("n") > 500, out
    assert all(out.values()), out
