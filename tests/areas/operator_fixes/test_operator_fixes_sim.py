"""Operator fixes on the simulated device: each acts on the release its gate names (the
simulator reproduces that release's defect) and stands aside elsewhere. Numbers are compared
with CPU results."""

import torch

from tests._fresh import last_json, run_sim
from tests._releases import has_defect, runnable_or_skip

PROGRAM = """
import json
out = {}
x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, device="cuda")
ptr = x.data_ptr()
try:
    y = x.log_()
    out["log"] = {"same": y is x and x.data_ptr() == ptr, "values": x.tolist()}
except RuntimeError as exc:
    out["log"] = {"error": str(exc)}
f = torch.tensor([1.0, 8.0], device="cuda").log_().tolist()
out["log_f32"] = f
if hasattr(torch.ops.aten.mm, "dtype"):
    gen = torch.Generator().manual_seed(0)
    a = torch.randint(-8, 8, (5, 3, 4), generator=gen).to(torch.bfloat16)
    b = torch.randint(-8, 8, (5, 4, 6), generator=gen).to(torch.bfloat16)
    out["mm"] = torch.mm(a[2].cuda(), b[2].cuda(), out_dtype=torch.float32).cpu().tolist()
    out["bmm"] = torch.bmm(a.cuda(), b.cuda(), out_dtype=torch.float32).cpu().tolist()
    out["mm_ref"] = (a[2].float() @ b[2].float()).tolist()
    out["bmm_ref"] = (a.float() @ b.float()).tolist()
out["mm_kernel"] = [l for l in torch._C._dispatch_dump_table("aten::mm.dtype").splitlines()
                    if l.startswith("PrivateUse1")] if hasattr(torch.ops.aten.mm, "dtype") else []
lines = str(torchada.status()).splitlines()
out["status"] = "\\n".join(l for l in lines if "operator_fixes" in l or "mm_out" in l or "log_f64" in l)
print(json.dumps(out))
"""

HAS_OUT_DTYPE = any(s.overload_name == "dtype"
                    for s in torch._C._jit_get_schemas_for_operator("aten::mm"))


# a release with the float64 log_ defect and the out_dtype one (log_f64_inplace's range)
BROKEN = ">2.7.1,<2.11.0.post2"


def run(version, **env):
    proc = run_sim(PROGRAM, TORCHADA_SIM_TORCH_MUSA_VERSION=version, **env)
    return last_json(proc)


def expected_log():
    return torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64).log().tolist()


def test_broken_release_without_the_fixes_is_broken():
    """The reference: what users of 2.11.0.post1 get without torchada's fixes (the newest
    broken release this torch runs: on torch 2.9 that is 2.9.1, whose out_dtype matmul is
    not modelled wrong)."""
    release = runnable_or_skip(BROKEN, module=False)
    out = run(release, TORCHADA_DISABLE_AREAS="operator_fixes")
    assert "log_musa" in out["log"]["error"]
    if HAS_OUT_DTYPE and has_defect("mm_out_dtype", release):
        assert out["mm"] != out["mm_ref"] and out["bmm"] != out["bmm_ref"]


def test_fixes_act_on_the_broken_release():
    release = runnable_or_skip(BROKEN, module=False)
    out = run(release)
    assert out["log"] == {"same": True, "values": expected_log()}
    assert out["log_f32"] == torch.tensor([1.0, 8.0]).log().tolist()
    assert "operator_fixes.log_f64_inplace applied" in out["status"]
    if HAS_OUT_DTYPE:
        assert out["mm"] == out["mm_ref"] and out["bmm"] == out["bmm_ref"]
    if HAS_OUT_DTYPE and has_defect("mm_out_dtype", release):
        assert "emulated in float32" in out["status"]
        assert "kernels.py" in out["mm_kernel"][0], out["mm_kernel"]   # ours stays
    elif HAS_OUT_DTYPE:  # in the fix's range, kernels healthy: the probe removes the override
        assert "native kernels healthy (override removed)" in out["status"], out["status"]


def test_fixes_stand_aside_on_fixed_releases():
    fixed = runnable_or_skip(">=2.13.0", module=False)
    out = run(fixed)
    assert out["log"] == {"same": True, "values": expected_log()}
    assert "log_f64_inplace skipped  - torch_musa %s not in >2.7.1,<2.11.0.post2" % fixed \
        in out["status"]
    assert "mm_out_dtype skipped  - torch_musa %s not in <2.13.0" % fixed in out["status"]
    # Only the every-release unit writes (isfinite_async: one library of trampolines).
    assert "1 writes" in out["status"] and "isfinite_async applied" in out["status"]


def test_in_range_release_with_healthy_kernels_forwards_to_them():
    out = run(runnable_or_skip(BROKEN, module=False), TORCHADA_SIM_DEFECTS="-mm_out_dtype")
    if HAS_OUT_DTYPE:
        assert out["mm"] == out["mm_ref"] and out["bmm"] == out["bmm_ref"]
        assert "native kernels healthy (override removed)" in out["status"]
        # torch_musa's (the simulator's C++) kernel answers again: nothing of ours per call
        assert out["mm_kernel"] and "musa_sim.cpp" in out["mm_kernel"][0], out["mm_kernel"]
    else:
        assert "mm_out_dtype: nothing to fix (this torch has no mm(out_dtype=))" in out["status"]


def test_fixed_log_keeps_autograd_and_mm_is_safe_under_graph_capture():
    proc = run_sim("""
        import json
        leaf = torch.tensor([1.5, 3.0], dtype=torch.float64, device="cuda", requires_grad=True)
        y = leaf.clone()
        y.log_()
        y.sum().backward()
        out = {"grad": leaf.grad.tolist()}
        if hasattr(torch.ops.aten.mm, "dtype"):
            a = torch.zeros(2, 3, dtype=torch.bfloat16, device="cuda")
            b = torch.ones(3, 2, dtype=torch.bfloat16, device="cuda")
            s = torch.cuda.Stream()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.stream(s):
                with torch.cuda.graph(g, stream=s):
                    c = torch.mm(a, b, out_dtype=torch.float32)   # first call: in capture
            out["decided_in_capture"] = ("mm_out_dtype: probe at the first call outside "
                                         "capture") not in str(torchada.status())
            a.copy_(torch.tensor([[1., 2., 3.], [-1., 0., 4.]]))
            g.replay()
            out["replayed"] = c.cpu().tolist()
        print(json.dumps(out))
    """, TORCHADA_SIM_TORCH_MUSA_VERSION=runnable_or_skip(BROKEN, module=False))
    out = last_json(proc)
    assert out["grad"] == (1 / torch.tensor([1.5, 3.0], dtype=torch.float64)).tolist()
    if HAS_OUT_DTYPE:
        assert out["decided_in_capture"] is False
        assert out["replayed"] == [[6.0, 6.0], [3.0, 3.0]]
