"""Contracts the CPU fallback keeps, on operators forced onto it with
TORCHADA_CPU_FALLBACK_OPS (the simulator has kernels for them): views share the device
argument's storage, in-place ops write into the very tensor, random ops draw from the
device's generator and leave the CPU's alone; and compiled graphs run through it."""
import torch

from tests._fresh import last_json, run_sim

CONTRACTS = """
import json
out = {}
x = torch.arange(9.0, device="cuda").reshape(3, 3).clone()  # a base, not a view
v = x.diagonal()
v.mul_(10)                                   # through the view, into x
out["view"] = {"shares": v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
               "x": x.cpu().tolist(), "base": v._base is x}
y = torch.tensor([1.0, -2.0, 3.0], device="cuda")
ptr = y.data_ptr()
r = y.neg_()
out["inplace"] = {"same": r is y and y.data_ptr() == ptr, "y": y.cpu().tolist()}
torch.manual_seed(123)
cpu_state = torch.get_rng_state()
torch.cuda.manual_seed(7)
a = torch.empty(5, device="cuda").normal_()
b = torch.empty(5, device="cuda").normal_()
torch.cuda.manual_seed(7)
a2 = torch.empty(5, device="cuda").normal_()
g = torch.Generator(device="cuda").manual_seed(3)
c = torch.empty(5, device="cuda").normal_(generator=g)
g.manual_seed(3)
c2 = torch.empty(5, device="cuda").normal_(generator=g)
out["random"] = {"repro": a.cpu().tolist() == a2.cpu().tolist(),
                 "advances": a.cpu().tolist() != b.cpu().tolist(),
                 "generator": c.cpu().tolist() == c2.cpu().tolist(),
                 "cpu_untouched": torch.equal(torch.get_rng_state(), cpu_state),
                 "device": str(a.device)}
out["report"] = sorted(torchada._core.trace.snapshot()["cpu_fallback"])
print(json.dumps(out))
"""


def test_views_inplace_and_generators():
    out = last_json(run_sim(CONTRACTS, TORCHADA_TRACE="1",
                            TORCHADA_CPU_FALLBACK_OPS="aten::diagonal,aten::neg_,aten::normal_"))
    want = torch.arange(9.0).reshape(3, 3)
    want.diagonal().mul_(10)
    assert out["view"] == {"shares": True, "x": want.tolist(), "base": True}
    assert out["inplace"] == {"same": True, "y": [-1.0, 2.0, -3.0]}
    assert out["random"] == {"repro": True, "advances": True, "generator": True,
                             "cpu_untouched": True, "device": "musa:0"}
    assert out["report"] == ["aten::diagonal", "aten::neg_", "aten::normal_"]


def test_unknown_forced_name_warns_once():
    proc = run_sim("print('ran')", TORCHADA_CPU_FALLBACK_OPS="aten::neg_,aten::no_such_op")
    assert proc.stderr.count("'aten::no_such_op'") == 1 and proc.stdout.strip() == "ran"


COMPILED = """
import json
def f(x, n):
    return torch.special.chebyshev_polynomial_t(x * 2, n).sum(0) + 1
x = torch.linspace(-0.5, 0.5, 12, device="cuda", dtype=torch.float64).reshape(3, 4)
n = torch.tensor(4.0, device="cuda", dtype=torch.float64)
out = {"plain": f(x, n).cpu().tolist()}
for backend in ("eager", "aot_eager"):
    torch._dynamo.reset()
    out[backend] = torch.compile(f, fullgraph=True, backend=backend)(x, n).cpu().tolist()
print(json.dumps(out))
"""


def test_compiled_graphs_reach_the_fallback():
    out = last_json(run_sim(COMPILED))
    x = torch.linspace(-0.5, 0.5, 12, dtype=torch.float64).reshape(3, 4)
    want = (torch.special.chebyshev_polynomial_t(x * 2, torch.tensor(4.0, dtype=torch.float64))
            .sum(0) + 1).tolist()
    assert out == {"plain": want, "eager": want, "aot_eager": want}
