"""Cold build time of the simulator's C++ backend, and the cached (warm) load time.

    python benchmarks/sim_build_time.py [--no-history]

Target: cold build under 60 s on 2 cores, then cached.  The cold build goes to a fresh
temporary cache (TORCHADA_SIM_CACHE_DIR), so the user's cache is not touched.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

WARM = r'''
import time, torch
torch.utils.rename_privateuse1_backend("musa")
from torchada.testing import _backend
t0 = time.perf_counter(); _backend.load(); print(time.perf_counter() - t0)
'''


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, SRC)
    from torchada.testing import _backend

    tmp = tempfile.mkdtemp(prefix="torchada-simbuild-")
    os.environ["TORCHADA_SIM_CACHE_DIR"] = tmp
    try:
        t0 = time.perf_counter()
        _backend.cached_library()
        cold = time.perf_counter() - t0
        env = dict(os.environ, PYTHONPATH=SRC, TORCHADA_PLATFORM="off")
        proc = subprocess.run([sys.executable, "-c", WARM], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            return 1
        warm = float(proc.stdout.strip().splitlines()[-1])
    finally:
        os.environ.pop("TORCHADA_SIM_CACHE_DIR", None)
        shutil.rmtree(tmp, ignore_errors=True)
    cpus = os.cpu_count()
    print(f"cold build: {cold:.1f} s on {cpus} cpus (target < 60 s on 2 cores)")
    print(f"cached load: {warm * 1000:.1f} ms")
    if not args.no_history:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import torch

        from history import append

        append("sim_build_time", {"cold_build_s": round(cold, 2), "cached_load_ms": round(warm * 1000, 1)},
               sim_torch=torch.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
