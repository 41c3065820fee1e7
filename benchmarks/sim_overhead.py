"""Added cost per small op on the simulated musa device versus the same op on CPU.

    python benchmarks/sim_overhead.py [--iters 20000] [--no-history]

Target: under 5 us per op.  The measurement runs in a child interpreter on the simulator
(rename_privateuse1_backend is once per process); this process records the result.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

CHILD = r'''
import json, sys, time, torch, torch_musa
iters = int(sys.argv[1])
def bench(fn):
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e6
res = {}
for dev in ("cpu", "musa"):
    a = torch.randn(16, 16, device=dev); b = torch.randn(16, 16, device=dev); v = torch.randn(64, device=dev)
    ops = {
        "add": lambda: a + b,
        "mul_": lambda: v.mul_(1.0),
        "relu": lambda: torch.relu(a),
        "sum": lambda: a.sum(),
        "mm_16": lambda: a @ b,
        "view_setitem": lambda: v.__setitem__(slice(0, 4), 1.0),
    }
    res[dev] = {name: bench(fn) for name, fn in ops.items()}
out = {name: {"cpu_us": round(res["cpu"][name], 3), "musa_us": round(res["musa"][name], 3),
              "added_us": round(res["musa"][name] - res["cpu"][name], 3)} for name in res["cpu"]}
print(json.dumps({"torch": torch.__version__, "torch_musa": torch_musa.__version__, "ops": out}))
'''


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(SRC, "torchada", "testing", "_simroot"), SRC])
    env["PYTHONWARNINGS"] = "ignore::UserWarning"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(args.iters)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        return 1
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"{'op':<14}{'cpu us':>10}{'musa us':>10}{'added us':>10}")
    for name, r in data["ops"].items():
        print(f"{name:<14}{r['cpu_us']:>10.2f}{r['musa_us']:>10.2f}{r['added_us']:>10.2f}")
    worst = max(r["added_us"] for r in data["ops"].values())
    mean = sum(r["added_us"] for r in data["ops"].values()) / len(data["ops"])
    print(f"added per op: mean {mean:.2f} us, worst {worst:.2f} us (target < 5 us)")
    if not args.no_history:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from history import append

        append("sim_overhead", {"ops": data["ops"], "mean_added_us": round(mean, 3),
                                "worst_added_us": round(worst, 3), "iters": args.iters},
               sim_torch=data["torch"], sim_torch_musa=data["torch_musa"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
