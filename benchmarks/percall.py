"""Per-call cost of translated hot paths, side by side, on the simulated MUSA device.

Three fresh interpreters, each timing the same operations:
  native    torch_musa names ("musa", torch.musa.*), torchada's areas all disabled
  torchada  CUDA names through this torchada (auto-activated by the start-up hook; the C
            prefilter route for device arguments)
  python    the same, on the Python wrappers route (TORCHADA_DEVICE_ROUTE=python)
  upstream  CUDA names through upstream torchada 0.1.103 (explicit ``import torchada``; our
            hook off with TORCHADA_PLATFORM=off; their package imported from --upstream DIR)
Overhead = mode - native, per call. Results are appended to benchmarks/history.jsonl.

    python benchmarks/percall.py [--upstream DIR] [--number N] [--repeat R] [--rounds K]
                                 [--no-history]
"""

import argparse
import json
import os
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMROOT = ROOT / "src" / "torchada" / "testing" / "_simroot"

# label, CUDA spelling, native MUSA spelling
CASES = [
    ("attr torch.cuda.Stream", "torch.cuda.Stream", "torch.musa.Stream"),
    ("torch.cuda.device_count()", "torch.cuda.device_count()", "torch.musa.device_count()"),
    ('torch.device("cuda")', 'torch.device("cuda")', 'torch.device("musa")'),
    ('torch.device("cuda:1")', 'torch.device("cuda:1")', 'torch.device("musa:1")'),
    ("x.cuda()", "x.cuda()", "x.musa()"),
    ('x.to("cuda")', 'x.to("cuda")', 'x.to("musa")'),
    ('torch.zeros(4, device="cuda")', 'torch.zeros(4, device="cuda")',
     'torch.zeros(4, device="musa")'),
    ('torch.empty_like(x, device="cuda")', 'torch.empty_like(x, device="cuda")',
     'torch.empty_like(x, device="musa")'),
    ("torch.cuda.current_stream()", "torch.cuda.current_stream()", "torch.musa.current_stream()"),
    ("torch.backends.cuda.is_built()", "torch.backends.cuda.is_built()",
     "torch.backends.cuda.is_built()"),
    ('torch.zeros(4, device="cpu")', 'torch.zeros(4, device="cpu")',
     'torch.zeros(4, device="cpu")'),
    # CPU-only calls: the same spelling in every mode (issue 14: goal +0)
    ("torch.zeros(4)", "torch.zeros(4)", "torch.zeros(4)"),
    ("torch.ones(2, 2)", "torch.ones(2, 2)", "torch.ones(2, 2)"),
    ("torch.arange(8)", "torch.arange(8)", "torch.arange(8)"),
    ("torch.empty(4, dtype=torch.half)", "torch.empty(4, dtype=torch.half)",
     "torch.empty(4, dtype=torch.half)"),
    ("torch.full((2,), 1.0)", "torch.full((2,), 1.0)", "torch.full((2,), 1.0)"),
    ("torch.zeros_like(c)", "torch.zeros_like(c)", "torch.zeros_like(c)"),
    ("c.new_zeros(4)", "c.new_zeros(4)", "c.new_zeros(4)"),
    ("c.to(torch.float16)", "c.to(torch.float16)", "c.to(torch.float16)"),
    ('c.to("cpu")', 'c.to("cpu")', 'c.to("cpu")'),
]


def child(mode, number, repeat, upstream):
    if mode == "upstream":
        # The simulator's package imports torchada.testing (ours) while loading; after that,
        # drop every torchada module so that `import torchada` finds theirs.
        sys.path.insert(0, str(SIMROOT))
        import torch  # noqa: F401
        import torch_musa  # noqa: F401

        for name in [n for n in sys.modules if n == "torchada" or n.startswith("torchada.")]:
            del sys.modules[name]
        sys.path.insert(0, upstream)
        import torchada

        where = os.path.dirname(torchada.__file__)
        assert where.startswith(os.path.abspath(upstream)), where
    import torch

    if mode in ("torchada", "python"):
        import torchada_boot

        assert torchada_boot.decision[0] == "musa", torchada_boot.decision
    gpu = "musa" if mode == "native" else "cuda"
    env = {"torch": torch, "x": torch.ones(4, device=gpu), "c": torch.ones(4)}
    out = {}
    for label, cuda_stmt, musa_stmt in CASES:
        stmt = musa_stmt if mode == "native" else cuda_stmt
        try:
            code = compile(stmt, "<bench>", "eval")
            eval(code, env)
            timer = timeit.Timer(stmt, globals=env)
            best = min(timer.repeat(repeat=repeat, number=number))
            out[label] = best / number * 1e9
        except Exception as exc:
            out[label] = "error: %s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:80])
    versions = {m: getattr(sys.modules.get(m), "__version__", None)
                for m in ("torch", "torch_musa", "torchada")}
    print(json.dumps({"mode": mode, "ns": out, "versions": versions}))


def run_child(mode, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env.pop("PYTHONPATH", None)
    if mode == "native":
        env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_DISABLE_AREAS="*")
    elif mode == "torchada":
        env.update(TORCHADA_SIMULATE_MUSA="1")
    elif mode == "python":
        env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_DEVICE_ROUTE="python")
    else:
        env.update(TORCHADA_PLATFORM="off")
    cmd = [sys.executable, __file__, "--child", mode, "--number", str(args.number),
           "--repeat", str(args.repeat), "--upstream", args.upstream or ""]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"mode": mode, "error": (proc.stderr or proc.stdout)[-1500:]}
    return json.loads(lines[-1])


def fmt(value):
    return "%8.0f" % value if isinstance(value, float) else "     n/a"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--upstream", default=os.environ.get("TORCHADA_UPSTREAM_DIR"))
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.number, args.repeat, args.upstream)
    modes = ["native", "torchada", "python"] + (["upstream"] if args.upstream else [])
    runs = {}
    for _ in range(args.rounds):  # modes interleaved, best of rounds: fairer on a busy host
        for m in modes:
            r = run_child(m, args)
            if m not in runs or "error" in runs[m]:
                runs[m] = r
            elif "ns" in r:
                for label, v in r["ns"].items():
                    old = runs[m]["ns"].get(label)
                    if isinstance(v, float) and (not isinstance(old, float) or v < old):
                        runs[m]["ns"][label] = v
    for m, r in runs.items():
        if "error" in r:
            print("%s run failed:\n%s" % (m, r["error"]), file=sys.stderr)
    ns = {m: r.get("ns", {}) for m, r in runs.items()}
    header = "%-38s %8s %8s %8s %8s %9s %9s %9s" % (
        "per call (ns)", "native", "ours", "py-route", "upstream", "ours+", "py+", "upstr+")
    print(header)
    print("-" * len(header))
    table = {}
    for label, _, _ in CASES:
        base = ns["native"].get(label)
        row = {"native": base}
        cells = []
        for m in ("torchada", "python", "upstream"):
            v = ns.get(m, {}).get(label)
            row[m] = v
            over = v - base if isinstance(v, float) and isinstance(base, float) else None
            row[m + "_overhead"] = over
            cells.append(over)
        table[label] = row
        print("%-38s %s %s %s %s %s %s %s" % (
            label, fmt(base), fmt(row["torchada"]), fmt(row["python"]), fmt(row["upstream"]),
            *("%+9.0f" % c if c is not None else "      n/a" for c in cells)))
    print("(ours+ / py+ / upstr+: added ns per call over native; ours = the C prefilter "
          "route, py-route = TORCHADA_DEVICE_ROUTE=python)")
    for m, r in runs.items():
        for label, v in r.get("ns", {}).items():
            if isinstance(v, str):
                print("  %s %s: %s" % (m, label, v))
    if not args.no_history:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import history

        versions = runs.get("torchada", {}).get("versions", {})
        history.append("percall", table, versions=versions,
                       upstream_versions=runs.get("upstream", {}).get("versions"),
                       number=args.number, repeat=args.repeat, rounds=args.rounds)


if __name__ == "__main__":
    main()
