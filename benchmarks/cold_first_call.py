"""The first multinomial / log / isfinite call on a cold cache against a warm one (issue 16).

Each sample is a fresh interpreter on the simulated device (TORCHADA_SIMULATE_MUSA=1,
torch_musa 2.11.0.post1, where the compiled overrides apply) that times, around the call
itself, the first ``torch.multinomial``, ``torch.log`` and ``torch.isfinite`` on musa
tensors (the inputs made and the device initialised before). Cold: an empty torchada cache
(XDG_CACHE_HOME), so the extension must be compiled; the compiler is tests/fixtures/
test_cxx.sh in its slow mode (sleeps 60 s, then refuses): it costs no CPU, so the machine's
load does not differ between the two cases, and the child exits without waiting for it
(a daemon thread). Warm: the user cache, with the extension built first (``torchada
build``). Off: the same warm cache with torchada's operator_fixes switched off
(torch_musa's own kernels, the reference a first call costs without the fix). Goal: cold
within 1 ms of warm. Medians over the processes, in ms.

Rerun:  .venv/bin/python benchmarks/cold_first_call.py [--processes 7]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TEST_CXX = ROOT / "tests" / "fixtures" / "test_cxx.sh"
OPS = ("multinomial", "log", "isfinite")

CHILD = r'''
import json, time, torch, torchada
w = torch.tensor([[0.1, 0.2, 0.3, 0.4]], device="cuda")
x = torch.tensor([0.5, 1.0, 4.0], device="cuda")
torch.musa.synchronize()
out = {}
for name, call in (("multinomial", lambda: torch.multinomial(w, 2)),
                   ("log", lambda: torch.log(x)), ("isfinite", lambda: torch.isfinite(x))):
    t = time.perf_counter()
    call()
    out[name] = (time.perf_counter() - t) * 1e3
print(json.dumps(out))
'''


def child_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TORCHADA_") and k != "PYTHONPATH"}
    env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_SIM_TORCH_MUSA_VERSION="2.11.0.post1",
               **{k: str(v) for k, v in extra.items()})
    return env


def sample(env):
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit("child failed:\n" + proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=7)
    args = parser.parse_args()
    from torchada._core.files import user_cache_root

    warm_env = child_env()
    built = subprocess.run([sys.executable, "-m", "torchada", "build"], env=warm_env,
                           capture_output=True, text=True, timeout=900)
    if built.returncode != 0:
        raise SystemExit("torchada build failed:\n" + built.stdout + built.stderr)
    runs = {"cold": [], "warm": [], "off": []}
    for _ in range(args.processes):          # interleaved: the machine's load hits both
        with tempfile.TemporaryDirectory() as cache:
            runs["cold"].append(sample(child_env(
                XDG_CACHE_HOME=cache, TORCHADA_SIM_CACHE_DIR=user_cache_root(),
                CXX=TEST_CXX, TORCHADA_TEST_CXX="slow")))
        runs["warm"].append(sample(warm_env))
        runs["off"].append(sample(child_env(TORCHADA_DISABLE_AREAS="operator_fixes")))
    results = {}
    for op in OPS:
        cold = statistics.median(r[op] for r in runs["cold"])
        warm = statistics.median(r[op] for r in runs["warm"])
        off = statistics.median(r[op] for r in runs["off"])
        results[op] = {"cold_ms": round(cold, 3), "warm_ms": round(warm, 3),
                       "off_ms": round(off, 3), "cold_minus_warm_ms": round(cold - warm, 3)}
    print(json.dumps(results, indent=1))
    history.append("cold_first_call", results, processes=args.processes)


if __name__ == "__main__":
    main()
