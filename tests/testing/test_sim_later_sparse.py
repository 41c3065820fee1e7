"""torch_musa 2.9.1.post1's semi-structured (2:4) sparsity and cuSPARSELt rows, modelled by
_sim/later_sparse_kernels.py with the arithmetic of PyTorch's CUDA kernels: every result is
compared with something independent of the model: the dense CPU product of the pruned
matrix, torch's own pure-Python CUTLASS conversion (torch/sparse/_semi_structured_conversions),
exact integer products, and the user-level path (torch.sparse.to_sparse_semi_structured, both
subclasses) against the CPU dense result. Bad input raises a RuntimeError naming the problem,
and the process goes on."""
import pytest

from tests._fresh import bare_sim_env, last_json, run_python, sim_env
from tests._releases import importable_or_skip

RELEASE = "2.9.1.post1"

PRELUDE = r'''
import json, warnings
warnings.simplefilter("ignore")
import torch
from torch.sparse._semi_structured_conversions import (
    sparse_semi_structured_from_dense_cutlass as from_dense,
    sparse_semi_structured_to_dense_cutlass as to_dense,
    _sparse_semi_structured_tile as py_tile)
torch.manual_seed(0)
EPS = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}

def prune24(x):
    """Keep the two largest magnitudes of every group of 4 (exactly two non-zeros)."""
    g = x.reshape(x.shape[0], -1, 4)
    keep = torch.zeros_like(g, dtype=torch.bool).scatter_(-1, g.abs().topk(2, -1).indices, True)
    return torch.where(keep, g, torch.zeros((), dtype=x.dtype)).reshape(x.shape)

def dense24(rows, cols, dtype):
    if dtype == torch.int8:
        x = torch.randint(1, 8, (rows, cols)) * (torch.randint(0, 2, (rows, cols)) * 2 - 1)
        return prune24(x.float()).to(torch.int8)
    return prune24(torch.randn(rows, cols)).to(dtype)

def ulps(got, ref):
    """Largest error in units of the output dtype's epsilon at the reference's magnitude."""
    eps = EPS[got.dtype]
    ref = ref.float()
    err = (got.cpu().float() - ref).abs()
    return (err / (ref.abs().clamp_min(1e-3) * eps)).max().item()

def error(call):
    try:
        call()
    except RuntimeError as exc:
        return str(exc)
    return None

out = {}
'''

KERNELS = PRELUDE + r'''
import torch_musa
dev = "musa"
M = lambda t: t.to(dev)

# _to_sparse_semi_structured: torch's Python conversion gives the same values and metadata
for dtype in (torch.float16, torch.bfloat16, torch.int8):
    A = dense24(64, 128, dtype)
    vals, meta = torch._to_sparse_semi_structured(M(A))
    rv, rm = from_dense(A)
    out["to_sparse_" + str(dtype)] = [vals.device.type, meta.dtype == rm.dtype,
                                      torch.equal(vals.cpu(), rv), torch.equal(meta.cpu(), rm),
                                      torch.equal(to_dense(vals.cpu(), meta.cpu()), A)]
A32 = torch.randn(32, 64)
A32 = A32 * (torch.arange(64) % 2 == torch.randint(0, 2, (32, 32)).repeat_interleave(2, 1))
vals, meta = torch._to_sparse_semi_structured(M(A32))
out["to_sparse_float32"] = [torch.equal(vals.cpu(), from_dense(A32)[0]),
                            torch.equal(meta.cpu(), from_dense(A32)[1])]

# _sparse_semi_structured_mm / _addmm against the dense CPU product (float32 accumulation)
for dtype in (torch.float16, torch.bfloat16):
    A, B = dense24(64, 128, dtype), torch.randn(128, 48).to(dtype)
    vals, meta = torch._to_sparse_semi_structured(M(A))
    ref = (A.float() @ B.float()).to(dtype)
    got = torch._sparse_semi_structured_mm(vals, meta, M(B))
    bias = torch.randn(64).to(dtype)
    ref_add = (0.5 * (A.float() @ B.float()) + 2.0 * bias.float()[:, None]).to(dtype)
    got_add = torch._sparse_semi_structured_addmm(M(bias), vals, meta, M(B), alpha=0.5, beta=2.0)
    Bt = M(B.t().contiguous()).t()  # column-major mat2
    got_t = torch._sparse_semi_structured_mm(vals, meta, Bt)
    out["mm_" + str(dtype)] = [got.dtype == dtype, tuple(got.shape), ulps(got, ref),
                               ulps(got_add, ref_add), ulps(got_t, ref)]
A, B = dense24(32, 128, torch.int8), torch.randint(-8, 8, (128, 16), dtype=torch.int8)
vals, meta = torch._to_sparse_semi_structured(M(A))
ref = A.long() @ B.long()
got32 = torch._sparse_semi_structured_mm(vals, meta, M(B), out_dtype=torch.int32)
bias = torch.randint(-50, 50, (32,), dtype=torch.int32)
got_add = torch._sparse_semi_structured_addmm(M(bias), vals, meta, M(B), alpha=2, beta=3,
                                              out_dtype=torch.int32)
small = torch._sparse_semi_structured_mm(vals, meta, M((B // 8).to(torch.int8)))
out["mm_int8"] = [got32.dtype == torch.int32, torch.equal(got32.cpu().long(), ref),
                  torch.equal(got_add.cpu().long(), 2 * ref + 3 * bias.long()[:, None]),
                  small.dtype == torch.int8,
                  torch.equal(small.cpu().long(), (A.long() @ (B // 8).long()).clamp(-128, 127))]
vals, meta = torch._to_sparse_semi_structured(M(A32))
B32 = torch.randn(64, 8)
got = torch._sparse_semi_structured_mm(vals, meta, M(B32)).cpu().double()
exact = A32.double() @ B32.double()
bound = (A32.abs().double() @ B32.abs().double()) * (2.0 ** -10 + 64 * 2.0 ** -24)
out["mm_float32_tf32"] = [bool(((got - exact).abs() <= bound).all()),
                          (got - exact).abs().max().item()]

# _sparse_semi_structured_linear: input @ weight.T + bias, activation, batch dims kept
W, x = dense24(64, 128, torch.float16), torch.randn(2, 8, 128).half()
vals, meta = torch._to_sparse_semi_structured(M(W))
bias = torch.randn(64).half()
lin = (x.float() @ W.float().t()) + bias.float()
res = {}
for act, fn in ((None, lambda t: t), ("relu", torch.relu), ("silu", torch.nn.functional.silu)):
    got = torch._sparse_semi_structured_linear(M(x), vals, meta, bias=M(bias), activation=act)
    res[str(act)] = [tuple(got.shape), ulps(got, fn(lin).half())]
out["linear"] = res
Wi, xi = dense24(32, 128, torch.int8), torch.randint(-4, 4, (16, 128), dtype=torch.int8)
vals, meta = torch._to_sparse_semi_structured(M(Wi))
got = torch._sparse_semi_structured_linear(M(xi), vals, meta, activation="relu",
                                           out_dtype=torch.int32)
out["linear_int8"] = [got.dtype == torch.int32,
                      torch.equal(got.cpu().long(), (xi.long() @ Wi.long().t()).clamp_min(0))]

# cuSPARSELt: PyTorch's compressed size, values as SparseSemiStructuredTensor.values() reads
cs = {}
for dtype, factor in ((torch.float16, 9), (torch.bfloat16, 9), (torch.int8, 10)):
    A = dense24(64, 128, dtype)
    c = torch._cslt_compress(M(A))
    cs[str(dtype)] = [c.numel() == A.numel() * factor // 16, c.dtype == dtype,
                      torch.equal(c.cpu()[:64 * 64].view(64, 64), from_dense(A)[0])]
out["cslt_compress"] = cs
A, B = dense24(64, 128, torch.float16), torch.randn(128, 32).half()
c = torch._cslt_compress(M(A))
ref = A.float() @ B.float()
bias, alpha = torch.randn(64).half(), torch.rand(64) + 0.5
got = torch._cslt_sparse_mm(c, M(B))
got_t = torch._cslt_sparse_mm(c, M(B), transpose_result=True)
got_ba = torch._cslt_sparse_mm(c, M(B), bias=M(bias), alpha=M(alpha), alg_id=0)
got_colB = torch._cslt_sparse_mm(c, M(B.t().contiguous()).t())
out["cslt_mm"] = [ulps(got, ref.half()), tuple(got_t.shape), ulps(got_t, ref.t().half()),
                  got_t.is_contiguous(),
                  ulps(got_ba, (alpha[:, None] * ref + bias.float()[:, None]).half()),
                  ulps(got_colB, ref.half())]
Ai, Bi = dense24(64, 128, torch.int8), torch.randint(-8, 8, (128, 32), dtype=torch.int8)
ci = torch._cslt_compress(M(Ai))
got = torch._cslt_sparse_mm(ci, M(Bi), out_dtype=torch.int32)
small = torch._cslt_sparse_mm(ci, M((Bi // 8).to(torch.int8)))
out["cslt_mm_int8"] = [torch.equal(got.cpu().long(), Ai.long() @ Bi.long()),
                       small.dtype == torch.int8,
                       torch.equal(small.cpu().long(), (Ai.long() @ (Bi // 8).long()).clamp(-128, 127))]
alg = torch._cslt_sparse_mm_search(c, M(B))
out["cslt_search"] = [type(alg).__name__, alg, ulps(torch._cslt_sparse_mm(c, M(B), alg_id=alg),
                                                    ref.half())]

# _sparse_semi_structured_tile against torch's Python greedy pruning of the same 4x4 tiles
def bitmask(pruned):
    """Independent Tile8x8Masks: per 8x8 block, the 16-bit masks of its 4x4 tiles a, b, c, d
    (bit col + 4 * row), little-endian bytes."""
    rows, cols = pruned.shape
    nz = (pruned != 0).tolist()
    res = torch.zeros(rows // 8, cols // 8, 8, dtype=torch.uint8)
    for bi in range(rows // 8):
        for bj in range(cols // 8):
            for t, (ti, tj) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                word = sum(1 << (c + 4 * r) for r in range(4) for c in range(4)
                           if nz[bi * 8 + ti * 4 + r][bj * 8 + tj * 4 + c])
                res[bi, bj, 2 * t], res[bi, bj, 2 * t + 1] = word & 0xFF, word >> 8
    return res

def flat_meta(meta, rows, cols):
    return torch.as_strided(meta.cpu(), (rows, cols // 16), (cols // 16, 1))

def distinct_tiles(rows, cols):
    """Values whose magnitudes differ within every 4x4 tile (CUDA's sorting network orders
    equal values its own way), random signs, exact in half and bfloat16."""
    j = torch.argsort(torch.rand(rows // 4 * cols // 4, 16), dim=1).float()
    sign = torch.randint(0, 2, j.shape).float() * 2 - 1
    t = (sign * (1 + j / 16)).reshape(rows // 4, cols // 4, 4, 4)
    return t.permute(0, 2, 1, 3).reshape(rows, cols)

tile = {}
for dtype in (torch.float16, torch.bfloat16):
    D = distinct_tiles(64, 128).to(dtype)
    pruned = py_tile(D.clone())
    packed, meta, packed_t, meta_t, masks = torch._sparse_semi_structured_tile(M(D))
    abs_pruned = py_tile(D.abs().clone())
    abs_out = torch._sparse_semi_structured_tile(M(D), algorithm="largest_abs_values_greedy")
    E = torch.randn(64, 128).to(dtype)
    keep = pruned != 0
    ap, apt = torch._sparse_semi_structured_apply(M(E), masks)
    ad = torch._sparse_semi_structured_apply_dense(M(E), masks)
    tile[str(dtype)] = [
        tuple(meta.shape), meta.dtype == torch.int16, masks.dtype == torch.uint8,
        torch.equal(to_dense(packed.cpu(), flat_meta(meta, 64, 128)), pruned),
        torch.equal(to_dense(packed_t.cpu(), flat_meta(meta_t, 128, 64)), pruned.t()),
        torch.equal(masks.cpu(), bitmask(pruned)),
        torch.equal(to_dense(abs_out[0].cpu(), flat_meta(abs_out[1], 64, 128)) != 0,
                    abs_pruned != 0),
        torch.equal(to_dense(ap.cpu(), flat_meta(meta, 64, 128)), E * keep),
        torch.equal(to_dense(apt.cpu(), flat_meta(meta_t, 128, 64)), (E * keep).t()),
        torch.equal(ad.cpu(), E * keep),
        int((keep.reshape(16, 4, 32, 4).sum(3) <= 2).all() and
            (keep.reshape(16, 4, 32, 4).sum(1) <= 2).all())]
out["tile"] = tile
D = torch.randn(64, 128).half()
causal = torch._sparse_semi_structured_tile(M(D), algorithm="causal1122")
kept = to_dense(causal[0].cpu(), flat_meta(causal[1], 64, 128)) != 0
per_row = kept.reshape(16, 4, 32, 4).sum(3)
out["tile_causal"] = [per_row[:, :2].max().item(), per_row[:, 2:].max().item(),
                      kept.reshape(16, 4, 32, 4).sum(1).max().item(),
                      torch.equal(to_dense(causal[0].cpu(), flat_meta(causal[1], 64, 128)), D * kept)]
D, B = torch.randn(128, 128).half(), torch.randn(128, 32).half()
pk, pm, pkt, pmt, masks = torch._sparse_semi_structured_tile(M(D), use_cutlass=False)
pruned = torch._sparse_semi_structured_apply_dense(M(D), masks).cpu()
out["tile_cusparselt"] = [pk.numel() == 128 * 128 * 9 // 16, tuple(pm.shape),
                          ulps(torch._cslt_sparse_mm(pk, M(B)), (pruned.float() @ B.float()).half()),
                          ulps(torch._cslt_sparse_mm(pkt, M(B)), (pruned.t().float() @ B.float()).half()),
                          torch.equal(pruned, py_tile(D.clone()))]

# bad input: a RuntimeError naming the problem, and the process goes on
A = dense24(64, 128, torch.float16)
dense_bad = A.clone(); dense_bad[0, :4] = 1
vals, meta = torch._to_sparse_semi_structured(M(A))
out["errors"] = {
    "to_sparse_not_24": error(lambda: torch._to_sparse_semi_structured(M(dense_bad))),
    "to_sparse_dtype": error(lambda: torch._to_sparse_semi_structured(M(A.double()))),
    "to_sparse_rows": error(lambda: torch._to_sparse_semi_structured(M(A[:48]))),
    "to_sparse_dim": error(lambda: torch._to_sparse_semi_structured(M(A[0]))),
    "mm_shape": error(lambda: torch._sparse_semi_structured_mm(vals, meta, M(torch.randn(64, 8).half()))),
    "mm_dtype": error(lambda: torch._sparse_semi_structured_mm(vals, meta, M(torch.randn(128, 8)))),
    "mm_meta": error(lambda: torch._sparse_semi_structured_mm(vals, meta.int(), M(torch.randn(128, 8).half()))),
    "addmm_input": error(lambda: torch._sparse_semi_structured_addmm(M(torch.randn(63).half()), vals, meta, M(torch.randn(128, 8).half()))),
    "linear_activation": error(lambda: torch._sparse_semi_structured_linear(M(torch.randn(4, 128).half()), vals, meta, activation="gelu")),
    "linear_out_dtype": error(lambda: torch._sparse_semi_structured_linear(M(torch.randn(4, 128).half()), vals, meta, out_dtype=torch.float32)),
    "cslt_not_24": error(lambda: torch._cslt_compress(M(dense_bad))),
    "cslt_dtype": error(lambda: torch._cslt_compress(M(A.double()))),
    "cslt_shape": error(lambda: torch._cslt_sparse_mm(torch._cslt_compress(M(A)), M(torch.randn(96, 8).half()))),
    "cslt_out_dtype": error(lambda: torch._cslt_sparse_mm(torch._cslt_compress(M(A)), M(torch.randn(128, 8).half()), out_dtype=torch.int32)),
    "tile_algorithm": error(lambda: torch._sparse_semi_structured_tile(M(A), algorithm="best")),
    "tile_dtype": error(lambda: torch._sparse_semi_structured_tile(M(A.float()))),
    "tile_cusparselt_shape": error(lambda: torch._sparse_semi_structured_tile(M(A), use_cutlass=False)),
    "apply_masks": error(lambda: torch._sparse_semi_structured_apply(M(A), M(torch.zeros(2, 2, 8, dtype=torch.uint8)))),
    "apply_dense_dtype": error(lambda: torch._sparse_semi_structured_apply_dense(M(A.float()), M(torch.zeros(8, 16, 8, dtype=torch.uint8)))),
}
after = torch._sparse_semi_structured_mm(vals, meta, M(torch.eye(128).half()))
out["after_errors"] = torch.equal(after.cpu(), A)
print(json.dumps(out))
'''

USER = PRELUDE + r'''
from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured
W, x = dense24(128, 128, torch.float16), torch.randn(64, 128).half()
bias = torch.randn(128).half()
for cutlass in (True, False):
    SparseSemiStructuredTensor._FORCE_CUTLASS = cutlass
    Ws = to_sparse_semi_structured(W.cuda())
    lin = torch.nn.functional.linear(x.cuda(), Ws, bias.cuda())
    mm = Ws @ x.t().cuda()
    ref = x.float() @ W.float().t() + bias.float()
    bad = W.clone(); bad[0, :4] = 1
    out["cutlass" if cutlass else "cusparselt"] = {
        "class": type(Ws).__name__, "device": Ws.device.type,
        "linear": [tuple(lin.shape), lin.device.type, ulps(lin, ref.half())],
        "mm": ulps(mm, (W.float() @ x.float().t()).half()),
        "values": torch.equal(Ws.values().cpu(), from_dense(W)[0]),
        "dtype": error(lambda: to_sparse_semi_structured(W.double().cuda())),
        "shape": error(lambda: to_sparse_semi_structured(W[:, :40].contiguous().cuda())),
        "not_24": (error(lambda: to_sparse_semi_structured(bad.cuda()))
                   or error(lambda: to_sparse_semi_structured(bad.cuda()) @ x.t().cuda())),
    }
print(json.dumps(out))
'''

_RUNS = {}


def _run(name):
    if name not in _RUNS:
        label = importable_or_skip(RELEASE)
        env = (bare_sim_env if name == "kernels" else sim_env)(
            TORCHADA_SIM_TORCH_MUSA_VERSION=label)
        _RUNS[name] = last_json(run_python(KERNELS if name == "kernels" else USER, env=env,
                                           timeout=600))
    return _RUNS[name]


def test_to_sparse_semi_structured_matches_torchs_python_cutlass_conversion():
    out = _run("kernels")
    for dtype in ("torch.float16", "torch.bfloat16", "torch.int8"):
        assert out["to_sparse_" + dtype] == ["musa", True, True, True, True], dtype
    assert out["to_sparse_float32"] == [True, True]


def test_sparse_mm_and_addmm_are_the_dense_cpu_product():
    out = _run("kernels")
    for dtype in ("torch.float16", "torch.bfloat16"):
        same_dtype, shape, *errors = out["mm_" + dtype]
        assert same_dtype and shape == [64, 48]
        assert max(errors) <= 1.0, (dtype, errors)  # one rounding of a float32 accumulation
    assert out["mm_int8"] == [True, True, True, True, True]  # exact integer arithmetic
    within, worst = out["mm_float32_tf32"]
    assert within, worst  # TF32 operands, float32 accumulation


def test_sparse_linear_applies_bias_and_activation():
    out = _run("kernels")
    for act, (shape, err) in out["linear"].items():
        assert shape == [2, 8, 64], act
        assert err <= 1.0, (act, err)
    assert out["linear_int8"] == [True, True]


def test_cslt_compress_size_and_values():
    out = _run("kernels")
    assert out["cslt_compress"] == {"torch.float16": [True, True, True],
                                    "torch.bfloat16": [True, True, True],
                                    "torch.int8": [True, True, True]}


def test_cslt_sparse_mm_and_search():
    out = _run("kernels")
    err, shape_t, err_t, contiguous_t, err_bias_alpha, err_col = out["cslt_mm"]
    assert shape_t == [32, 64] and contiguous_t
    assert max(err, err_t, err_bias_alpha, err_col) <= 1.0
    assert out["cslt_mm_int8"] == [True, True, True]
    kind, alg, err = out["cslt_search"]
    assert kind == "int" and alg == 0 and err <= 1.0


def test_tile_prunes_as_torchs_greedy_and_apply_reuses_its_masks():
    out = _run("kernels")
    for dtype, checks in out["tile"].items():
        assert checks == [[64, 2, 4], True, True] + [True] * 7 + [1], dtype
    row01, row23, per_col, packed_ok = out["tile_causal"]
    assert row01 <= 1 and row23 <= 2 and per_col <= 2 and packed_ok
    total, meta_shape, err, err_t, same = out["tile_cusparselt"]
    assert total and meta_shape == [1, 4, 256] and same
    assert max(err, err_t) <= 1.0


EXPECTED_ERRORS = {
    "to_sparse_not_24": "2:4 sparsity pattern", "to_sparse_dtype": "datatype",
    "to_sparse_rows": "divisible by 32", "to_sparse_dim": "2D",
    "mm_shape": "columns", "mm_dtype": "datatype", "mm_meta": "meta datatype",
    "addmm_input": "elements", "linear_activation": "gelu", "linear_out_dtype": "out_dtype",
    "cslt_not_24": "2:4", "cslt_dtype": "Unsupported dtype", "cslt_shape": "compressed",
    "cslt_out_dtype": "int8 inputs", "tile_algorithm": "Unknown algorithm",
    "tile_dtype": "not supported", "tile_cusparselt_shape": "multiples of 128",
    "apply_masks": "thread_masks", "apply_dense_dtype": "Unsupported `input` dtype",
}


def test_bad_input_raises_runtime_errors_naming_the_problem():
    out = _run("kernels")
    assert sorted(out["errors"]) == sorted(EXPECTED_ERRORS)
    for name, needle in EXPECTED_ERRORS.items():
        assert out["errors"][name] is not None, name + " did not raise"
        assert needle in out["errors"][name], (name, out["errors"][name])
    assert out["after_errors"] is True


@pytest.mark.parametrize("backend", ["cutlass", "cusparselt"])
def test_user_level_to_sparse_semi_structured_on_musa(backend):
    got = _run("user")[backend]
    assert got["class"] == "SparseSemiStructuredTensor" + backend.upper()
    assert got["device"] == "musa"
    shape, device, err = got["linear"]
    assert shape == [64, 128] and device == "musa" and err <= 1.0
    assert got["mm"] <= 1.0
    assert got["values"] is True
    assert "dtype" in got["dtype"] and "shape" in got["shape"]
    if backend == "cusparselt":  # the compression checks the pattern
        assert got["not_24"] is not None and "2:4" in got["not_24"]
    else:  # torch's Python CUTLASS conversion encodes any pattern; nothing crashes
        assert got["not_24"] is None
