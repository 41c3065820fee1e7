"""What the CPU fallback (issue 21 part 3) and verify (part 4) cost, on the simulated device.

One child (TORCHADA_SIMULATE_MUSA=1, the release's operator table enforced), interleaved
rounds, medians of ns per call:
  covered : ops torch_musa has kernels for (add, mul_, sum, mm, relu on small musa tensors),
            with the cpu_fallback area applied (its kernels registered for the missing ops)
            vs the same area reverted in the same process (torchada.revert / reapply, four
            alternating blocks a round). Goal: ratio 1.00 within noise: covered ops never
            reach the fallback.
  missing : a missing op (special.chebyshev_polynomial_t, 256 float32) through the fallback
            vs the same op on CPU tensors (what the copies add; information).
  verify  : the covered ops with verify's dispatch mode entered vs not (information: what
            TORCHADA_VERIFY=1 costs; off, nothing is installed).

Rerun:  .venv/bin/python benchmarks/cpu_fallback_cost.py [--rounds 15] [--calls 2000]
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
import json, statistics, sys, time, warnings, torch, torchada
from torchada._core import trace
from torchada.areas._verify import findings, mode, modpath
rounds, calls = int(sys.argv[1]), int(sys.argv[2])
warnings.simplefilter("ignore")
a = torch.rand(16, device="cuda"); b = torch.rand(16, device="cuda")
m = torch.rand(8, 8, device="cuda")
xm = torch.rand(256, device="cuda"); xc = xm.cpu()
def covered():
    a.add(b); a.mul_(1.0); a.sum(); m.mm(m); a.relu()
def per_call(fn):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls * 1e9
verifier = mode.Verifier(torch, "musa", findings.Findings("all", 1 << 31, 0),
                         modpath.ModulePaths(torch, trace._is_user_file), lambda: None)
vmode = mode.dispatch_mode(torch, verifier)
cheb = torch.special.chebyshev_polynomial_t
out = {k: [] for k in ("covered_fallback", "covered_reverted", "missing_fallback",
                       "missing_cpu", "covered_verify", "covered_plain")}
covered(); cheb(xm, 3)
for r in range(rounds):
    for state in ("on", "off", "off", "on") if r % 2 == 0 else ("off", "on", "on", "off"):
        if state == "off":
            torchada.revert("cpu_fallback")
            covered()  # one untimed call after the dispatch tables changed
            out["covered_reverted"].append(per_call(covered))
            torchada.reapply("cpu_fallback")
        else:
            covered()
            out["covered_fallback"].append(per_call(covered))
    out["missing_fallback"].append(per_call(lambda: cheb(xm, 3)))
    out["missing_cpu"].append(per_call(lambda: cheb(xc, 3)))
    with vmode:
        out["covered_verify"].append(per_call(covered))
    out["covered_plain"].append(per_call(covered))
assert "cpu_fallback" in [a.name for a in torchada.status().areas if a.state == "applied"]
print(json.dumps({k: statistics.median(v) for k, v in out.items()}))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_")}
    env["TORCHADA_SIMULATE_MUSA"] = "1"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(args.rounds), str(args.calls)],
                          env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    results = {}
    for name, on, off in (("covered", "covered_fallback", "covered_reverted"),
                          ("missing", "missing_fallback", "missing_cpu"),
                          ("verify", "covered_verify", "covered_plain")):
        results[name] = {"with_ns": round(got[on]), "without_ns": round(got[off]),
                         "ratio": round(got[on] / got[off], 3)}
        print("%-8s with %9.0f ns  without %9.0f ns  ratio %.3f"
              % (name, got[on], got[off], got[on] / got[off]))
    results.update(rounds=args.rounds, calls=args.calls)
    if not args.no_history:
        history.append("cpu_fallback_cost", results)


if __name__ == "__main__":
    main()
