"""The simulated device implements exactly torch_musa's operator set: the test walks the
release's table (src/torchada/testing/optable) against the running torch's dispatcher.

* every overload the table registers reaches a kernel on the device: the CPU kernel the
  fallback runs, a composite one, or a simulator kernel for the few torch has no CPU kernel
  for (the rest are listed below with the reason they are not modelled);
* every overload of the release's torch the table does not register, which would reach the
  device's fallback, is refused there; a sample of them raises torch's NotImplementedError
  naming the musa backend from a real call, and a sample of registered ones computes;
* the simulator's own explicit kernels are the table's, but for the ones listed below.
"""
import pytest

from tests._fresh import bare_sim_env, last_json, run_python
from tests._releases import importable_or_skip

# Registered by the release, no CPU kernel in stock torch, not modelled (a call raises on the
# simulator). 2.7.1: none (the flash-attention entries and torch 2.7's _scaled_mm have
# simulator kernels: _sim/cuda_kernels.py, tests/testing/test_sim_attention_fp8.py).
# 2.9.1.post1 (5e25af7's yaml): none either: _sim/later_kernels.py, later_gemm_kernels.py and
# later_sparse_kernels.py model all 25 (docs/simulator.md). A row a later table adds without a
# simulator kernel goes here, with the reason.
NOT_MODELLED = {"2.7.1": set(), "2.9.1.post1": set()}
# Overloads each release lacks (issue 21's examples, checked against the table by
# tests/testing/test_optable.py) and the calls that reach them.
REFUSED = {
    "2.7.1": ("aten::special_modified_bessel_i0.out", "aten::special_spherical_bessel_j0.out",
              "aten::special_chebyshev_polynomial_t.out", "aten::histogram.bin_ct",
              "aten::nonzero_static", "aten::linalg_matrix_exp", "aten::segment_reduce",
              "aten::slow_conv3d_forward"),
    "2.9.1.post1": ("aten::histogram.bin_ct", "aten::slow_conv3d_forward"),
}
RELEASES = pytest.mark.parametrize("release", ["2.7.1", "2.9.1.post1"])


def _env(release):
    return bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(release))


# Explicit simulator kernels torch_musa 2.7.1 has no registration for (docs/simulator.md):
# _has_compatible_shallow_copy_type models the patched torch; _copy_from_and_resize is
# torch's resize-and-copy entry the fallback would otherwise serve from the CPU.
SIM_EXTRA = {"aten::_copy_from_and_resize", "aten::_has_compatible_shallow_copy_type"}

WALK = r'''
import json, torch, torch_musa
from torchada.testing import optable
from torch_musa._sim import optable as simtable

release = optable.table_for(torch_musa.__version__)
table = optable.load(release)
registered = optable.registered(table)
known = set(table["torch_ops"])
C = torch._C
COMPOSITE = ("CompositeImplicitAutograd", "CompositeExplicitAutograd",
             "CompositeExplicitAutogradNonFunctional")

def has(name, key):
    return C._dispatch_has_kernel_for_dispatch_key(name, key)

live = sorted(n for n in C._dispatch_get_all_op_names() if n.startswith("aten::"))
reaches_fallback = [n for n in live if not has(n, "PrivateUse1")
                    and not any(has(n, k) for k in COMPOSITE)]
out = {
    "release": release,
    "registered": len(registered),
    # registered overloads the fallback would run but that have no CPU kernel
    "gaps": sorted(n for n in reaches_fallback if n in registered and not has(n, "CPU")),
    # the backend's decision for every overload that reaches the fallback
    "wrong_decision": sorted(n for n in reaches_fallback
                             if simtable.allows(n) != (n in registered or n not in known)),
    "refused": sorted(n for n in reaches_fallback if not simtable.allows(n)),
    "sim_extra": sorted(n for n in live if has(n, "PrivateUse1") and n in known
                        and n not in registered),
    "live_registered": sorted(n for n in registered if n in live),
}
print(json.dumps(out))
'''


_WALKS = {}


def _walk(release):
    if release not in _WALKS:
        _WALKS[release] = last_json(run_python(WALK, env=_env(release), timeout=600))
    return _WALKS[release]


@RELEASES
def test_every_registered_op_reaches_a_kernel(release):
    walk = _walk(release)
    assert walk["release"] == release
    assert walk["registered"] > 1100
    gaps, allowed = set(walk["gaps"]), NOT_MODELLED[release]
    assert gaps <= allowed, sorted(gaps - allowed)
    assert allowed <= gaps, sorted(allowed - gaps)  # a modelled one leaves the list


@RELEASES
def test_the_fallback_decides_by_the_table(release):
    walk = _walk(release)
    assert walk["wrong_decision"] == []
    refused = set(walk["refused"])
    for name in REFUSED[release] + ("aten::slow_conv_transpose3d",):
        assert name in refused, name
    assert not refused & set(walk["live_registered"])


@RELEASES
def test_simulator_kernels_are_the_tables(release):
    assert set(_walk(release)["sim_extra"]) == SIM_EXTRA


CALLS = r'''
import json, torch, torch_musa
x = torch.rand(4, 4, device="musa") + 0.5
i = torch.arange(4, device="musa")
calls = {
    "aten::special_modified_bessel_i0.out": lambda: torch.special.modified_bessel_i0(x),
    "aten::special_spherical_bessel_j0.out": lambda: torch.special.spherical_bessel_j0(x),
    "aten::special_chebyshev_polynomial_t.out": lambda: torch.special.chebyshev_polynomial_t(x, 3),
    "aten::histogram.bin_ct": lambda: torch.histogram(x, 4),
    "aten::nonzero_static": lambda: torch.nonzero_static(x, size=3),
    "aten::linalg_matrix_exp": lambda: torch.linalg.matrix_exp(x),
    "aten::segment_reduce": lambda: torch.segment_reduce(x.flatten(), "sum", lengths=torch.tensor([8, 8], device="musa")),
    "aten::slow_conv3d_forward": lambda: torch._C._nn.slow_conv3d(x.view(1, 1, 1, 4, 4), torch.ones(1, 1, 1, 1, 1, device="musa"), [1, 1, 1]),
}
errors = {}
for name in REFUSED:
    call = calls[name]
    try:
        call()
        errors[name] = None
    except NotImplementedError as e:
        errors[name] = str(e).splitlines()[0]
computed = {
    "add": (x + 1).cpu().tolist() == (x.cpu() + 1).tolist(),
    "mm": torch.equal((x @ x).cpu(), x.cpu() @ x.cpu()),
    "bessel_j0": torch.equal(torch.special.bessel_j0(x).cpu(), torch.special.bessel_j0(x.cpu())),
    "nonzero": torch.equal(torch.nonzero(i > 1).cpu(), torch.nonzero(i.cpu() > 1)),
    "histc": torch.equal(torch.histc(x, 4).cpu(), torch.histc(x.cpu(), 4)),
    "sort": torch.equal(torch.sort(x, 1).values.cpu(), torch.sort(x.cpu(), 1).values),
}
if LATER:  # rows 5e25af7's yaml adds: the CPU's numbers, and CUDA's float32 GEMM for .dtype
    h = torch.rand(3, 4, dtype=torch.bfloat16)
    g = torch.rand(4, 2, dtype=torch.bfloat16)
    c = torch.rand(3, 2, dtype=torch.bfloat16)
    computed["matrix_exp"] = torch.equal(torch.linalg.matrix_exp(x).cpu(), torch.linalg.matrix_exp(x.cpu()))
    computed["cheb"] = torch.equal(torch.special.chebyshev_polynomial_t(x, 3).cpu(),
                                   torch.special.chebyshev_polynomial_t(x.cpu(), 3))
    got = torch.ops.aten.addmm.dtype(c.to("musa"), h.to("musa"), g.to("musa"), torch.float32,
                                     beta=0.5, alpha=2.0)
    computed["addmm_dtype"] = got.dtype == torch.float32 and torch.equal(
        got.cpu(), 2.0 * (h.float() @ g.float()) + 0.5 * c.float())
    o = torch.empty(0, device="musa")
    torch.ops.aten.mm.dtype_out(h.to("musa"), g.to("musa"), torch.float32, out=o)
    computed["mm_dtype_out"] = torch.equal(o.cpu(), h.float() @ g.float())
    hb, gb, cb = h[None].repeat(2, 1, 1), g[None].repeat(2, 1, 1), c[None].repeat(2, 1, 1)
    got = torch.ops.aten.baddbmm.dtype(cb.to("musa"), hb.to("musa"), gb.to("musa"),
                                       torch.float32, beta=2.0, alpha=0.5)
    computed["baddbmm_dtype"] = torch.equal(got.cpu(), 0.5 * (hb.float() @ gb.float()) + 2.0 * cb.float())
    mask = (x.cpu() > 0.9).to(torch.uint8)
    computed["masked_scale"] = torch.equal(
        torch.ops.aten._masked_scale(x, mask.to("musa"), 3.0).cpu(), x.cpu() * mask * 3.0)
    big = torch.rand(4000, device="musa") + 1.0
    dropped, keep = torch.ops.aten._fused_dropout(big, 0.75)
    computed["fused_dropout"] = keep.dtype == torch.uint8 and torch.equal(
        dropped.cpu(), big.cpu() * keep.cpu() * (1 / 0.75)) and 0.7 < keep.float().mean().item() < 0.8
    means, invstd, eps = torch.rand(3, 2) + 1.0, torch.rand(3, 2) + 0.5, 1e-5
    gm, gi = torch.ops.aten.batch_norm_gather_stats(
        torch.empty(4, 2, device="musa"), means.to("musa"), invstd.to("musa"), None, None,
        0.1, eps, 5)
    var = (1 / invstd.double() ** 2 - eps + means.double() ** 2).mean(0) - means.double().mean(0) ** 2
    computed["gather_stats"] = (torch.allclose(gm.cpu().double(), means.double().mean(0), atol=1e-6)
                                and torch.allclose(gi.cpu().double(), 1 / (var + eps).sqrt(), rtol=1e-5))
    # batch_norm_elemt.out: Normalization.cu's ((x - mean) * invstd) * weight + bias per
    # channel, written into `out` (resized); the same float32 operations in the same order
    xe, w, b = torch.rand(2, 3, 4), torch.rand(3), torch.rand(3)
    m, s = torch.rand(3), torch.rand(3) + 0.5
    o = torch.empty(0, device="musa")
    back = torch.ops.aten.batch_norm_elemt.out(xe.to("musa"), w.to("musa"), b.to("musa"),
                                               m.to("musa"), s.to("musa"), 1e-5, out=o)
    ref = ((xe - m.view(1, 3, 1)) * s.view(1, 3, 1)) * w.view(1, 3, 1) + b.view(1, 3, 1)
    computed["batch_norm_elemt_out"] = back is o and torch.equal(o.cpu(), ref)
print(json.dumps({"errors": errors, "computed": computed}))
'''


@RELEASES
def test_unregistered_ops_raise_torchs_error_naming_musa_and_registered_ones_compute(release):
    code = "REFUSED = %r\nLATER = %r\n" % (REFUSED[release], release != "2.7.1") + CALLS
    out = last_json(run_python(code, env=_env(release), timeout=600))
    assert sorted(out["errors"]) == sorted(REFUSED[release])
    for name, first_line in out["errors"].items():
        assert first_line is not None, name + " ran"
        assert first_line.startswith("Could not run '%s' with arguments from the 'musa' backend."
                                     % name), first_line
    assert all(out["computed"].values()), out["computed"]
