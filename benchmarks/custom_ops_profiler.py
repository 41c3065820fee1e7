"""Cost of the custom_ops, profiler and ctypes_libs areas on the simulated device (issue 08).

In one child with TORCHADA_SIMULATE_MUSA=1, interleaved rounds of:
  custom op : N calls of an op whose kernel was registered with "CUDA" (translated by the
              custom_ops area) vs N calls of an identical op registered with "PrivateUse1"
              natively. Goal: identical (it is the same kind of registration).
  profiler  : entering and leaving torch.profiler.profile(activities=[CPU, CUDA]) (the
              profiler area maps CUDA) vs activities=[CPU, PrivateUse1] written natively.
  ctypes    : N lookups of lib.cudaGetDeviceCount on ctypes.CDLL("libcudart.so") (the
              ctypes_libs area translates it once) vs lib.musaGetDeviceCount on
              ctypes.CDLL("libmusart.so"), after the first access. Goal: +0.
Medians of the per-round times and their ratio (translated / native).

Rerun:  .venv/bin/python benchmarks/custom_ops_profiler.py [--rounds 15] [--calls 2000]
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

CHILD = r'''
import json, statistics, sys, time
import torch
from torch.profiler import ProfilerActivity, profile

rounds, calls = int(sys.argv[1]), int(sys.argv[2])
lib = torch.library.Library("bench", "DEF")
for name, key in (("via_cuda", "CUDA"), ("native", "PrivateUse1")):
    lib.define(name + "(Tensor x) -> Tensor")
    lib.impl(name, lambda x: x, key)
x = torch.ones(4, device="cuda")
ops = {"via_cuda": torch.ops.bench.via_cuda, "native": torch.ops.bench.native}
acts = {"via_cuda": [ProfilerActivity.CPU, ProfilerActivity.CUDA],
        "native": [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]}
op_t = {k: [] for k in ops}
prof_t = {k: [] for k in acts}
for r in range(rounds):
    order = list(ops) if r % 2 == 0 else list(ops)[::-1]
    for k in order:
        f = ops[k]
        f(x)
        t = time.perf_counter()
        for _ in range(calls):
            f(x)
        op_t[k].append((time.perf_counter() - t) / calls * 1e9)
    for k in order:
        t = time.perf_counter()
        with profile(activities=acts[k]):
            pass
        prof_t[k].append((time.perf_counter() - t) * 1e3)
import ctypes
libs = {"via_cuda": (ctypes.CDLL("libcudart.so"), "cudaGetDeviceCount"),
        "native": (ctypes.CDLL("libmusart.so"), "musaGetDeviceCount")}
look_t = {k: [] for k in libs}
for r in range(rounds):
    for k in (list(libs) if r % 2 == 0 else list(libs)[::-1]):
        lib, name = libs[k]
        getattr(lib, name)
        t = time.perf_counter()
        for _ in range(calls):
            getattr(lib, name)
        look_t[k].append((time.perf_counter() - t) / calls * 1e9)
med = lambda v: statistics.median(v)
print(json.dumps({"op_ns": {k: med(v) for k, v in op_t.items()},
                  "profiler_ms": {k: med(v) for k, v in prof_t.items()},
                  "ctypes_lookup_ns": {k: med(v) for k, v in look_t.items()}}))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env["TORCHADA_SIMULATE_MUSA"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, str(args.rounds), str(args.calls)],
                         env=env, capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    results = {}
    for measure, unit in (("op_ns", "ns per call"), ("profiler_ms", "ms per enter+exit"),
                          ("ctypes_lookup_ns", "ns per attribute lookup")):
        v = data[measure]
        ratio = v["via_cuda"] / v["native"]
        results[measure] = dict(v, ratio=round(ratio, 3))
        print("%-12s translated %10.2f  native %10.2f  ratio %.3f  (%s)"
              % (measure, v["via_cuda"], v["native"], ratio, unit))
    results.update(rounds=args.rounds, calls=args.calls)
    if not args.no_history:
        history.append("custom_ops_profiler", results)


if __name__ == "__main__":
    main()
