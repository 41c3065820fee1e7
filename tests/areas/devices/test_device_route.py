"""The two routes device arguments take (issue 14, part 1): the C prefilter (default), which
sends calls naming no CUDA device straight to torch, and the Python wrappers, which stay the
only place that translates. Both routes give the same results; the device tests run on both."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._fresh import last_json, run_python, run_sim, sim_env

ROOT = Path(__file__).resolve().parents[3]

CALLS = """
import json, os, pickle, sys
x = torch.ones(2, 3)
calls = {
    "zeros_cuda": lambda: torch.zeros(2, device="cuda"),
    "zeros_cuda0": lambda: torch.zeros(2, device="cuda:0"),
    "zeros_cpu": lambda: torch.zeros(2, device="cpu"),
    "zeros_none": lambda: torch.zeros(2),
    "zeros_devobj": lambda: torch.zeros(2, device=torch.device("cuda")),
    "arange": lambda: torch.arange(3, device="cuda"),
    "full_like": lambda: torch.full_like(x, 2.0, device="cuda"),
    "new_zeros": lambda: x.new_zeros(3, device="cuda"),
    "new_zeros_plain": lambda: x.new_zeros(3),
    "to_cuda": lambda: x.to("cuda"),
    "to_cuda_half": lambda: x.to("cuda", torch.half),
    "to_kw": lambda: x.to(device="cuda:0", dtype=torch.float64),
    "to_dtype": lambda: x.to(torch.float16),
    "to_cpu": lambda: x.cuda().to("cpu"),
    "to_tensor": lambda: x.to(torch.zeros(1, device="cuda")),
}
out = {}
for name, fn in calls.items():
    t = fn()
    out[name] = [str(t.device), str(t.dtype), t.cpu().tolist()]
for attempt in ("bad_index", "bad_index_again"):   # the second: a cached translation fails
    try:
        torch.zeros(1, device="cuda:7")
    except Exception as exc:
        out[attempt] = type(exc).__name__ + ": " + str(exc).splitlines()[0]
out["pickle"] = pickle.loads(pickle.dumps(torch.zeros)) is torch.zeros
out["names"] = [torch.zeros.__name__, torch.zeros.__module__, torch.zeros.__doc__ == torch.zeros.__wrapped__.__doc__]
out["route"] = [l for l in str(torchada.status()).splitlines() if "devices " in l][0].split("calls: ")[1].rstrip("]")

# Python frames of torchada run by each call (sys.setprofile sees Python calls only)
OURS = os.path.dirname(torchada.__file__) + os.sep


def frames(fn):
    seen = []
    def prof(frame, event, arg):
        name = frame.f_code.co_filename   # torchada's own code (not the simulated torch_musa)
        if event == "call" and name.startswith(OURS) and "_simroot" not in name:
            seen.append(frame.f_code.co_name)
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen
out["frames_cpu"] = [frames(lambda: torch.zeros(4)), frames(lambda: x.new_zeros(2)),
                     frames(lambda: x.to(torch.float16)), frames(lambda: torch.zeros(4, device="cpu"))]
out["frames_cuda"] = len(frames(lambda: torch.zeros(4, device="cuda"))) > 0   # seen before
print(json.dumps(out))
"""


def test_both_routes_give_the_same_results_and_cpu_calls_run_no_torchada_code():
    c = last_json(run_sim(CALLS, TORCHADA_DEVICE_ROUTE="c"))
    py = last_json(run_sim(CALLS, TORCHADA_DEVICE_ROUTE="python"))
    assert c["route"] == "C prefilter"
    assert py["route"] == "Python wrappers (TORCHADA_DEVICE_ROUTE=python)"
    different = {k for k in c if c[k] != py[k]} - {"route", "frames_cpu", "frames_cuda"}
    assert not different, {k: (c[k], py[k]) for k in different}
    assert c["zeros_cuda"] == ["musa:0", "torch.float32", [0.0, 0.0]]
    assert c["to_cuda_half"] == ["musa:0", "torch.float16", [[1.0] * 3] * 2]
    assert c["zeros_cpu"][0] == c["zeros_none"][0] == c["to_dtype"][0] == "cpu"
    assert c["bad_index"] == c["bad_index_again"] and "CUDA error" in c["bad_index"], c["bad_index"]
    assert c["pickle"] is True and c["names"] == ["zeros", "torch", True]
    assert c["frames_cpu"] == [[], [], [], []]            # straight to torch
    assert all(py["frames_cpu"][:3]) and py["frames_cuda"]
    # a cuda spelling the device map has translated before is swapped in C, too
    assert c["frames_cuda"] is False


# The compiled module hidden as an install without it (an sdist built without a compiler)
# would leave it: ``import`` of a name mapped to None raises ImportError naming it.
HIDE_PREFILTER = "import sys; sys.modules['torchada.areas._fastpath._prefilter'] = None\n"


def test_without_the_compiled_prefilter_the_python_route_serves_and_status_says_why():
    from torchada.areas._fastpath import NOT_BUILT

    c = last_json(run_sim(CALLS, TORCHADA_DEVICE_ROUTE="c"))
    proc = run_python(HIDE_PREFILTER + "import torch, torchada\n" + CALLS
                      + "print(torchada.status())", env=sim_env(TORCHADA_DEVICE_ROUTE="c"))
    hidden = last_json(proc)
    assert hidden["route"] == "Python wrappers (%s)" % NOT_BUILT
    different = {k for k in c if c[k] != hidden[k]} - {"route", "frames_cpu", "frames_cuda"}
    assert not different, {k: (c[k], hidden[k]) for k in different}
    assert hidden["zeros_cuda"] == ["musa:0", "torch.float32", [0.0, 0.0]]
    status = [line for line in proc.stdout.splitlines() if not line.startswith("{")]
    assert sum(NOT_BUILT in line for line in status) == 1, status   # one line says why
    # no warning of torchada's (torch's own start-up lines, e.g. 2.7.1's, are not ours)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not [line for line in proc.stderr.splitlines() if "torchada" in line.lower()], proc.stderr


def test_nothing_is_compiled_or_written_at_exit(tmp_path):
    """The prefilter ships built: a first start on a fresh cache runs no compiler, at import
    or at exit, and leaves the cache as it found it."""
    marker = tmp_path / "compiler-ran"
    compiler = tmp_path / "cxx"
    compiler.write_text("#!/bin/sh\necho \"$@\" >> %s\nexit 1\n" % marker)
    compiler.chmod(0o755)
    cache = tmp_path / "cache"
    from torchada._core.files import user_cache_root

    out = last_json(run_sim(CALLS, TORCHADA_DEVICE_ROUTE="c", CXX=str(compiler), CC=str(compiler),
                            XDG_CACHE_HOME=str(cache), TORCHADA_SIM_CACHE_DIR=user_cache_root()))
    assert out["route"] == "C prefilter"
    assert not marker.exists()
    assert not (cache / "torchada" / "build").exists()


def test_cache_root_equals_platformdirs():
    from platformdirs import user_cache_dir

    from torchada._core.files import user_cache_root

    assert user_cache_root() == user_cache_dir("torchada")


@pytest.mark.skipif(os.environ.get("TORCHADA_TEST_DEVICE_ROUTE") == "python",
                    reason="this is the nested run")
def test_the_device_tests_pass_on_the_python_route():
    env = dict(os.environ, TORCHADA_TEST_DEVICE_ROUTE="python")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "no:xdist", str(ROOT / "tests" / "areas" / "devices"),
                           str(ROOT / "tests" / "compile")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    tail = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0 and " passed" in tail, proc.stdout[-3000:]
