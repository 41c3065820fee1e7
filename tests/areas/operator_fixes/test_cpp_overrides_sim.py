"""operator_fixes.cpp_overrides on the simulated device: the compiled log / log_ /
multinomial kernels (built from the same registration source as on MUSA, with the
simulator's host bodies). Numbers are compared with the CPU's; multinomial with the
probabilities it samples from; capture with what torch's own kernels do (they read the
tensor on the host, which capture refuses)."""
import textwrap
import threading

from tests._fresh import FIXTURES, last_json, run_python, run_sim, sim_env
from tests._releases import importable_or_skip, runnable_or_skip

IN_RANGE = runnable_or_skip("<2.11.0.post2")   # the unit applies below 2.11.0.post2
FIXED = "2.11.0.post2"

# The extension is built off the calling thread (the first call answers with the fallback):
# programs that test the compiled kernels wait for it, then swap it in with a call outside
# capture (tests/areas/operator_fixes/test_cold_first_call_sim.py tests the wait itself).
WARM = """
from torchada.areas._op_overrides import shared as _shared
torch.log(torch.ones(1, device="cuda")); torch.isfinite(torch.ones(1, device="cuda"))
if _shared.UNITS:
    assert _shared.background().wait(900), "the extension did not build in 900 s"
    torch.log(torch.ones(1, device="cuda")); torch.isfinite(torch.ones(1, device="cuda"))
"""

LOG = WARM + """
import json
out = {}
x = torch.tensor([0.5, 1.0, 2.0, 3.0, 1e-3, 7.25, float("inf"), 0.0, -1.0])
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    cpu = torch.log(x.to(dt))
    got = torch.log(x.to(dt).cuda()).cpu()
    ulp = torch.finfo(dt).eps
    # two libm implementations: equal within one unit in the last place (inf, -inf, nan kept)
    same_specials = bool(torch.equal(got.isnan(), cpu.isnan()) and
                         torch.equal(got[~cpu.isfinite()].nan_to_num(), cpu[~cpu.isfinite()].nan_to_num()))
    fin = cpu.isfinite()
    close = bool(((got[fin].double() - cpu[fin].double()).abs()
                  <= ulp * cpu[fin].double().abs().clamp_min(1)).all())
    out[str(dt)] = [got.dtype == dt, same_specials, close]
y = torch.tensor([[1.0, 2.0], [4.0, 8.0]], dtype=torch.float64, device="cuda").t()
ptr = y.data_ptr()
r = y.log_()
out["inplace_noncontiguous"] = [r is y, y.data_ptr() == ptr,
                                y.cpu().tolist() == torch.tensor([[1.0, 2.0], [4.0, 8.0]], dtype=torch.float64).t().log().tolist()]
i = torch.tensor([1, 2, 8])
out["int"] = torch.log(i.cuda()).cpu().tolist() == torch.log(i).tolist()
c = torch.tensor([1 + 1j, -2 + 0.5j], dtype=torch.complex128)
out["complex"] = bool(torch.allclose(torch.log(c.cuda()).cpu(), torch.log(c), rtol=1e-15, atol=0))
try:
    torch.ones(2, dtype=torch.int64, device="cuda").log_()
    out["int_inplace"] = "no error"
except RuntimeError as e:
    out["int_inplace"] = "can't be cast" in str(e)
g = torch.tensor([2.0, 4.0], device="cuda", requires_grad=True)
torch.log(g).sum().backward()
out["grad"] = g.grad.cpu().tolist() == [0.5, 0.25]
out["status"] = [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides" in l]
print(json.dumps(out))
"""

SAMPLE = WARM + """
import json
torch.manual_seed(0)
p = torch.tensor([[0.1, 0.0, 0.6, 0.3], [0.25, 0.25, 0.25, 0.25]])
n = 20000
draws = torch.multinomial(p.cuda(), n, replacement=True).cpu()
counts = torch.stack([torch.bincount(r, minlength=4) for r in draws]).double()
expected = p.double() / p.double().sum(1, keepdim=True) * n
sigma = (expected * (1 - expected / n)).sqrt().clamp_min(1)
out = {"shape": list(draws.shape), "dtype": str(draws.dtype),
       "zero_never": int(counts[0, 1]),
       "within_5_sigma": bool(((counts - expected).abs() <= 5 * sigma).all())}
w = torch.tensor([5.0, 0.0, 1.0, 2.0, 3.0], device="cuda")
rows = [torch.multinomial(w, 4).cpu().tolist() for _ in range(50)]
out["no_repeats"] = all(len(set(r)) == 4 and 1 not in r for r in rows)
out["one_dim_shape"] = list(torch.multinomial(w, 2).shape)
g1 = torch.Generator(device="cuda").manual_seed(7)
g2 = torch.Generator(device="cuda").manual_seed(7)
a = torch.multinomial(w, 3, generator=g1).cpu().tolist()
b = torch.multinomial(w, 3, generator=g2).cpu().tolist()
out["seeded_repeatable"] = a == b
out["advances"] = len({tuple(torch.multinomial(w, 3, generator=g1).cpu().tolist()) for _ in range(20)}) > 1
for bad, args in (("n0", (w, 0)), ("too_many", (w, 6)), ("ints", (w.long(), 1))):
    try:
        torch.multinomial(*args)
        out[bad] = "no error"
    except RuntimeError as e:
        out[bad] = str(e).splitlines()[0]
print(json.dumps(out))
"""

CAPTURE = WARM + """
import json
w = torch.tensor([[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], device="cuda")
x = torch.tensor([1.0, 4.0], device="cuda")
out = {}
try:
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        l = torch.log(x)
        s = torch.multinomial(w, 8)
    seen = set()
    for _ in range(6):
        g.replay()
        seen.add(tuple(s.cpu().tolist()[0]))
    out["capture"] = [len(seen) > 1, all(sorted(t) == list(range(8)) for t in seen),
                      l.cpu().tolist() == torch.log(x.cpu()).tolist()]
except RuntimeError as e:
    out["capture"] = str(e).splitlines()[0]
out["status"] = [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides" in l]
print(json.dumps(out))
"""


def sim(code, version=IN_RANGE, **env):
    return run_sim(code, TORCHADA_SIM_TORCH_MUSA_VERSION=version, **env)


def test_log_values_equal_the_cpu_for_every_floating_dtype_and_keep_torchs_rules():
    out = last_json(sim(LOG))
    for dt in ("torch.float16", "torch.bfloat16", "torch.float32", "torch.float64"):
        assert out[dt] == [True, True, True], dt
    assert out["inplace_noncontiguous"] == [True, True, True]
    assert out["int"] and out["complex"] and out["int_inplace"] is True and out["grad"]
    assert any("compiled: log, log_, multinomial" in l for l in out["status"]), out["status"]


def test_multinomial_samples_its_probabilities_and_keeps_torchs_argument_errors():
    out = last_json(sim(SAMPLE))
    assert out["shape"] == [2, 20000] and out["dtype"] == "torch.int64"
    assert out["zero_never"] == 0 and out["within_5_sigma"]
    assert out["no_repeats"] and out["one_dim_shape"] == [2]
    assert out["seeded_repeatable"] and out["advances"]
    assert out["n0"] == "cannot sample n_sample <= 0 samples"
    assert out["too_many"] == "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
    assert "floating-point dtypes" in out["ints"]


def test_captured_multinomial_and_log_replay_with_fresh_samples():
    out = last_json(sim(CAPTURE))
    assert out["capture"] == [True, True, True]


def test_torchs_own_multinomial_cannot_be_captured():
    """The reference: torch's multinomial checks the probabilities on the host (.item()),
    on CUDA as on the simulator, so capture refuses it."""
    out = last_json(sim(CAPTURE, TORCHADA_DISABLE_AREAS="operator_fixes.cpp_overrides"))
    assert "operation not permitted when stream is capturing" in out["capture"]


def test_one_op_left_to_torch_musa_and_the_call_log():
    proc = sim(CAPTURE, TORCHADA_DISABLE_OP_OVERRIDE_multinomial="1", TORCHADA_DEBUG_CPP_OPS="1")
    out = last_json(proc)
    assert "operation not permitted when stream is capturing" in out["capture"]
    assert any("compiled: log, log_ (" in l for l in out["status"]), out["status"]
    assert "torchada cpp op: log(Float[2]) on musa:0" in proc.stderr
    assert "torchada cpp op: multinomial" not in proc.stderr


def test_on_the_fixed_release_nothing_is_installed():
    importable_or_skip(FIXED)
    proc = sim(CAPTURE, version=FIXED, TORCHADA_DEBUG_CPP_OPS="1")
    out = last_json(proc)
    assert "operation not permitted when stream is capturing" in out["capture"]
    assert any("cpp_overrides skipped" in l and "not in <2.11.0.post2" in l
               for l in out["status"]), out["status"]
    # (isfinite_async, on every release, compiles isfinite: the WARM calls log it)
    assert "torchada cpp op: log" not in proc.stderr
    assert "torchada cpp op: multinomial" not in proc.stderr


def test_a_failed_build_warns_once_and_falls_back_to_torch_musa_and_the_python_log_fix(tmp_path):
    from torchada._core.files import user_cache_root

    code = WARM + textwrap.dedent("""
    import json
    x = torch.tensor([1.0, 4.0], dtype=torch.float64, device="cuda")
    x.log_()                          # 2.11.0.post1's own log_ refuses float64
    y = torch.log(torch.tensor([2.0], device="cuda")).cpu().tolist()
    lines = [l.strip() for l in str(torchada.status()).splitlines() if "cpp_overrides" in l]
    print(json.dumps({"log_": x.cpu().tolist(), "log": y, "status": lines}))
    """)
    proc = sim(code, XDG_CACHE_HOME=tmp_path, TORCHADA_SIM_CACHE_DIR=user_cache_root(),
               CXX=FIXTURES / "test_cxx.sh")  # refuses torchada's extensions only
    out = last_json(proc)
    assert out["log_"] == [0.0, torch_log(4.0)] and out["log"] == [torch_log(2.0, "float32")]
    assert any("not built: the compiled operator overrides did not build" in l
               for l in out["status"]), out["status"]
    assert proc.stderr.count("the compiled operator overrides did not build") == 1


def torch_log(value, dtype="float64"):
    import torch

    return torch.log(torch.tensor([value], dtype=getattr(torch, dtype))).item()


def test_concurrent_first_calls_build_once(tmp_path):
    from torchada._core.files import user_cache_root

    env = sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=IN_RANGE, XDG_CACHE_HOME=tmp_path,
                  TORCHADA_SIM_CACHE_DIR=user_cache_root(), TORCHADA_CPP_OPS_VERBOSE="1",
                  TORCHADA_DEVICE_ROUTE="python")
    code = "import torch, torchada\n" + WARM + "print(torch.log(torch.ones(1, device='cuda')).item())"
    procs = [None, None]

    def run(i):
        procs[i] = run_python(code, env=env, timeout=600)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [p.stdout.split()[-1] for p in procs] == ["0.0", "0.0"]
    # the compile ran in one detached builder (its verbose output in the key folder's
    # build.log), neither in the two processes nor twice
    assert all("op_overrides.o" not in p.stdout + p.stderr for p in procs)
    (folder,) = (tmp_path / "torchada" / "build").glob("torchada_op_overrides_*")
    log = (folder / "build.log").read_text()
    assert log.count(": op_overrides started") == 1, log
    assert log.count("built after") == 1 and log.count("op_overrides.o") >= 1, log
