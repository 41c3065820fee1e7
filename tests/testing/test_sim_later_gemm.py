"""torch_musa 2.9.1.post1's int4-packed, grouped fp8 and W4A16 GEMMs and the RMSNorm backward
on the simulated device (_sim/later_gemm_kernels.py), each against an independent CPU
reference computed in float64 from the same quantized values.

Tolerances are the arithmetic's: the output's rounding (half an ulp of the output dtype,
2**-9 relative for bfloat16, 2**-11 for float16; one ulp allowed) plus float32 accumulation
(k * 2**-24 of the sum of absolute terms); the RMSNorm backward in float32 adds the row
reductions' float32 error (n * 2**-24 relative to the terms' scale).
"""
import pytest

from tests._fresh import bare_sim_env, last_json, run_python
from tests._releases import importable_or_skip

RELEASE = "2.9.1.post1"

PRELUDE = r'''
import json, torch, torch_musa
torch.manual_seed(0)
D = "musa"

def within(got, ref, bound):
    """max(|got - ref| - bound), <= 0 when every element is within its bound."""
    return float(((got.double().cpu() - ref.double()).abs() - bound.double()).max())

def output_bound(ref, absterms, k, out_ulp):
    return out_ulp * ref.abs() + k * 2.0 ** -24 * absterms + 1e-30

def error_of(call):
    try:
        call()
    except RuntimeError as e:
        return str(e).splitlines()[0]
    return None

def pack_nibbles(q):
    """[n][k] ints in [-8, 15] -> [n][k / 2] uint8, the even k in the high nibble."""
    nib = q.to(torch.int64) & 0xF
    return ((nib[:, ::2] << 4) | nib[:, 1::2]).to(torch.uint8)
'''

INT4 = PRELUDE + r'''
out = {"cases": {}}
n, k = 40, 512
x = torch.randn(6, k, dtype=torch.bfloat16)
for inner in (2, 4, 8):
    for group in (32, 64, 128, 256):
        w = torch.randn(n, k)
        wg = w.view(n, k // group, group)
        scale = (wg.abs().amax(-1) / 7).to(torch.bfloat16)             # [n, G]
        zero = (torch.randn(n, k // group) * 0.05).to(torch.bfloat16)   # [n, G]
        q = (wg / scale.float().unsqueeze(-1)).round().clamp(-8, 7).reshape(n, k)
        sz = torch.stack((scale.t(), zero.t()), -1).contiguous()       # [G, n, 2]
        packed = torch.ops.aten._convert_weight_to_int4pack(pack_nibbles(q).to(D), inner)
        got = torch.ops.aten._weight_int4pack_mm(x.to(D), packed, group, sz.to(D))
        # MUSA's decode: two's-complement nibble; w = bf16(q * scale + zero)
        deq = (q.double().view(n, -1, group) * scale.double().unsqueeze(-1)
               + zero.double().unsqueeze(-1)).reshape(n, k).to(torch.bfloat16).double()
        ref = x.double() @ deq.t()
        bound = output_bound(ref, x.double().abs() @ deq.abs().t(), k, 2.0 ** -8)
        out["cases"]["%d/%d" % (inner, group)] = {
            "shape": list(packed.shape), "dtype": str(packed.dtype),
            "out_dtype": str(got.dtype), "excess": within(got, ref, bound)}
# the documented bits of one word: lane t = 5 (row 1, byte column 1) of k-tile pair 0
u8 = torch.randint(0, 256, (8, 32), dtype=torch.uint8)
word = int(torch.ops.aten._convert_weight_to_int4pack(u8.to(D), 2).cpu()[0, 0, 5, 0]) & 0xFFFFFFFF
v = [int(u8[1, c]) for c in (1, 5, 9, 13)]
expect = sum((b >> 4) << (4 * i) for i, b in enumerate(v)) + sum((b & 0xF) << (16 + 4 * i) for i, b in enumerate(v))
out["word"] = [word, expect]
print(json.dumps(out))
'''

GPT_FAST = PRELUDE + r'''
# gpt-fast / torchao tinygemm quantization: nibbles in [0, 15], zero = min + 8 * scale,
# meant as w = (q - 8) * scale + zero on CUDA
n, k, group, inner = 64, 256, 128, 8
w = torch.randn(n, k, dtype=torch.bfloat16).float()
wg = w.view(n, -1, group)
lo, hi = wg.amin(-1), wg.amax(-1)
scale = ((hi - lo).clamp(min=1e-6) / 15)
zero = lo + scale * 8
q = ((wg - lo.unsqueeze(-1)) / scale.unsqueeze(-1)).round().clamp(0, 15).reshape(n, k)
sz = torch.stack((scale.t(), zero.t()), -1).to(torch.bfloat16).contiguous()
x = torch.randn(5, k, dtype=torch.bfloat16)

def reference(values):
    deq = (values.double().view(n, -1, group) * sz[..., 0].t().double().unsqueeze(-1)
           + sz[..., 1].t().double().unsqueeze(-1)).reshape(n, k).to(torch.bfloat16).double()
    ref = x.double() @ deq.t()
    return ref, output_bound(ref, x.double().abs() @ deq.abs().t(), k, 2.0 ** -8)

u8 = pack_nibbles(q)
got = torch.ops.aten._weight_int4pack_mm(
    x.to(D), torch.ops.aten._convert_weight_to_int4pack(u8.to(D), inner), group, sz.to(D))
musa_ref, musa_bound = reference(torch.where(q >= 8, q - 16, q))
cuda_ref, cuda_bound = reference(q - 8)
# flipping each nibble's top bit (byte ^ 0x88) turns MUSA's reading into CUDA's
fixed = torch.ops.aten._weight_int4pack_mm(
    x.to(D), torch.ops.aten._convert_weight_to_int4pack((u8 ^ 0x88).to(D), inner), group, sz.to(D))
print(json.dumps({"musa": within(got, musa_ref, musa_bound),
                  "cuda": within(got, cuda_ref, cuda_bound),
                  "fixed": within(fixed, cuda_ref, cuda_bound)}))
'''

GROUPED = PRELUDE + r'''
f8 = torch.float8_e4m3fn

def col_major(t):
    return t.transpose(-2, -1).contiguous().transpose(-2, -1)

cases = {
    "2d_3d": ((64, 32), (3, 32, 48), [16, 48, 64]),
    "3d_2d": ((3, 32, 48), (48, 80), [16, 48, 80]),
    "2d_2d": ((32, 48), (48, 64), [16, 32, 48]),
    "3d_3d": ((3, 32, 48), (3, 48, 64), None),
}
out = {}
for name, (sa_shape, sb_shape, offs) in cases.items():
    a = (torch.randn(sa_shape) * 4).to(f8)
    b = col_major((torch.randn(sb_shape) * 4).to(f8))
    G = len(offs) if offs else sa_shape[0]
    if name == "2d_3d":
        scale_a, scale_b = torch.rand(sa_shape[0]) + 0.5, torch.rand(G, sb_shape[2]) + 0.5
    elif name == "3d_2d":
        scale_a, scale_b = torch.rand(G, sa_shape[1]) + 0.5, torch.rand(sb_shape[1]) + 0.5
    elif name == "2d_2d":
        scale_a, scale_b = torch.rand(sa_shape[0] * G) + 0.5, torch.rand(sb_shape[1] * G) + 0.5
    else:
        scale_a, scale_b = torch.rand(G, sa_shape[1]) + 0.5, torch.rand(G, sb_shape[2]) + 0.5
    o = torch.tensor(offs, dtype=torch.int32) if offs else None
    got = torch._scaled_grouped_mm(a.to(D), b.to(D), scale_a.to(D), scale_b.to(D),
                                   o.to(D) if o is not None else None, None, None, torch.bfloat16)
    A, B = a.double(), b.double()
    parts, absparts, start = [], [], 0
    for g in range(G):
        if name == "2d_3d":
            end = offs[g]; ga, gb = A[start:end], B[g]; sa, sb = scale_a[start:end], scale_b[g]
        elif name == "3d_2d":
            end = offs[g]; ga, gb = A[g], B[:, start:end]; sa, sb = scale_a[g], scale_b[start:end]
        elif name == "2d_2d":
            end = offs[g]; ga, gb = A[:, start:end], B[start:end]
            m, nn = sa_shape[0], sb_shape[1]
            sa, sb = scale_a[g * m:(g + 1) * m], scale_b[g * nn:(g + 1) * nn]
        else:
            end = 0; ga, gb = A[g], B[g]; sa, sb = scale_a[g], scale_b[g]
        s = sa.double()[:, None] * sb.double()[None, :]
        parts.append(ga @ gb * s); absparts.append(ga.abs() @ gb.abs() * s)
        start = end
    join = {"2d_3d": lambda p: torch.cat(p, 0), "3d_2d": lambda p: torch.cat(p, 1)}.get(
        name, torch.stack)
    ref, absref = join(parts), join(absparts)
    k = sa_shape[-1] if name != "2d_2d" else max(offs[0], offs[1] - offs[0], offs[2] - offs[1])
    out[name] = {"dtype": str(got.dtype), "shape": list(got.shape), "ref_shape": list(ref.shape),
                 "excess": within(got, ref, output_bound(ref, absref, k + 2, 2.0 ** -8))}
print(json.dumps(out))
'''

MIXED = PRELUDE + r'''
def prepack(q):
    """(K, N) int4 values -> MUSA's W4A16 tiles [N/256][K/128][256][64] as (K, N/2) uint8:
    low nibble the even k, high nibble the odd k."""
    K, N = q.shape
    nib = (q.to(torch.int64) & 0xF).view(K // 128, 128, N // 256, 256).permute(2, 0, 3, 1)
    return (nib[..., 0::2] | (nib[..., 1::2] << 4)).to(torch.uint8).contiguous().view(K, N // 2)

K, N, group = 512, 256, 128
out = {}
for dtype, ulp in ((torch.bfloat16, 2.0 ** -8), (torch.float16, 2.0 ** -11)):
    for act, with_bias in (("none", False), ("silu", True), ("relu", True)):
        q = torch.randint(-8, 8, (K, N))
        scale = torch.rand(K // group, N) * 0.02 + 0.001
        x = torch.randn(2, 3, K).to(dtype)
        bias = (torch.randn(N) * 0.1).to(dtype) if with_bias else None
        got = torch.ops.aten._mixed_dtypes_linear(
            x.to(D), prepack(q).to(D), scale.to(D),
            bias=bias.to(D) if with_bias else None, activation=act)
        w = q.double() * scale.double().repeat_interleave(group, 0)
        pre = x.double().reshape(-1, K) @ w + (bias.double() if with_bias else 0)
        ref = {"none": pre, "relu": torch.relu(pre), "silu": torch.nn.functional.silu(pre)}[act]
        absterms = x.double().reshape(-1, K).abs() @ w.abs()
        # silu / relu are 1-Lipschitz here (|d silu| <= 1.1): the pre-activation bound carries
        bound = output_bound(ref, 1.1 * absterms, K + 1, ulp)
        out["%s/%s" % (str(dtype), act)] = {
            "dtype": str(got.dtype), "shape": list(got.shape),
            "excess": within(got.reshape(-1, N), ref, bound)}
# the CUDA way (PyTorch's test): an int8 or packed weight and a 1-D scale in the input's dtype
x = torch.randn(4, K, dtype=torch.float16).to(D)
out["cuda_int8"] = error_of(lambda: torch.ops.aten._mixed_dtypes_linear(
    x, torch.randint(-8, 8, (K, N), dtype=torch.int8).to(D), torch.rand(N, dtype=torch.float16).to(D)))
out["cuda_scale"] = error_of(lambda: torch.ops.aten._mixed_dtypes_linear(
    x, torch.zeros(K, N // 2, dtype=torch.uint8).to(D), torch.rand(N, dtype=torch.float16).to(D)))
out["n_not_256"] = error_of(lambda: torch.ops.aten._mixed_dtypes_linear(
    x, torch.zeros(K, 64, dtype=torch.uint8).to(D), torch.rand(4, 128).to(D)))
print(json.dumps(out))
'''

RMS = PRELUDE + r'''
out = {}
for dtype, shape, norm in ((torch.float32, (4, 5, 16), [16]), (torch.float32, (3, 5, 16), [5, 16]),
                           (torch.bfloat16, (6, 32), [32])):
    x = torch.randn(shape).to(dtype)
    w = (torch.rand(norm) + 0.5).to(dtype)
    dy = torch.randn(shape).to(dtype)
    eps = 1e-5
    # CPU reference: autograd through rms_norm in float64 on the same values
    xr = x.double().requires_grad_(); wr = w.double().requires_grad_()
    torch.nn.functional.rms_norm(xr, norm, wr, eps).backward(dy.double())
    dims = tuple(range(len(shape) - len(norm), len(shape)))
    rstd = torch.rsqrt(x.float().pow(2).mean(dims, keepdim=True) + eps)
    dx, dw = torch.ops.aten._fused_rms_norm_backward(
        dy.to(D), x.to(D), norm, rstd.to(D), w.to(D), [True, True])
    n = 1
    for s in norm:
        n *= s
    rows = x.numel() // n
    ulp = 2.0 ** -24 if dtype == torch.float32 else 2.0 ** -8
    # float32 row reductions over n terms and rstd's float32 rounding, then the output's
    red = (n + 4) * 2.0 ** -24
    gx, gw = xr.grad, wr.grad
    scale_x = (dy.double().abs() * wr.detach().abs()).amax() * rstd.double().amax()
    bx = ulp * gx.abs() + red * scale_x * 4
    xhat_abs = (x.double() * rstd.double()).abs()
    bw = ulp * gw.abs() + (rows + n + 4) * 2.0 ** -24 * (dy.double().abs() * xhat_abs).reshape(rows, n).sum(0).reshape(gw.shape)
    out["%s/%s" % (str(dtype), norm)] = {
        "dtypes": [str(dx.dtype), str(dw.dtype)], "shapes": [list(dx.shape), list(dw.shape)],
        "dx": within(dx, gx, bx), "dw": within(dw, gw, bw)}
    only_dx = torch.ops.aten._fused_rms_norm_backward(
        dy.to(D), x.to(D), norm, rstd.to(D), w.to(D), [True, False])
    no_w = torch.ops.aten._fused_rms_norm_backward(
        dy.to(D), x.to(D), norm, rstd.to(D), None, [True, True])
    scale_x0 = dy.double().abs().amax() * rstd.double().amax()
    xr2 = x.double().requires_grad_()
    torch.nn.functional.rms_norm(xr2, norm, None, eps).backward(dy.double())
    out["%s/%s" % (str(dtype), norm)].update({
        "mask_dw_none": only_dx[1] is None, "no_w_dw_none": no_w[1] is None,
        "no_w_dx": within(no_w[0], xr2.grad, ulp * xr2.grad.abs() + red * scale_x0 * 4)})
x = torch.randn(4, 16).to(D)
out["bad_weight"] = error_of(lambda: torch.ops.aten._fused_rms_norm_backward(
    x, x, [16], torch.ones(4, 1).to(D), torch.ones(8).to(D), [True, True]))
out["bad_shape"] = error_of(lambda: torch.ops.aten._fused_rms_norm_backward(
    x, x, [8], torch.ones(4, 1).to(D), None, [True, True]))
print(json.dumps(out))
'''

BAD = PRELUDE + r'''
a = torch.randn(4, 64, dtype=torch.bfloat16).to(D)
u8 = torch.randint(0, 256, (8, 32), dtype=torch.uint8).to(D)
packed = torch.ops.aten._convert_weight_to_int4pack(u8, 2)
sz = torch.randn(2, 8, 2, dtype=torch.bfloat16).to(D)
f8 = torch.float8_e4m3fn
ga = torch.randn(64, 32).to(f8).to(D)
gb = torch.randn(3, 48, 32).to(f8).to(D).transpose(-2, -1)
offs = torch.tensor([16, 48, 64], dtype=torch.int32).to(D)
sa, sb = torch.ones(64).to(D), torch.ones(3, 48).to(D)
print(json.dumps({
    "convert_dtype": error_of(lambda: torch.ops.aten._convert_weight_to_int4pack(u8.to(torch.int32), 2)),
    "convert_tiles": error_of(lambda: torch.ops.aten._convert_weight_to_int4pack(u8, 3)),
    "mm_dtype": error_of(lambda: torch.ops.aten._weight_int4pack_mm(a.float(), packed, 32, sz)),
    "mm_group": error_of(lambda: torch.ops.aten._weight_int4pack_mm(a, packed, 16, sz)),
    "mm_qparams": error_of(lambda: torch.ops.aten._weight_int4pack_mm(a, packed, 32, sz[..., :1])),
    "grouped_ok": list(torch._scaled_grouped_mm(ga, gb, sa, sb, offs, None, None, torch.bfloat16).shape),
    "grouped_dtype": error_of(lambda: torch._scaled_grouped_mm(
        ga.to(torch.bfloat16), gb, sa, sb, offs, None, None, torch.bfloat16)),
    "grouped_layout": error_of(lambda: torch._scaled_grouped_mm(
        ga, gb.contiguous(), sa, sb, offs, None, None, torch.bfloat16)),
    "grouped_out": error_of(lambda: torch._scaled_grouped_mm(
        ga, gb, sa, sb, offs, None, None, torch.float32)),
    "grouped_offs": error_of(lambda: torch._scaled_grouped_mm(
        ga, gb, sa, sb, None, None, None, torch.bfloat16)),
}))
'''

_RUNS = {}


def _run(name, code):
    if name not in _RUNS:
        env = bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(RELEASE))
        _RUNS[name] = last_json(run_python(code, env=env, timeout=600))
    return _RUNS[name]


def test_int4pack_mm_matches_the_cpu_product_with_the_dequantized_weight():
    out = _run("int4", INT4)
    assert len(out["cases"]) == 12
    for case, r in out["cases"].items():
        inner = int(case.split("/")[0])
        assert r["shape"] == [5, 512 // (inner * 16), 32, inner // 2], case
        assert r["dtype"] == "torch.int32" and r["out_dtype"] == "torch.bfloat16", case
        assert r["excess"] <= 0, (case, r["excess"])
    assert out["word"][0] == out["word"][1]


def test_int4pack_round_trip_the_gpt_fast_way_reads_nibbles_as_musas_kernel_does():
    out = _run("gpt_fast", GPT_FAST)
    assert out["musa"] <= 0, out          # MUSA's two's-complement reading
    assert out["cuda"] > 0.5, out         # not CUDA's q - 8: off by 8 * scale
    assert out["fixed"] <= 0, out         # bytes ^ 0x88 give CUDA's numbers


def test_int4pack_bad_inputs_raise_the_kernels_checks():
    out = _run("bad", BAD)
    assert out["convert_dtype"].startswith("Expected in.dtype() == at::kByte to be true")
    assert out["convert_tiles"].startswith("Expected innerKTiles == 2 || innerKTiles == 4")
    assert out["mm_dtype"].startswith("Expected A.dtype() == at::kBFloat16 to be true")
    assert out["mm_group"].startswith("Expected qGroupSize == 32 || qGroupSize == 64")
    assert out["mm_qparams"].startswith("Expected qScaleAndZeros.size(2) == 2 to be true")


@pytest.mark.parametrize("case", ["2d_3d", "3d_2d", "2d_2d", "3d_3d"])
def test_scaled_grouped_mm_matches_per_group_scaled_products(case):
    r = _run("grouped", GROUPED)[case]
    assert r["dtype"] == "torch.bfloat16"
    assert r["shape"] == r["ref_shape"]
    assert r["excess"] <= 0, r


def test_scaled_grouped_mm_bad_inputs_raise_musas_checks():
    out = _run("bad", BAD)
    assert out["grouped_ok"] == [64, 48]
    assert out["grouped_dtype"] == "Expected mat_a to be Float8 matrix got BFloat16"
    assert out["grouped_layout"] == "Expected mat2 to be transposed"
    assert out["grouped_out"] == ("Only bf16 high precision output types are supported for "
                                  "grouped gemm")
    assert out["grouped_offs"] == "Have to provide offsets if there is a 2d matrix"


def test_mixed_dtypes_linear_matches_the_cpu_linear_with_musas_prepacked_weight():
    out = _run("mixed", MIXED)
    cases = {k: v for k, v in out.items() if "/" in k}
    assert len(cases) == 6
    for case, r in cases.items():
        assert r["dtype"] == case.split("/")[0], case
        assert r["shape"] == [2, 3, 256], case
        assert r["excess"] <= 0, (case, r["excess"])


def test_mixed_dtypes_linear_refuses_the_cuda_way_and_bad_shapes():
    out = _run("mixed", MIXED)
    assert out["cuda_int8"] == "_mixed_dtypes_linear: The weight datatype Char is not supported"
    assert out["cuda_scale"] == "_mixed_dtypes_linear: Expected scale datatype Float , but got Half"
    assert out["n_not_256"] == ("_mixed_dtypes_linear: N (128) must be a multiple of 256 "
                                "(BlockN of the W4A16 kernel)")


def test_fused_rms_norm_backward_matches_autograd_on_the_cpus_rms_norm():
    out = _run("rms", RMS)
    cases = {k: v for k, v in out.items() if not k.startswith("bad")}
    assert len(cases) == 3
    for case, r in cases.items():
        dtype = case.split("/")[0]
        assert r["dtypes"] == [dtype, dtype], case
        assert r["dx"] <= 0 and r["dw"] <= 0 and r["no_w_dx"] <= 0, (case, r)
        assert r["mask_dw_none"] and r["no_w_dw_none"], case


def test_fused_rms_norm_backward_bad_inputs_raise_layer_norms_checks():
    out = _run("rms", RMS)
    assert out["bad_weight"] == ("Expected weight to be of same shape as normalized_shape, but "
                                 "got weight of shape [8] and normalized_shape = [16]")
    assert out["bad_shape"] == ("Given normalized_shape=[8], expected input with shape [*, 8], "
                                "but got input of size[4, 16]")
