"""operator_fixes.isfinite_async on the simulated device. The simulator reproduces what the
seed's fix table reports for every release (ATen's composite isfinite multiplies two bool
masks, and that mul waits for the device, so it cannot run in graph capture). Values are
compared with the CPU's; the CPU path is compared with torch without torchada."""
import pytest

from tests._fresh import clean_env, last_json, run_argv, run_python, run_sim, sim_env

SPECIALS = "[1.0, float('inf'), float('nan'), -float('inf'), 0.0, -2.5]"

VALUES = """
import json
x = torch.tensor(%s)
out = {}
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    got = torch.isfinite(x.to(dt).cuda()).cpu()
    out[str(dt)] = [got.dtype == torch.bool, got.tolist() == torch.isfinite(x.to(dt)).tolist(),
                    x.to(dt).cuda().isfinite().cpu().tolist() == got.tolist()]
other = {"int": torch.arange(-2, 3), "bool": torch.tensor([True, False]),
         "complex": torch.tensor([1 + 1j, complex(float("inf"), 0), complex(0, float("nan"))])}
for name, t in other.items():
    out[name] = torch.isfinite(t.cuda()).cpu().tolist() == torch.isfinite(t).tolist()
print(json.dumps(out))
""" % SPECIALS

CAPTURE = """
import json
x = torch.tensor(%s, device="cuda")
want = torch.isfinite(x.cpu()).tolist()
out = {}
for mode in ("grad", "inference"):
    try:
        with torch.inference_mode(mode == "inference"):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y = torch.isfinite(x)
        first = y.cpu().tolist() == want
        x.fill_(float("nan"))
        g.replay()
        out[mode] = first and y.cpu().tolist() == [False] * 6
        x.copy_(torch.tensor(%s))
    except RuntimeError as exc:
        out[mode] = str(exc).splitlines()[0]
print(json.dumps(out))
""" % (SPECIALS, SPECIALS)

TRACE = """
import json, torch
from torch.utils._python_dispatch import TorchDispatchMode

class Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func.overloadpacket.__name__))
        return func(*args, **(kwargs or {}))

def ops(t):
    with Ops() as mode:
        torch.isfinite(t)
    return mode.seen

device = "cuda" if torch.cuda.is_available() or hasattr(torch, "musa") else "cpu"
out = {"cpu": ops(torch.ones(3)), "cpu_int": ops(torch.ones(3, dtype=torch.int32))}
if hasattr(torch, "musa"):
    # the compiled kernels are built or loaded off the calling thread and swapped in at a
    # later call: done before tracing, so no swap (and its probes) lands in a traced call
    from torchada.areas._op_overrides import shared
    torch.isfinite(torch.ones(1, device="cuda"))
    assert shared.background().wait(900)
    torch.isfinite(torch.ones(1, device="cuda"))
    out["musa"] = ops(torch.ones(3, device="cuda"))
    out["musa_int"] = ops(torch.ones(3, dtype=torch.int32, device="cuda"))
print(json.dumps(out))
"""

COMPILED = """
import json
x = torch.tensor(%s, device="cuda")

def fin(t):
    return torch.isfinite(t * 2)

want = torch.isfinite(x.cpu() * 2).tolist()
out = {"script": torch.jit.script(fin)(x).cpu().tolist() == want,
       "eager": torch.compile(fin, backend="eager")(x).cpu().tolist() == want,
       "aot_eager": torch.compile(fin, backend="aot_eager")(x).cpu().tolist() == want}
print(json.dumps(out))
""" % SPECIALS

FIX_OFF = "operator_fixes.isfinite_async"


def test_values_equal_the_cpu_for_every_dtype():
    out = last_json(run_sim(VALUES))
    assert out == {**{str(dt): [True, True, True] for dt in
                      ("torch.float16", "torch.bfloat16", "torch.float32", "torch.float64")},
                   "int": True, "bool": True, "complex": True}


def test_isfinite_is_captured_and_replayed_with_and_without_autograd():
    assert last_json(run_sim(CAPTURE)) == {"grad": True, "inference": True}


def test_without_the_fix_capture_stops_at_the_composites_bool_mul():
    out = last_json(run_sim(CAPTURE, TORCHADA_DISABLE_AREAS=FIX_OFF))
    for mode in ("grad", "inference"):
        assert "operation not permitted when stream is capturing" in out[mode]
        assert "mul of two bool tensors" in out[mode]


@pytest.mark.parametrize("defect", ["+blocking_bool_mul", "-blocking_bool_mul"])
def test_float_tensors_take_one_comparison_other_dtypes_and_the_cpu_keep_atens_composite(defect):
    out = last_json(run_sim(TRACE, TORCHADA_SIM_DEFECTS=defect))
    stock = last_json(run_python(TRACE, env=clean_env(TORCHADA_PLATFORM="off")))
    assert out["musa"] == ["abs", "lt"]
    assert (out["cpu"], out["cpu_int"]) == (stock["cpu"], stock["cpu_int"])
    assert stock["cpu"] == ["abs", "ne", "eq", "mul"]      # ATen's composite, unchanged
    assert out["musa_int"] == stock["cpu_int"] == ["ones_like"]


def test_scripted_and_compiled_calls_equal_the_cpu(tmp_path):
    script = tmp_path / "compiled.py"     # TorchScript reads the function's source file
    script.write_text("import torch, torchada\n" + COMPILED)
    out = last_json(run_argv([script], env=sim_env()))
    assert out == {"script": True, "eager": True, "aot_eager": True}


def test_status_names_the_unit_and_the_compiled_kernel():
    proc = run_sim("""
        from torchada.areas._op_overrides import shared
        torch.isfinite(torch.ones(1, device='cuda'))   # starts the build off this thread
        assert shared.background().wait(900)
        torch.isfinite(torch.ones(1, device='cuda'))   # swaps the compiled kernel in
        print(torchada.status())
    """)
    line = [l for l in proc.stdout.splitlines() if "operator_fixes.isfinite_async" in l]
    assert line and "applied" in line[0]
    assert "isfinite_async: compiled: isfinite" in proc.stdout


def test_python_kernel_where_the_compiled_one_is_switched_off():
    out = last_json(run_sim(CAPTURE, TORCHADA_DISABLE_OP_OVERRIDE_isfinite="1"))
    assert out == {"grad": True, "inference": True}
    values = last_json(run_sim(VALUES, TORCHADA_DISABLE_OP_OVERRIDE_isfinite="1"))
    assert all(v in (True, [True, True, True]) for v in values.values()), values
    trace = last_json(run_sim(TRACE, TORCHADA_DISABLE_OP_OVERRIDE_isfinite="1"))
    assert trace["musa"] == ["abs", "lt"] and trace["musa_int"] == ["ones_like"]
