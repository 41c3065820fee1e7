"""The two routes device arguments take (issue 14, part 1): the C prefilter (default), which
sends calls naming no CUDA device straight to torch, and the Python wrappers, which stay the
only place that translates. Both routes give the same results; the device tests run on both."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._fresh import last_json, run_sim

ROOT = Path(__file__).resolve().parents[3]

CALLS = """
import json, pickle, sys
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
def frames(fn):
    seen = []
    def prof(frame, event, arg):
        name = frame.f_code.co_filename   # torchada's own code (not the simulated torch_musa)
        if event == "call" and "torchada" in name and "_simroot" not in name:
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


def ensure_built(**env):
    """The first process on a machine builds the prefilter as it exits."""
    return run_sim("print(torchada.status())", TORCHADA_DEVICE_ROUTE="c", **env)


def test_both_routes_give_the_same_results_and_cpu_calls_run_no_torchada_code():
    ensure_built()
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


def test_first_start_builds_at_exit_and_a_failed_build_is_retried_only_a_day_later(tmp_path):
    from torchada._core.files import user_cache_root

    def run(root, **extra):
        env = dict(XDG_CACHE_HOME=root, TORCHADA_SIM_CACHE_DIR=user_cache_root(),
                   TORCHADA_DEVICE_ROUTE="c", **extra)
        return last_json(run_sim(CALLS, **env))

    fresh = tmp_path / "fresh"
    first, second = run(fresh), run(fresh)
    assert first["route"] == ("Python wrappers (first start on this machine: the prefilter "
                              "is built when it exits)")
    assert second["route"] == "C prefilter"
    broken = tmp_path / "broken"
    first, again = run(broken, CXX="/bin/false"), run(broken, CXX="/bin/false")
    assert first["route"].startswith("Python wrappers (first start")
    assert again["route"].startswith("Python wrappers (the prefilter did not build on this "
                                     "machine before")
    assert first["zeros_cuda"] == again["zeros_cuda"] == ["musa:0", "torch.float32", [0.0, 0.0]]
    # a day later (a compiler may have been installed since) the build is tried again
    import time

    (failed,) = broken.rglob("FAILED")
    day_ago = time.time() - 24 * 3600 - 60
    os.utime(failed, (day_ago, day_ago))
    later, after = run(broken), run(broken)
    assert later["route"].startswith("Python wrappers (first start"), later["route"]
    assert after["route"] == "C prefilter" and not failed.exists()


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
