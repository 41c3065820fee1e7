"""No call waits on a compiler (issue 16 part 3) and the compiled kernels check what they
rely on when they are swapped in (part 4), on the simulated device. Numbers are compared
with the CPU's; "which kernel answers" is read from the dispatcher's table."""
import time

from tests._fresh import FIXTURES, clean_env, last_json, run_argv, run_sim, sim_env
from tests._releases import runnable_or_skip

IN_RANGE = runnable_or_skip("<2.11.0.post2")   # cpp_overrides applies below 2.11.0.post2

TABLE = """
def answering(op):
    row = [l for l in torch._C._dispatch_dump_table("aten::" + op).splitlines()
           if l.startswith("PrivateUse1:")]
    # torch 2.7 registers a Python kernel without its source location ("/dev/null"); later
    # releases name the registering file (overrides.py for the interim kernels)
    python = "overrides.py" in row[0] or "registered at /dev/null:" in row[0]
    return "compiled" if "op_overrides.cpp" in row[0] else "python" if python else "torch_musa"
def status():
    return [l.strip() for l in str(torchada.status()).splitlines()
            if "cpp_overrides:" in l or "isfinite_async:" in l]
"""


# A compiler that refuses torchada's extensions (after sleeping 60 s, if asked) and passes
# everything else to c++: tests/fixtures/test_cxx.sh.
TEST_CXX = FIXTURES / "test_cxx.sh"


def test_first_calls_on_a_cold_cache_answer_at_once_while_the_compiler_runs_elsewhere(tmp_path):
    from torchada._core.files import user_cache_root

    log = tmp_path / "compiler.log"
    code = TABLE + """
import json, os, time
x = torch.tensor([0.5, 1.0, 4.0, 0.0, float("inf")])
w = torch.tensor([[0.0, 0.0, 3.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
s = torch.tensor([1.0, float("inf"), float("nan"), -2.0])
xd, wd, sd = x.cuda(), w.cuda(), s.cuda()
t0 = time.perf_counter(); got_log = torch.log(xd); t_log = time.perf_counter() - t0
t0 = time.perf_counter(); got_mn = torch.multinomial(wd, 1); t_mn = time.perf_counter() - t0
t0 = time.perf_counter(); got_fin = torch.isfinite(sd); t_fin = time.perf_counter() - t0
returned = time.time()
deadline = time.time() + 120        # the build thread starts the compiler meanwhile
while not os.path.exists(os.environ["TORCHADA_TEST_CXX_LOG"]) and time.time() < deadline:
    time.sleep(0.2)
print(json.dumps({
    "seconds": [t_log, t_mn, t_fin], "returned": returned,
    "log": got_log.cpu().tolist(), "log_cpu": torch.log(x).tolist(),
    "multinomial": got_mn.cpu().tolist(), "isfinite": got_fin.cpu().tolist(),
    "isfinite_cpu": torch.isfinite(s).tolist(),
    "answering": [answering("log"), answering("multinomial")], "status": status()}))
"""
    started = time.time()
    proc = run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, XDG_CACHE_HOME=tmp_path,
                   TORCHADA_SIM_CACHE_DIR=user_cache_root(), CXX=TEST_CXX,
                   TORCHADA_TEST_CXX="slow", TORCHADA_TEST_CXX_LOG=log)
    wall = time.time() - started
    out = last_json(proc)
    # each first call returned in well under the compiler's 60 s (no compiler in the call)
    assert max(out["seconds"]) < 5, out["seconds"]
    assert out["log"] == out["log_cpu"] and out["multinomial"] == [[2], [0]]
    assert out["isfinite"] == out["isfinite_cpu"]
    assert out["answering"] == ["python", "python"]      # the interim kernels answered
    assert all("building in the background" in line for line in out["status"]), out["status"]
    first_compiler_start = float(log.read_text().split()[0])
    assert first_compiler_start > out["returned"] - 60  # this run's compiler, started...
    # ...and the process exited without waiting for it (daemon thread)
    assert wall < 55, wall


WARM_THEN = TABLE + """
import json
from torchada.areas._op_overrides import shared
x = torch.tensor([0.5, 1.0, 4.0, 0.0, float("inf")])
first = torch.log(x.cuda()).cpu().tolist()
assert shared.background().wait(900), "no build in 900 s"
"""


def test_later_calls_use_the_compiled_kernels_once_built():
    proc = run_sim(WARM_THEN + """
import sys
before = [answering("log"), answering("multinomial"), answering("isfinite")]
print("SWAP-POINT", file=sys.stderr, flush=True)
later = torch.log(x.cuda()).cpu().tolist()
fin = torch.isfinite(torch.tensor([1.0, float("nan")], device="cuda")).cpu().tolist()
after = [answering("log"), answering("multinomial"), answering("isfinite")]
print(json.dumps({"first": first, "later": later, "cpu": torch.log(x).tolist(), "fin": fin,
                  "before": before, "after": after, "status": status()}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, TORCHADA_DEBUG_CPP_OPS="1")
    out = last_json(proc)
    assert out["first"] == out["cpu"] and out["later"] == out["cpu"]
    assert out["fin"] == [True, False]
    assert out["before"] == ["python", "python", "python"]
    assert out["after"] == ["compiled", "compiled", "compiled"]
    assert any(l.startswith("operator_fixes") and "cpp_overrides: compiled: log, log_, "
               "multinomial (ready in" in l for l in out["status"]), out["status"]
    # the call log: nothing compiled ran before the swap; the user's later call did
    before_swap, after_swap = proc.stderr.split("SWAP-POINT")
    assert "torchada cpp op" not in before_swap
    assert "torchada cpp op: log(Float[5]) on musa:0" in after_swap


def test_no_swap_inside_a_capture_the_next_call_outside_does_it():
    out = last_json(run_sim(WARM_THEN + """
y = torch.tensor([1.0, 4.0], device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    z = torch.log(y)                              # the first call after the build: in capture
    inside = [answering("log"), status()]
y.copy_(torch.tensor([2.0, 8.0]))
g.replay()
replayed = z.cpu().tolist()
torch.log(y)                                      # outside capture: the swap happens here
print(json.dumps({"inside": inside, "replayed": replayed,
                  "cpu": torch.log(torch.tensor([2.0, 8.0])).tolist(),
                  "after": answering("log"), "status": status()}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out["inside"][0] == "python"
    assert any("swapped in at the next call outside graph capture (1 calls in capture so far)"
               in l for l in out["inside"][1]), out["inside"][1]
    assert out["replayed"] == out["cpu"]
    assert out["after"] == "compiled"


def test_a_generator_without_philox_offsets_makes_multinomial_stand_aside():
    """torch_musa's generator keeps a Philox offset (MUSAGeneratorImpl.cpp:287-302 at
    2.7.1), and so does the simulator's; this program swaps in a CPU generator, which keeps
    none, as the device's default: the compiled multinomial must not install."""
    out = last_json(run_sim(TABLE + """
import json
from torchada.areas._op_overrides import shared
w = torch.tensor([[0.0, 0.0, 3.0, 0.0], [1.0, 0.0, 0.0, 0.0]], device="cuda")
# (default_generators exists once the device is initialised, as in torch_musa)
torch.musa.default_generators = (torch.Generator(),) + tuple(torch.musa.default_generators[1:])
torch.multinomial(w, 1)
assert shared.background().wait(900)
got = torch.multinomial(w, 1).cpu().tolist()       # the swap: multinomial stands aside
again = torch.multinomial(w, 1).cpu().tolist()
log = torch.log(torch.tensor([4.0], device="cuda")).cpu().tolist()
print(json.dumps({"got": got, "again": again, "log": log, "cpu": torch.log(torch.tensor([4.0])).tolist(),
                  "answering": [answering("multinomial"), answering("log")], "status": status()}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out["got"] == out["again"] == [[2], [0]] and out["log"] == out["cpu"]
    assert out["answering"] == ["torch_musa", "compiled"]
    line = [l for l in out["status"] if "cpp_overrides:" in l][0]
    assert "compiled: log, log_ (" in line
    assert ("multinomial left to torch_musa: the musa:0 generator keeps no Philox offset "
            "(RuntimeError: CPU Generator does not use offset)") in line


def build(*args, env):
    return run_argv(["-m", "torchada", "build", *args], env=env, check=False, timeout=900)


def test_build_command_builds_every_piece_this_machine_needs():
    proc = build(env=sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outcomes = dict(line.split(":", 1) for line in proc.stdout.splitlines())
    assert sorted(outcomes) == ["compiled operator overrides", "graph executable extension",
                                "simulator backend"], proc.stdout
    for name, outcome in outcomes.items():
        outcome = outcome.strip()
        assert outcome == "already built" or outcome.startswith("built ("), (name, outcome)


def test_build_command_names_what_failed(tmp_path):
    from torchada._core.files import user_cache_root

    proc = build(env=sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, XDG_CACHE_HOME=tmp_path,
                             TORCHADA_SIM_CACHE_DIR=user_cache_root(), CXX=TEST_CXX))
    assert proc.returncode == 1
    line = [l for l in proc.stdout.splitlines() if l.startswith("compiled operator overrides:")]
    assert line and "FAILED: the compiled operator overrides did not build" in line[0], proc.stdout
    assert ("torchada build: failed: compiled operator overrides, graph executable extension"
            in proc.stderr), proc.stderr


def test_build_command_with_cxx_false_names_each_piece_that_failed(tmp_path):
    from torchada._core.files import user_cache_root

    proc = build("--simulate", env=clean_env(XDG_CACHE_HOME=tmp_path, CXX="/bin/false",
                                             TORCHADA_SIM_CACHE_DIR=user_cache_root(),
                                             TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("simulator backend:"), lines  # (c++ on PATH, not CXX)
    assert lines[1].startswith("compiled operator overrides:     FAILED: the compiled operator "
                               "overrides did not build"), lines
    assert lines[2].startswith("graph executable extension:      FAILED: the graph executable "
                               "extension did not build"), lines
    assert ("torchada build: failed: compiled operator overrides, graph executable extension"
            in proc.stderr), proc.stderr


def test_build_command_off_musa_needs_nothing():
    proc = build(env=clean_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "compiled operator overrides:     not needed here (torch has no musa device: not a "
        "MUSA machine)",
        "graph executable extension:      not needed here (torch has no musa device: not a "
        "MUSA machine)"]


def test_help_lists_build():
    proc = run_argv(["-m", "torchada", "--help"], env=clean_env())
    assert "  build [--simulate]" in proc.stdout


def test_the_interim_route_without_get_kernel_reaches_torch_musas_out_kernels():
    """torch < 2.9 has no torch.library.get_kernel: the interim kernels then call the ops'
    out= overloads, which torch_musa registers itself (musa_functions.yaml:798, :2623)."""
    out = last_json(run_sim("""
import json
from torchada.areas._kit import kernels
kernels.native_kernel = lambda *args, **kwargs: None     # what torch < 2.9 gives
from torchada.areas._op_overrides import interim
log, multinomial = interim.kernel(torch, "log"), interim.kernel(torch, "multinomial")
x = torch.tensor([0.5, 1.0, 4.0, 0.0])
i = torch.tensor([1, 2, 8])
c = torch.tensor([1 + 1j, -2 + 0.5j])
w = torch.tensor([[0.0, 0.0, 3.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
got = {"f32": log(None, x.cuda()), "int": log(None, i.cuda()), "complex": log(None, c.cuda()),
       "multinomial": multinomial(None, w.cuda(), 1)}
ref = {"f32": torch.log(x), "int": torch.log(i), "complex": torch.log(c),
       "multinomial": torch.tensor([[2], [0]])}
print(json.dumps({k: [str(got[k].dtype) == str(ref[k].dtype), got[k].device.type,
                      torch.equal(got[k].cpu(), ref[k])] for k in got}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out == {k: [True, "musa", True] for k in ("f32", "int", "complex", "multinomial")}


def test_a_swap_that_raises_never_reaches_the_users_call():
    out = last_json(run_sim(WARM_THEN + """
class Broken:                      # an extension whose registration fails
    def install(self, ops, debug):
        raise RuntimeError("registration refused")
shared.background().result = shared.Ready(Broken(), {"log": None, "log_": None, "multinomial": None})
got = torch.log(x.cuda()).cpu().tolist()           # the swap fails here, inside this call
again = torch.log(x.cuda()).cpu().tolist()
print(json.dumps({"got": got, "again": again, "cpu": torch.log(x).tolist(),
                  "answering": answering("log"), "status": status()}))
""", TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE))
    assert out["got"] == out["again"] == out["cpu"]
    assert out["answering"] == "torch_musa"
    line = [l for l in out["status"] if "cpp_overrides:" in l][0]
    assert "log left to torch_musa: swapping in failed: RuntimeError: registration refused" in line
