"""Issue 14, part 1: can a dispatcher-level route replace the Python factory wrappers?

The candidate: leave ``torch.zeros`` & co. untouched (so CPU calls cost nothing) and catch
CUDA-named calls where torch itself sends them: a boxed fallback for the CUDA dispatch key
that rewrites ``cuda`` devices to ``musa`` and calls the operator again. This probe
registers such a fallback (in Python: enough to see what it reaches and what a call costs
through a Python frame) on the simulated torch_musa with torchada off, then reports which
CUDA spellings land on musa and the per-call cost of ``torch.zeros`` on the CPU, on musa,
and spelled ``cuda`` through the fallback.

Rerun:  .venv/bin/python benchmarks/dispatch_route_probe.py [--python .venv-torch-2.7.1/bin/python]
(PyPI's torch 2.7.1 is a CUDA build: its CUDA key has real kernels, so the fallback is not
reached there; torch_musa's torch is built without CUDA, like the 2.13 CPU wheel.)
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, timeit, torch, torch_musa
lib = torch.library.Library("_", "IMPL")

def to_musa(value):
    if isinstance(value, torch.device) and value.type == "cuda":
        return torch.device("musa", value.index)
    return value

def cuda_key_fallback(keyset, op, *args, **kwargs):
    return op(*[to_musa(a) for a in args], **{k: to_musa(v) for k, v in kwargs.items()})

lib.fallback(cuda_key_fallback, "CUDA", with_keyset=True)
torch.cuda._lazy_init = lambda: None   # torch calls it before any cuda-device factory
reached = {}
for expr in ['torch.zeros(3, device="cuda")', 'torch.ones(2, device="cuda:0")',
             'torch.arange(4, device="cuda")', 'torch.randn(2, device="cuda")',
             'torch.full((2,), 3.0, device="cuda")', 'torch.randperm(4, device="cuda")',
             'torch.eye(2, device="cuda")', 'torch.tril_indices(3, 3, device="cuda")',
             'torch.zeros_like(torch.ones(2), device="cuda")',
             'torch.empty(2, device="cuda").new_zeros(3)',
             'torch.tensor([1, 2], device="cuda")', 'torch.zeros(2).to("cuda")',
             'torch.zeros(2).cuda()']:
    try:
        reached[expr] = str(eval(expr).device)
    except Exception as exc:
        reached[expr] = "error: " + str(exc).splitlines()[0][:120]
cost = {}
for stmt in ['torch.zeros(4)', 'torch.zeros(4, device="musa")', 'torch.zeros(4, device="cuda")']:
    n = 20000
    try:
        cost[stmt] = "%.0f ns" % (min(timeit.repeat(stmt, globals=globals(), number=n, repeat=7)) / n * 1e9)
    except Exception as exc:   # a torch built with CUDA has real CUDA kernels there
        cost[stmt] = "error: " + str(exc).splitlines()[0][:80]
print(json.dumps({"torch": torch.__version__, "reached": reached, "ns": cost}))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.update(TORCHADA_PLATFORM="off", PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src" / "torchada" / "testing" / "_simroot"), str(ROOT / "src")]))
    proc = subprocess.run([args.python, "-c", CHILD], env=env, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print("torch", out["torch"])
    for expr, where in out["reached"].items():
        print("  %-48s %s" % (expr, where))
    for stmt, ns in out["ns"].items():
        print("  %-34s %s" % (stmt, ns))


if __name__ == "__main__":
    main()
