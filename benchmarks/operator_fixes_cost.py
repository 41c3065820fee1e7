"""Per-call cost of the operator fix units (issue 11) on the simulated device.

Interleaved rounds in one child each (TORCHADA_SIMULATE_MUSA=1, torch_musa label chosen):
  log_  : float32 musa ``Tensor.log_`` with the fixes installed (2.11.0.post1: the compiled
          cpp_overrides kernel, built before timing) vs torchada's operator_fixes disabled,
          same release; and CPU float64 log_ in both (goal: +0, the fix is PrivateUse1 only);
  log / multinomial : out-of-place ``torch.log`` and ``torch.multinomial(w, 4,
          replacement=True)`` on musa: the compiled kernels vs torch_musa's (the simulator's);
  mm    : ``torch.mm(out_dtype=float32)`` on 2.11.0.post1 with the defect off (the probe finds
          the kernels healthy and forwards) vs operator_fixes disabled;
  isfinite : ``torch.isfinite`` on a float32 musa tensor (the fix: abs() < inf, one Python
          kernel frame and two ops) vs ATen's composite (four ops; on hardware its bool mul
          also waits for the device, which the simulator cannot time); on an int32 musa
          tensor (forwarded to the composite); on a CPU float32 tensor (goal +0).
The simulator's kernels run on the CPU; the added cost is a Python kernel frame plus a
boxed call, the same on hardware. Medians of ns per call.

Rerun:  .venv/bin/python benchmarks/operator_fixes_cost.py [--rounds 15] [--calls 2000]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

CHILD = r'''
import json, statistics, sys, time, torch, torchada
rounds, calls = int(sys.argv[1]), int(sys.argv[2])
x = torch.rand(16, device="cuda") + 1
c = torch.rand(16, dtype=torch.float64) + 1
def per_call(fn):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls * 1e9
out = {"log_musa_f32": [], "log_cpu_f64": [], "mm": [], "log_out_musa_f32": [],
       "multinomial_musa": [], "isfinite_musa_f32": [],
       "isfinite_musa_i32": [], "isfinite_cpu_f32": []}
xi = torch.arange(16, dtype=torch.int32, device="cuda")
xc = torch.rand(16)
w = torch.rand(4, 16, device="cuda")
torch.log(x); x.log_().exp_(); torch.multinomial(w, 4, replacement=True)  # build / load first
from torchada.areas._op_overrides import shared
if shared.UNITS and shared.background().wait(900):  # built off the calling thread: wait,
    torch.log(x); torch.isfinite(x)                   # then a call swaps the kernels in
mm = hasattr(torch.ops.aten.mm, "dtype")
a = torch.ones(4, 4, dtype=torch.bfloat16, device="cuda")
for _ in range(rounds):
    out["log_musa_f32"].append(per_call(lambda: x.log_().exp_()))
    out["log_cpu_f64"].append(per_call(lambda: c.log_().exp_()))
    out["log_out_musa_f32"].append(per_call(lambda: torch.log(x)))
    out["multinomial_musa"].append(per_call(lambda: torch.multinomial(w, 4, replacement=True)))
    out["isfinite_musa_f32"].append(per_call(lambda: torch.isfinite(x)))
    out["isfinite_musa_i32"].append(per_call(lambda: torch.isfinite(xi)))
    out["isfinite_cpu_f32"].append(per_call(lambda: torch.isfinite(xc)))
    if mm:
        out["mm"].append(per_call(lambda: torch.mm(a, a, out_dtype=torch.float32)))
print(json.dumps({k: statistics.median(v) for k, v in out.items() if v}))
'''


def child(rounds, calls, **env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_SIM_TORCH_MUSA_VERSION="2.11.0.post1",
               TORCHADA_SIM_DEFECTS="-mm_out_dtype", **env_extra)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(rounds), str(calls)], env=env,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    runs = {"fix": [], "off": []}
    for p in range(args.pairs):
        for name in (("fix", "off") if p % 2 == 0 else ("off", "fix")):
            env = {} if name == "fix" else {"TORCHADA_DISABLE_AREAS": "operator_fixes"}
            runs[name].append(child(args.rounds, args.calls, **env))
    results = {}
    for measure in runs["fix"][0]:
        fix = statistics.median(r[measure] for r in runs["fix"])
        off = statistics.median(r[measure] for r in runs["off"])
        results[measure] = {"fix_ns": round(fix), "off_ns": round(off), "ratio": round(fix / off, 3),
                            "delta_ns": round(fix - off)}
        print("%-13s fix %8.0f ns  off %8.0f ns  ratio %.3f  (%+.0f ns)"
              % (measure, fix, off, fix / off, fix - off))
    results.update(rounds=args.rounds, calls=args.calls, pairs=args.pairs)
    if not args.no_history:
        history.append("operator_fixes_cost", results)


if __name__ == "__main__":
    main()
