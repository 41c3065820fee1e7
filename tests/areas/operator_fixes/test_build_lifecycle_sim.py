"""The compiled overrides' build across processes (issue 22 part 1) and where their probes
run (part 2), on the simulated device, each in fresh processes on a private cache
(XDG_CACHE_HOME; the simulator's own backend from the user cache).

The compiler is tests/fixtures/test_cxx.sh: it refuses torchada's extensions (after 60 s in
its slow mode) and records each start, so "how many builds ran" is counted by the compiler
itself, not by torchada."""
import os
import signal
import time

from tests._fresh import FIXTURES, last_json, run_argv, run_sim, sim_env
from tests._releases import runnable_or_skip

IN_RANGE = runnable_or_skip("<2.11.0.post2")   # cpp_overrides applies below 2.11.0.post2
TEST_CXX = FIXTURES / "test_cxx.sh"

STATUS = """
def status():
    return [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides:" in l]
"""

FIRST_LOG_THEN_WAIT = STATUS + """
import json
from torchada.areas._op_overrides import shared
torch.log(torch.ones(3, device="cuda"))
build = shared.background()
build.wait(300)
print(json.dumps({"done": build.done, "error": str(build.error), "status": status()}))
"""


def _env(tmp_path, **extra):
    from torchada._core.files import user_cache_root

    return dict(TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, XDG_CACHE_HOME=tmp_path / "cache",
                TORCHADA_SIM_CACHE_DIR=user_cache_root(), CXX=TEST_CXX,
                TORCHADA_TEST_CXX_LOG=tmp_path / "compiler.log", **extra)


def _compiler_starts(tmp_path):
    log = tmp_path / "compiler.log"
    return len(log.read_text().split()) if log.exists() else 0


def _key_folder(tmp_path):
    build = tmp_path / "cache" / "torchada" / "build"
    (folder,) = [p for p in build.iterdir() if p.name.startswith("torchada_op_overrides_")]
    return folder


def test_a_failed_build_is_remembered_and_not_retried_by_the_next_process(tmp_path):
    first = last_json(run_sim(FIRST_LOG_THEN_WAIT, **_env(tmp_path)))
    starts = _compiler_starts(tmp_path)
    assert starts >= 1                                   # the builder ran the compiler
    folder = _key_folder(tmp_path)
    marker = folder / (folder.name + ".so.failed")
    reason = marker.read_text().strip()                  # why the builder's build failed
    assert reason.startswith("RuntimeError: "), reason
    assert first["done"] and reason in first["error"], first
    assert not (folder / (folder.name + ".so")).exists()

    second = last_json(run_sim(FIRST_LOG_THEN_WAIT, **_env(tmp_path)))
    assert _compiler_starts(tmp_path) == starts          # no second build
    assert "failed to build before" in second["error"], second
    assert "`torchada build`" in second["error"]
    line = second["status"][0]
    assert "not built: the compiled operator overrides failed to build before" in line, line
    assert reason in line
    builders = (folder / "build.log").read_text().count(": op_overrides started")
    assert builders == 1, (folder / "build.log").read_text()

    doctor = run_argv(["-m", "torchada", "doctor"], env=sim_env(**_env(tmp_path)),
                      check=False)
    assert ("%s.so failed to build (not retried with this key): %s" % (folder.name, reason)
            in " ".join(doctor.stdout.split())), doctor.stdout
    assert "then run `torchada build` (it retries)" in doctor.stdout


def test_torchada_build_forces_a_failed_build_to_run_again(tmp_path):
    last_json(run_sim(FIRST_LOG_THEN_WAIT, **_env(tmp_path)))
    starts = _compiler_starts(tmp_path)
    assert starts >= 1
    proc = run_argv(["-m", "torchada", "build"], env=sim_env(**_env(tmp_path)), check=False,
                    timeout=900)
    assert proc.returncode == 1
    assert _compiler_starts(tmp_path) > starts           # the compiler ran again
    line = [l for l in proc.stdout.splitlines() if l.startswith("compiled operator overrides:")]
    assert "FAILED: the compiled operator overrides did not build" in line[0], proc.stdout
    assert "failed to build before" not in line[0]


def test_a_second_process_during_a_live_build_waits_for_it(tmp_path):
    env = _env(tmp_path, TORCHADA_TEST_CXX="slow")       # the compiler sleeps 60 s
    starter = STATUS + """
import json, os, time
torch.log(torch.ones(3, device="cuda"))
def starts():
    try:
        with open(os.environ["TORCHADA_TEST_CXX_LOG"]) as f:
            return len(f.read().split())
    except OSError:
        return 0
deadline = time.time() + 120          # until the detached builder compiles both sources
while starts() < 2 and time.time() < deadline:
    time.sleep(0.2)
print(json.dumps({"compiling": starts()}))
"""
    builder = None
    try:
        # one build compiles two sources (op_overrides.cpp, kernels_sim.cpp): two starts
        assert last_json(run_sim(starter, **env)) == {"compiling": 2}   # and exited
        folder = _key_folder(tmp_path)
        builder = int((folder / "builder").read_text().split()[0])
        os.kill(builder, 0)                               # outlived the process that started it
        second = last_json(run_sim(STATUS + """
import json, time
torch.log(torch.ones(3, device="cuda"))
time.sleep(3)                         # a second process, while the first build runs
print(json.dumps({"status": status()}))
""", **env))
        assert "building in the background" in second["status"][0], second
        assert _compiler_starts(tmp_path) == 2            # no second build's compilers
        log = (folder / "build.log").read_text()
        assert log.count(": op_overrides started") == 1, log
        assert int((folder / "builder").read_text().split()[0]) == builder
    finally:
        if builder is not None:   # the slow compiler would run on for a minute
            try:
                os.killpg(builder, signal.SIGKILL)
            except ProcessLookupError:
                pass
            time.sleep(0.5)


PROBE_ISOLATION = STATUS + """
import json
from torch.profiler import profile
from torch.utils._python_dispatch import TorchDispatchMode
from torchada.areas._op_overrides import shared

class Seen(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))

x = torch.tensor([1.0, 4.0], device="cuda")
with Seen() as first_mode:
    torch.log(x)                          # the first call: starts the build
assert shared.background().wait(900), "no build in 900 s"
with Seen() as mode, profile() as prof:
    y = torch.log(x)                      # the call that swaps the compiled kernels in
print(json.dumps({"first": [o for o in first_mode.ops if o.startswith("aten.")],
                  "swap": [o for o in mode.ops if o.startswith("aten.")],
                  "profiled": sorted({e.name for e in prof.events() if e.name.startswith("aten::")}),
                  "y": y.cpu().tolist(), "cpu": torch.log(x.cpu()).tolist(),
                  "status": status()}))
"""


def test_the_swap_call_runs_only_the_users_op_under_a_dispatch_mode_and_profiler():
    out = last_json(run_sim(PROBE_ISOLATION, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out["first"] == ["aten.log.default"]
    assert out["swap"] == ["aten.log.default"]
    # the user's log and what it allocates: no probe's tensors, host copies, other ops
    assert set(out["profiled"]) <= {"aten::log", "aten::empty", "aten::empty_like"}, out
    assert out["y"] == out["cpu"]
    assert "compiled: log, log_, multinomial" in out["status"][0], out["status"]


def test_a_probe_that_cannot_run_says_why_for_every_op():
    out = last_json(run_sim(STATUS + """
import json
from torchada.areas._op_overrides import checks, shared
def no_stream(torch, device):
    raise RuntimeError("no stream for the probes")
checks._private_stream = no_stream
x = torch.tensor([1.0, 4.0], device="cuda")
torch.log(x)
assert shared.background().wait(900)
y = torch.log(x)
print(json.dumps({"y": y.cpu().tolist(), "cpu": torch.log(x.cpu()).tolist(),
                  "status": status()}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out["y"] == out["cpu"]
    line = out["status"][0]
    for op in ("log", "log_", "multinomial"):
        assert ("%s left to torch_musa: the probes could not run on musa:0: RuntimeError: "
                "no stream for the probes" % op) in line, line


CAPTURE_ON_ANOTHER_THREAD = STATUS + """
import json, threading, time
from torchada.areas._kit import capture_gate
from torchada.areas._op_overrides import shared
GATE_OFF = False
if GATE_OFF:                          # the counter-case: probes that ignore open captures
    import contextlib
    capture_gate.probing = lambda timeout: contextlib.nullcontext()
x = torch.tensor([1.0, 4.0], device="cuda")
static = torch.ones(4, device="cuda")
graph, side = torch.cuda.CUDAGraph(), torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.graph(graph, stream=side):    # "global" mode, torch.cuda.graph's default
    out = static * 2
    # another thread's first log starts the build's background work (probes included)
    worker = threading.Thread(target=lambda: torch.log(x))
    worker.start(); worker.join()
    open_during = capture_gate.open_captures()
    time.sleep(2.0)                            # the probes would run now
graph.replay()
torch.cuda.synchronize()
assert shared.background().wait(900), "no build in 900 s"
print(json.dumps({"out": out.cpu().tolist(), "open_during": open_during,
                  "open_after": capture_gate.open_captures(), "y": torch.log(x).cpu().tolist(),
                  "cpu": torch.log(x.cpu()).tolist(), "status": status()}))
"""


def test_probes_wait_for_a_capture_open_on_another_thread():
    """A "global"-mode capture on the main thread while another thread's first log starts
    the background probes: the probes (host copies, refused during any capture) wait for the
    capture to end, so the capture completes and every op gets its compiled kernel. The
    counter-case with the wait taken out shows the probes did fall inside the capture."""
    gated = last_json(run_sim(CAPTURE_ON_ANOTHER_THREAD, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert gated["out"] == [2.0, 2.0, 2.0, 2.0]
    assert gated["open_during"] == 1 and gated["open_after"] == 0
    assert gated["y"] == gated["cpu"]
    assert "compiled: log, log_, multinomial" in gated["status"][0], gated["status"]
    code = CAPTURE_ON_ANOTHER_THREAD.replace("GATE_OFF = False", "GATE_OFF = True")
    ungated = last_json(run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    line = ungated["status"][0]
    assert "operation not permitted when stream is capturing" in line, line
