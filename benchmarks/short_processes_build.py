"""Twenty short processes in a row on a cold cache: the compiled operator overrides are built
once, by one detached builder, and no compiler outlives its owner (issue 22 part 1).

Each process is a fresh interpreter on the simulated device (TORCHADA_SIMULATE_MUSA=1,
torch_musa 2.11.0.post1, where the compiled overrides apply) that calls ``torch.log`` once
on a "cuda" tensor and exits. The torchada cache is a new private folder (XDG_CACHE_HOME;
the simulator's own backend comes from the user cache, TORCHADA_SIM_CACHE_DIR, so only the
overrides are cold). After each process the process table is read: a compiler (ninja,
c++, cc1plus, as, ld) working in this cache must belong to a live builder's session, else
it is counted as an orphan. After the last process the run waits for the library and
counts: builders started and builds compiled (the builders' log in the key folder), orphan
compilers seen, ``.build-*`` folders left, and whether the library checks out.

Rerun:  .venv/bin/python benchmarks/short_processes_build.py [--processes 20]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import history  # noqa: E402

COMPILERS = {"ninja", "c++", "g++", "cc1plus", "as", "ld", "collect2"}
BUILDER = b"torchada.areas._kit.detached"
CHILD = 'import torch; torch.log(torch.ones(3, device="cuda"))'


def child_env(cache):
    from torchada._core.files import user_cache_root

    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TORCHADA_") and k != "PYTHONPATH"}
    env.update(TORCHADA_SIMULATE_MUSA="1", TORCHADA_SIM_TORCH_MUSA_VERSION="2.11.0.post1",
               XDG_CACHE_HOME=cache, TORCHADA_SIM_CACHE_DIR=user_cache_root())
    return env


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def compilers_in(cache):
    """[(pid, name, owner alive)] of compiler processes working in ``cache``: owner alive
    when the process's session leader is a running detached builder."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        name = _read("/proc/%d/comm" % pid).decode().strip()
        if name not in COMPILERS:
            continue
        try:
            cwd = os.readlink("/proc/%d/cwd" % pid)
            sid = os.getsid(pid)
        except OSError:
            continue  # ended meanwhile
        if not cwd.startswith(cache):
            continue  # another user of this machine
        found.append((pid, name, BUILDER in _read("/proc/%d/cmdline" % sid)))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--wait", type=float, default=900, help="s to wait for the library")
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    cache = os.path.realpath(tempfile.mkdtemp(prefix="torchada-short-"))
    env = child_env(cache)
    walls, orphans, compilers_seen = [], 0, 0
    for _ in range(args.processes):
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                              text=True, timeout=600)
        walls.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit("a short process failed:\n" + proc.stderr[-3000:])
        seen = compilers_in(cache)
        compilers_seen = max(compilers_seen, len(seen))
        orphans += sum(1 for _, _, owned in seen if not owned)
    build_root = os.path.join(cache, "torchada", "build")
    (key,) = os.listdir(build_root)
    folder = os.path.join(build_root, key)
    library = os.path.join(folder, key + ".so")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from torchada._core import native_cache

    deadline = time.monotonic() + args.wait
    builders_running = True
    while time.monotonic() < deadline:
        builders_running = any(BUILDER in _read("/proc/%s/cmdline" % p)
                               for p in os.listdir("/proc") if p.isdigit())
        if not builders_running and (native_cache.check(library) is None
                                     or native_cache.failure(library)):
            break
        orphans += sum(1 for _, _, owned in compilers_in(cache) if not owned)
        time.sleep(1)
    log = _read(os.path.join(folder, "build.log")).decode("utf-8", "replace").splitlines()
    results = {
        "processes": args.processes,
        "process_wall_s_median": round(statistics.median(walls), 2),
        "builders_started": sum(1 for line in log if ": op_overrides started" in line),
        "builds_compiled": sum(1 for line in log if line.split(": ", 1)[-1].startswith("built ")),
        "builds_failed": sum(1 for line in log if ": failed after" in line),
        "build_s": [float(line.rsplit(" after ", 1)[1].split()[0]) for line in log
                    if " after " in line and line.startswith("torchada builder")],
        "library_ok": native_cache.check(library) is None,
        "orphan_compilers_seen": orphans,
        "most_compilers_at_once": compilers_seen,
        "build_folders_left": sum(1 for name in os.listdir(folder)
                                  if name.startswith(native_cache.WORK_PREFIX)),
    }
    print(json.dumps(results, indent=1))
    if not args.no_history:
        history.append("short_processes_build", results)
    subprocess.run(["rm", "-rf", cache])
    ok = (results["library_ok"] and results["builds_compiled"] == 1
          and results["orphan_compilers_seen"] == 0 and results["build_folders_left"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
