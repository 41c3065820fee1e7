"""Per-call cost of the translation report (TORCHADA_TRACE), on the simulated MUSA device.

Fresh interpreters, interleaved over rounds, each timing the same calls:
  native    torch_musa spellings, torchada's areas all disabled (the floor)
  off       CUDA spellings through torchada, TORCHADA_TRACE unset (the default)
  on        the same with TORCHADA_TRACE=1 (every installed callable behind a counter)
Each child also says whether any installed object is a counting wrapper: with tracing off
none may be (the per-call path is the very object the area built, so "off" costs what
torchada cost before the report existed). Medians of the per-call times, in ns.

    python benchmarks/trace_cost.py [--number N] [--repeat R] [--rounds K] [--no-history]

Results are appended to benchmarks/history.jsonl (then: benchmarks/readme.py > README.md).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# label, CUDA spelling, native MUSA spelling
CASES = [
    ('torch.zeros(4, device="cuda")', 'torch.zeros(4, device="cuda")',
     'torch.zeros(4, device="musa")'),
    ("x.cuda()", "x.cuda()", "x.musa()"),
    ("torch.cuda.current_stream()", "torch.cuda.current_stream()",
     "torch.musa.current_stream()"),
    ("torch.cuda.device_count()", "torch.cuda.device_count()", "torch.musa.device_count()"),
    ("torch.zeros(4)", "torch.zeros(4)", "torch.zeros(4)"),
    ("c.to(torch.float16)", "c.to(torch.float16)", "c.to(torch.float16)"),
]

CHILD = r"""
import json, sys, timeit, torch
mode, number, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cases = json.loads(sys.argv[4])
x = torch.ones(4); c = torch.ones(4)
env = {"torch": torch, "x": x, "c": c}
installed = [torch.zeros, torch.Tensor.cuda, torch.Tensor.to, torch.cuda.current_stream,
             torch.cuda.device_count]
out = {"traced_objects": sum(hasattr(f, "__torchada_traced__") for f in installed),
       "times": {}}
for label, cuda, native in cases:
    stmt = native if mode == "native" else cuda
    t = timeit.Timer(stmt, globals=env)
    t.timeit(number // 10)
    out["times"][label] = min(t.repeat(repeat, number)) / number * 1e9
print(json.dumps(out))
"""


def run(mode, number, repeat):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.update(TORCHADA_SIMULATE_MUSA="1", PYTHONPATH=str(ROOT / "src"))
    if mode == "native":
        env["TORCHADA_DISABLE_AREAS"] = "*"
    if mode == "on":
        env["TORCHADA_TRACE"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(number), str(repeat),
                          json.dumps(CASES)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-history", action="store_true", help="print only")
    args = parser.parse_args()
    modes = ("native", "off", "on")
    times = {m: {label: [] for label, _, _ in CASES} for m in modes}
    traced = {m: set() for m in modes}
    for _ in range(args.rounds):
        for mode in modes:
            result = run(mode, args.number, args.repeat)
            traced[mode].add(result["traced_objects"])
            for label, value in result["times"].items():
                times[mode][label].append(value)
    print("counting wrappers installed: off %s, on %s" % (sorted(traced["off"]),
                                                          sorted(traced["on"])))
    print("%-32s %9s %9s %9s %9s" % ("call (median ns)", "native", "off", "on", "on-off"))
    results = {"counting_wrappers": {m: sorted(traced[m]) for m in ("off", "on")}, "ns": {}}
    for label, _, _ in CASES:
        med = {m: statistics.median(times[m][label]) for m in modes}
        med["on_minus_off"] = med["on"] - med["off"]
        results["ns"][label] = med
        print("%-32s %9.0f %9.0f %9.0f %+9.0f" % (label, med["native"], med["off"], med["on"],
                                                 med["on_minus_off"]))
    if not args.no_history:
        sys.path.insert(0, str(Path(__file__).parent))
        import history

        history.append("trace_cost", results, rounds=args.rounds, number=args.number,
                       repeat=args.repeat, torch=_torch_version())


def _torch_version():
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                         capture_output=True, text=True)
    return out.stdout.strip() or None


if __name__ == "__main__":
    main()
