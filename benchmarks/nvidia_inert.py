"""Prove on a CUDA machine that torchada is inert and free there (issue 05). One command:

    python3 benchmarks/nvidia_inert.py --wheel dist/torchada-*.whl [--extra-wheels DIR] [--out DIR]

Run it with the python that holds the CUDA build of torch. It makes two throwaway venvs that
see that torch (a .pth naming its site-packages) and differ only in torchada being installed
(the wheel, with its torchada_autoload.pth), then, side by side:
  1. identity: a snapshot of torch attributes (factories, Tensor/Module methods, torch.cuda.*,
     distributed, cpp_extension ...) and sys.meta_path must be equal in both; torchada.status()
     must say platform cuda with nothing applied;
  2. the tests that apply on a CUDA machine, with torchada installed;
  3. the tests/programs corpus natively on CUDA, in both venvs: same JSON output;
  4. timings, interleaved: `python -c pass`, `python -c "import torch"`, explicit
     `import torchada`, and per-call times of the issue-03 operations with real "cuda" names.
Results are printed, written to OUT/nvidia_inert.json and appended to benchmarks/history.jsonl.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import history  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if not k.startswith("TORCHADA_") and k != "PYTHONPATH"}
ENV["PYTHONUNBUFFERED"] = "1"

SNAPSHOT = r"""
import json, sys
import torch, torch.distributed, torch.utils.cpp_extension, torch.utils.data
owners = {
  'torch': ['device', 'zeros', 'ones', 'empty', 'full', 'rand', 'randn', 'randint', 'arange',
            'tensor', 'as_tensor', 'empty_like', 'zeros_like', 'Generator', 'load', 'autocast'],
  'torch.Tensor': ['cuda', 'to', 'pin_memory', 'new_zeros', 'is_cuda'],
  'torch.nn.Module': ['cuda', 'to'],
  'torch.cuda': sorted(n for n in dir(torch.cuda) if not n.startswith('_')),
  'torch.distributed': ['init_process_group', 'is_nccl_available', 'Backend'],
  'torch.utils.cpp_extension': ['CUDAExtension', 'BuildExtension', 'CUDA_HOME', 'load'],
  'torch.utils.data': ['DataLoader'],
  'torch.backends.cuda': ['is_built'],
}
snap = {}
for name, attrs in owners.items():
    owner = eval(name)
    for a in attrs:
        obj = owner.__dict__.get(a) if isinstance(owner, type) and a in owner.__dict__ else getattr(owner, a, None)
        snap[name + '.' + a] = '%s|%s|%s' % (type(obj).__name__, getattr(obj, '__module__', None),
                                             getattr(obj, '__qualname__', None))
status = None
try:
    import torchada
    r = torchada.status()
    status = {'platform': r.platform, 'detected': torchada.detect_platform().value,
              'applied': r.by_state('applied'), 'active': r.active}
except ImportError:
    pass
print(json.dumps({'meta_path': [type(f).__name__ for f in sys.meta_path], 'snap': snap,
                  'status': status, 'cuda': torch.cuda.is_available(), 'torch': torch.__version__}))
"""

PERCALL = r"""
import json, timeit, torch
x = torch.ones(4)
y = torch.ones(4, device='cuda')
cases = {
  'attr torch.cuda.Stream': lambda: torch.cuda.Stream,
  'torch.cuda.device_count()': lambda: torch.cuda.device_count(),
  'torch.device("cuda")': lambda: torch.device('cuda'),
  'torch.device("cuda:0")': lambda: torch.device('cuda:0'),
  'x.cuda()': lambda: x.cuda(),
  'x.to("cuda")': lambda: x.to('cuda'),
  'torch.zeros(4, device="cuda")': lambda: torch.zeros(4, device='cuda'),
  'torch.empty_like(y, device="cuda")': lambda: torch.empty_like(y, device='cuda'),
  'torch.cuda.current_stream()': lambda: torch.cuda.current_stream(),
  'torch.backends.cuda.is_built()': lambda: torch.backends.cuda.is_built(),
}
out = {}
for name, fn in cases.items():
    for _ in range(200): fn()
    n = 20000 if name.startswith('attr') else 5000
    out[name] = min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e9   # ns per call
torch.cuda.synchronize()
print(json.dumps(out))
"""


def run(python, args, **kw):
    return subprocess.run([str(python), *args], env=kw.pop("env", ENV), capture_output=True,
                          text=True, **kw)


def make_venv(path, torch_sites, wheels=()):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = Path(run(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    check=True).stdout.strip())
    # "aaa" sorts first, so torch's site is on sys.path before any other .pth line runs.
    (site / "aaa_cuda_torch_site.pth").write_text("\n".join(torch_sites) + "\n")
    if wheels:
        # Byte-compiled, as a normal pip install is (import times then match real use).
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                        "--target", str(site), *map(str, wheels)], check=True)
    return python


def median_wall(python, code, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(python), "-c", code], env=ENV, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def interleaved(pythons, code, runs):
    samples = {k: [] for k in pythons}
    for _ in range(runs):
        for key, python in pythons.items():
            samples[key] += median_wall(python, code, 1)
    return {k: round(statistics.median(v) * 1e3, 3) for k, v in samples.items()}


def programs(pythons):
    results = {}
    for prog in sorted((ROOT / "tests" / "programs").glob("p[0-9][0-9]_*.py")):
        outs = {}
        for key, python in pythons.items():
            proc = run(python, [prog.name], cwd=str(prog.parent), timeout=600)
            lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
            outs[key] = {"rc": proc.returncode, "json": json.loads(lines[-1]) if lines else None,
                         "err": proc.stderr[-800:] if proc.returncode else ""}
        a, b = outs["without"], outs["with"]
        results[prog.name] = {"passed_without": a["rc"] == 0, "passed_with": b["rc"] == 0,
                              "same_output": _same(a["json"], b["json"]),
                              "errors": [a["err"], b["err"]] if a["err"] or b["err"] else []}
    return results


def _same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        return all(k in a and k in b and (k == "facts" and set(a[k]) == set(b[k]) or _same(a[k], b[k]))
                   for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))
    return a == b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", required=True, type=Path)
    parser.add_argument("--extra-wheels", type=Path, help="folder of wheels torchada needs there")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--test-timeout", type=int, default=300)
    parser.add_argument("--percall-rounds", type=int, default=4)
    parser.add_argument("--tests", default="tests/core tests/porting",
                        help="test paths that apply on a CUDA machine")
    args = parser.parse_args()
    import torch

    torch_sites = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
                          str(Path(torch.__file__).parent.parent)})
    extra = sorted(args.extra_wheels.glob("*.whl")) if args.extra_wheels else []
    report = {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
              "torch": torch.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        pythons = {"without": make_venv(Path(tmp) / "without", torch_sites, extra),
                   "with": make_venv(Path(tmp) / "with", torch_sites, [args.wheel, *extra])}
        # A second venv without torchada: its ratio to "without" is the noise floor of this host.
        timed = dict(pythons, control=make_venv(Path(tmp) / "control", torch_sites, extra))
        snaps = {k: json.loads(run(p, ["-c", SNAPSHOT], check=True).stdout) for k, p in pythons.items()}
        report["identity"] = {
            "snapshot_equal": snaps["with"]["snap"] == snaps["without"]["snap"],
            "attributes_compared": len(snaps["with"]["snap"]),
            "meta_path_equal": snaps["with"]["meta_path"] == snaps["without"]["meta_path"],
            "meta_path": snaps["with"]["meta_path"],
            "status_with": snaps["with"]["status"],
            "cuda_available": snaps["with"]["cuda"],
        }
        args.out.mkdir(parents=True, exist_ok=True)
        try:
            tests = run(pythons["with"], ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "8",
                                          *args.tests.split(), "-k", "not editable"],
                        cwd=str(ROOT), timeout=args.test_timeout)
            log, code = tests.stdout + tests.stderr, tests.returncode
        except subprocess.TimeoutExpired as exc:
            log, code = "timed out after %ss\n%s" % (args.test_timeout, exc.stdout or ""), "timeout"
        report["tests"] = {"paths": args.tests, "returncode": code,
                           "summary": [l for l in log.strip().splitlines() if " passed" in l or " failed" in l][-1:]}
        (args.out / "nvidia_tests.log").write_text(log)
        report["programs"] = programs(pythons)
        report["startup_ms"] = {
            "python -c pass": interleaved(timed, "pass", 3 * args.runs),
            "python -c 'import torch'": interleaved(timed, "import torch", args.runs),
        }
        for key, value in report["startup_ms"].items():
            value["ratio"] = round(value["with"] / value["without"], 4)
            value["noise_ratio_control"] = round(value["control"] / value["without"], 4)
        imp = [float(run(timed["with"], ["-c", "import time; t=time.perf_counter(); import torchada; "
                                           "print(time.perf_counter()-t)"], check=True).stdout)
               for _ in range(args.runs)]
        report["explicit_import_torchada_ms"] = round(statistics.median(imp) * 1e3, 3)
        percall = {}
        for _ in range(args.percall_rounds if report["identity"]["cuda_available"] else 0):
            for key, python in timed.items():  # interleaved rounds, one process each
                got = json.loads(run(python, ["-c", PERCALL], check=True).stdout)
                for case, ns in got.items():
                    percall.setdefault(case, {}).setdefault(key, []).append(ns)
        report["percall_ns"] = {
            case: {"without": round(min(v["without"]), 1), "with": round(min(v["with"]), 1),
                   "control": round(min(v["control"]), 1),
                   "ratio": round(min(v["with"]) / min(v["without"]), 4),
                   "noise_ratio_control": round(min(v["control"]) / min(v["without"]), 4)}
            for case, v in percall.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "nvidia_inert.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    history.append("nvidia_inert", report)


if __name__ == "__main__":
    main()
