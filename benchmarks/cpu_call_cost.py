"""CPU-only calls with torchada active, paired in one process with the callable torchada wraps.

On the simulated MUSA device with torchada active (the C prefilter route, then the Python
route), each CPU call that names no CUDA device (``torch.zeros(4)``, ``c.to(torch.half)``,
...) is timed through what torchada installed and through what it wrapped (``__wrapped__``:
torch's builtin, or torch_musa's own ``Tensor.to``), in the same child, interleaved, R rounds
of N calls each. Reported: medians in ns per call, the difference and the ratio. Bar (issue
20), on the C prefilter route (what an installed wheel uses): the installed callable costs at
most 10 ns + 3 % over the wrapped one. The Python route (no compiled prefilter: an sdist
installed without a compiler) is shown for information; it has no bar.

    python benchmarks/cpu_call_cost.py [--number N] [--rounds R] [--no-history]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

# label, how the program spells it (through torchada), the same call on what was wrapped
CASES = [
    ("torch.zeros(4)", "torch.zeros(4)", "torch.zeros.__wrapped__(4)"),
    ("torch.ones(2, 2)", "torch.ones(2, 2)", "torch.ones.__wrapped__(2, 2)"),
    ("torch.arange(8)", "torch.arange(8)", "torch.arange.__wrapped__(8)"),
    ("torch.empty(4, dtype=torch.half)", "torch.empty(4, dtype=torch.half)",
     "torch.empty.__wrapped__(4, dtype=torch.half)"),
    ("torch.full((2,), 1.0)", "torch.full((2,), 1.0)", "torch.full.__wrapped__((2,), 1.0)"),
    ("torch.zeros_like(c)", "torch.zeros_like(c)", "torch.zeros_like.__wrapped__(c)"),
    ("torch.zeros(4, device=\"cpu\")", "torch.zeros(4, device=\"cpu\")",
     "torch.zeros.__wrapped__(4, device=\"cpu\")"),
    ("Tensor.new_zeros(c, 4)", "T.new_zeros(c, 4)", "T.new_zeros.__wrapped__(c, 4)"),
    ("Tensor.to(c, torch.float16)", "T.to(c, torch.float16)",
     "T.to.__wrapped__(c, torch.float16)"),
    ("Tensor.to(c, \"cpu\")", "T.to(c, \"cpu\")", "T.to.__wrapped__(c, \"cpu\")"),
]
BAR_NS, BAR_RATIO = 10.0, 0.03


def child(number, rounds):
    import torch
    import torchada_boot

    assert torchada_boot.decision[0] == "musa", torchada_boot.decision
    scope = {"torch": torch, "T": torch.Tensor, "c": torch.ones(4)}
    out = {}
    for label, ours, wrapped in CASES:
        timers = [timeit.Timer(ours, globals=scope), timeit.Timer(wrapped, globals=scope)]
        for t in timers:
            t.timeit(number // 10)  # warm
        samples = ([], [])
        for _ in range(rounds):
            for i, t in enumerate(timers):
                samples[i].append(t.timeit(number) / number * 1e9)
        a, b = statistics.median(samples[0]), statistics.median(samples[1])
        out[label] = {"torchada_ns": round(a, 1), "wrapped_ns": round(b, 1),
                      "added_ns": round(a - b, 1), "ratio": round(a / b, 4),
                      "within_bar": a - b <= BAR_NS + BAR_RATIO * b}
    print(json.dumps({"route": type(torch.zeros).__name__, "cases": out,
                      "torch": torch.__version__}))


def run_child(route, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.pop("PYTHONPATH", None)
    env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_DEVICE_ROUTE=route)
    proc = subprocess.run([sys.executable, __file__, "--child", "--number", str(args.number),
                           "--rounds", str(args.rounds)], env=env, capture_output=True,
                          text=True, timeout=1200)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit("%s route child failed:\n%s" % (route, proc.stderr[-2000:]))
    return json.loads(lines[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    if args.child:
        return child(args.number, args.rounds)
    table = {}
    for route in ("c", "python"):
        result = run_child(route, args)
        print("route %s (%s), torch %s" % (route, result["route"], result["torch"]))
        print("  %-34s %10s %10s %8s %7s %s" % ("call", "torchada", "wrapped", "added", "ratio",
                                                "bar"))
        for label, row in result["cases"].items():
            print("  %-34s %10.1f %10.1f %+8.1f %7.3f %s" % (
                label, row["torchada_ns"], row["wrapped_ns"], row["added_ns"], row["ratio"],
                ("ok" if row["within_bar"] else "OVER") if route == "c" else "-"))
            if route != "c":
                row = {k: v for k, v in row.items() if k != "within_bar"}
            table["%s_route.%s" % (route, label)] = row
    if not args.no_history:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import history

        history.append("cpu_call_cost", table, number=args.number, rounds=args.rounds,
                       bar="added <= %g ns + %g %% of the wrapped call" % (BAR_NS, BAR_RATIO * 100))


if __name__ == "__main__":
    main()
