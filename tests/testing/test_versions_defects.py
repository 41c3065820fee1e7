"""Version knobs and the defects of named releases: present where they must be, absent elsewhere."""
import json

from tests._releases import importable_or_skip

PROBE = r'''
import json, torch, torch_musa
from torchada.testing._simconfig import config
res = {"version": torch_musa.__version__, "musa": torch.version.musa, "defects": sorted(config().defects)}
a = torch.randn(3, 4).half(); b = torch.randn(4, 5).half()
try:
    got = torch.mm(a.musa(), b.musa(), out_dtype=torch.float32).cpu()
    want = torch.mm(a.float(), b.float())
    res["mm_out_dtype_ok"] = bool(torch.allclose(got, want, atol=1e-2))
    A = torch.randn(3, 2, 4).half(); B = torch.randn(3, 4, 5).half()
    res["bmm_out_dtype_ok"] = bool(torch.allclose(torch.bmm(A.musa(), B.musa(), out_dtype=torch.float32).cpu(),
                                                  torch.bmm(A.float(), B.float()), atol=1e-2))
except TypeError:
    res["mm_out_dtype_ok"] = res["bmm_out_dtype_ok"] = None  # torch without out_dtype=
x = torch.rand(3, dtype=torch.float64, device="musa") + 1
try:
    x.log_(); res["log_f64"] = "ok"
except RuntimeError as e:
    res["log_f64"] = str(e)
y0 = torch.rand(3) + 1; y = y0.musa(); y.log_(); res["log_f32"] = bool(torch.allclose(y.cpu(), y0.log()))
try:
    torch.ones(2, device="musa"); res["acc_mem"] = torch.accelerator.memory_allocated(0) > 0
except Exception as e:
    res["acc_mem"] = type(e).__name__
g = torch.musa.MUSAGraph(); z = torch.ones(2, device="musa")
try:
    with torch.musa.graph(g):
        torch.isfinite(z)
    res["isfinite_in_capture"] = "ok"
except RuntimeError as e:
    res["isfinite_in_capture"] = "raises" if "capturing" in str(e) else str(e)
g = torch.musa.MUSAGraph()
try:
    with torch.musa.graph(g):
        z * z
    res["float_mul_in_capture"] = "ok"
except RuntimeError as e:
    res["float_mul_in_capture"] = str(e)
print(json.dumps(res))
'''


def probe(sim, **env):
    return json.loads(sim(PROBE, env).stdout.strip().splitlines()[-1])


def test_default_release_fits_this_torch(sim):
    # The newest profile whose torch minimum this torch meets (docs/simulator.md, Profiles):
    # torch_musa/__init__.py requires torch >= 2.7.1 (v2.7.1), >= 2.9.1 (2.9.1.post1).
    from packaging.version import Version
    import torch

    tv = Version(Version(torch.__version__).base_version)
    want = ("2.11.0.post2" if tv >= Version("2.11") else
            "2.9.1.post1" if tv >= Version("2.9.1") else "2.7.1")
    proc = sim(PROBE)
    assert json.loads(proc.stdout.strip().splitlines()[-1])["version"] == want
    assert "built against" not in proc.stderr, "the default release never warns"


def test_release_2_7_1(sim):
    r = probe(sim, TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1")
    assert r["version"] == "2.7.1" and r["musa"] == "4030"
    assert r["mm_out_dtype_ok"] in (True, None), "mm out_dtype is fine on 2.7.1"
    # log_ goes through muDNN (takes Double) on 2.7.1; the composite isfinite's bool mul
    # blocks on every release (seed README fix table).
    assert r["log_f64"] == "ok" and r["log_f32"]
    assert r["isfinite_in_capture"] == "raises" and r["float_mul_in_capture"] == "ok"
    assert r["acc_mem"] != True, "torch.accelerator memory APIs are broken before 2.11.0.post2"  # noqa: E712
    # The switches turn them on and off, for tests of the fixes.
    r = probe(sim, TORCHADA_SIM_TORCH_MUSA_VERSION="2.7.1",
              TORCHADA_SIM_DEFECTS="+log_f64_inplace,-blocking_bool_mul")
    assert "not implemented for 'Double'" in r["log_f64"] and r["isfinite_in_capture"] == "ok"


def test_release_2_11_0_post1(sim):
    r = probe(sim, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post1"),
              TORCHADA_SIM_MUSA_VERSION="4300")
    assert r["version"] == "2.11.0.post1" and r["musa"] == "4300"
    if r["mm_out_dtype_ok"] is not None:
        assert r["mm_out_dtype_ok"] is False and r["bmm_out_dtype_ok"] is False
    assert "mm_out_dtype" in r["defects"] and "accelerator_memory" in r["defects"]


def test_release_2_11_0_post2_fixes(sim):
    r = probe(sim, TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip("2.11.0.post2"))
    assert r["mm_out_dtype_ok"] in (True, None)
    assert "mm_out_dtype" not in r["defects"] and "accelerator_memory" not in r["defects"]
    import torch
    from packaging.version import Version
    if Version(torch.__version__).release >= (2, 9):
        assert r["acc_mem"] is True, r


def test_defects_override(sim):
    r = probe(sim, TORCHADA_SIM_DEFECTS="none")
    assert r["defects"] == [] and r["log_f64"] == "ok" and r["isfinite_in_capture"] == "ok"
    r = probe(sim, TORCHADA_SIM_DEFECTS="mm_out_dtype")
    assert r["defects"] == ["mm_out_dtype"]
    if r["mm_out_dtype_ok"] is not None:
        assert r["mm_out_dtype_ok"] is False
    r = probe(sim, TORCHADA_SIM_DEFECTS="-log_f64_inplace")
    assert r["log_f64"] == "ok" and "graph_exec_cap" in r["defects"]
