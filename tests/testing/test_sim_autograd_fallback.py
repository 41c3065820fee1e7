"""torch_musa's AutogradPrivateUse1 fallback (v2.7.1 torch_musa/csrc/core/
VariableFallbackKernel_musa.cpp:29: torch's basic_autograd_not_implemented_fallback) on the
simulated device: an operator without an autograd formula behaves on a musa tensor as the
same operator does on a CPU tensor, whose AutogradCPU fallback is torch's own."""
from tests._fresh import bare_sim_env, last_json, run_python

CODE = r'''
import json, warnings, torch, torch_musa
lib = torch.library.Library("simtest", "DEF")
lib.define("twice(Tensor x) -> Tensor")
for key in ("CPU", "PrivateUse1"):  # the same body: only the autograd fallback differs
    lib.impl("twice", lambda x: x * 2, key)

def observe(device):
    x = torch.ones(3, device=device, requires_grad=True)
    y = torch.ops.simtest.twice(x)
    row = {"value": y.detach().cpu().tolist(), "requires_grad": y.requires_grad,
           "grad_fn": type(y.grad_fn).__name__ if y.grad_fn is not None else None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (y.sum() * 1).backward() if y.requires_grad else None
    row["warnings"] = [str(w.message).split(":")[0] for w in caught]
    row["warned_op"] = any("simtest::twice" in str(w.message) for w in caught)
    row["x_grad"] = None if x.grad is None else x.grad.cpu().tolist()
    torch._C._set_autograd_fallback_mode("nothing")
    try:
        z = torch.ops.simtest.twice(torch.ones(3, device=device, requires_grad=True))
        row["nothing_mode_requires_grad"] = z.requires_grad
    finally:
        torch._C._set_autograd_fallback_mode("warn")
    return row

print(json.dumps({"mode": torch._C._get_autograd_fallback_mode(),
                  "cpu": observe("cpu"), "musa": observe("musa")}))
'''


def test_an_op_without_autograd_formula_behaves_as_on_the_cpu():
    out = last_json(run_python(CODE, env=bare_sim_env(), timeout=600))
    assert out["mode"] == "warn"
    cpu, musa = out["cpu"], out["musa"]
    assert musa == cpu, (musa, cpu)
    # torch's fallback in "warn" mode: backward warns naming the op (a fallthrough, the
    # simulator's model before, warned nothing)
    assert musa["requires_grad"] and musa["warned_op"], musa
    assert musa["value"] == [2.0, 2.0, 2.0]
