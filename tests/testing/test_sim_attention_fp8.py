"""Kernels torch_musa 2.7.1 registers that stock torch has no CPU kernel for, on the
simulated device: the flash-attention entries (musa_functions.yaml:498/502; layouts and
logsumexp from csrc/aten/ops/attention/mudnn/SDP.cpp) and, on torch 2.7, the float8
_scaled_mm (Matmul.cpp:548). Numbers are compared with torch's own SDPA on the CPU and
with the scaled matmul written out on CPU tensors."""
import pytest

from tests._fresh import bare_sim_env, last_json, run_python

FLASH = r'''
import json, torch, torch_musa
torch.manual_seed(0)
res = {}
for dtype in (torch.float32, torch.float64):
    q, k, v = (torch.randn(2, 3, 5, 8, dtype=dtype) for _ in range(3))
    for causal in (False, True):
        ref_in = [t.clone().requires_grad_() for t in (q, k, v)]
        ref = torch.nn.functional.scaled_dot_product_attention(*ref_in, is_causal=causal)
        g = torch.randn_like(ref)
        ref.backward(g)
        mask = torch.ones(5, 5, dtype=torch.bool).tril() if causal else torch.ones(5, 5, dtype=torch.bool)
        ref_lse = torch.logsumexp((q @ k.transpose(-2, -1) / 8 ** 0.5).masked_fill(~mask, float("-inf")), -1)
        dev = [t.to("musa").requires_grad_() for t in (q, k, v)]
        out, lse, seed, offset, debug = torch.ops.aten._flash_attention_forward(
            *dev, None, None, 5, 5, 0.0, causal, False)
        out.backward(g.to("musa"))
        res["%s causal=%s" % (str(dtype)[6:], causal)] = {
            "out": (out.cpu() - ref).abs().max().item(),
            "lse": (lse.cpu().double() - ref_lse.double()).abs().max().item(),
            "lse_dtype": str(lse.dtype), "out_shape": list(out.shape),
            "out_strides": list(out.stride()),
            "grad": max((a.grad.cpu() - b.grad).abs().max().item() for a, b in zip(dev, ref_in)),
        }
# variable length: two sequences of 3 and 5 tokens, (total, heads, dim)
lens = [3, 5]
q, k, v = (torch.randn(8, 2, 4) for _ in range(3))
cum = torch.tensor([0, 3, 8], dtype=torch.int32)
out, lse, *_ = torch.ops.aten._flash_attention_forward(
    q.to("musa"), k.to("musa"), v.to("musa"), cum.to("musa"), cum.to("musa"), 5, 5, 0.0, False, False)
err = 0.0
for b, (a, z) in enumerate([(0, 3), (3, 8)]):
    ref = torch.nn.functional.scaled_dot_product_attention(
        q[a:z].transpose(0, 1), k[a:z].transpose(0, 1), v[a:z].transpose(0, 1)).transpose(0, 1)
    err = max(err, (out.cpu()[a:z] - ref).abs().max().item())
res["varlen"] = {"out": err, "lse_shape": list(lse.shape)}
try:
    torch.ops.aten._flash_attention_forward(q.to("musa")[None], k.to("musa")[None], v.to("musa")[None],
        None, None, 8, 8, 0.0, False, False, window_size_left=2)
    res["window"] = None
except RuntimeError as e:
    res["window"] = str(e).splitlines()[0]
print(json.dumps(res))
'''


def test_flash_attention_entries_match_torchs_sdpa_on_the_cpu():
    out = last_json(run_python(FLASH, env=bare_sim_env(), timeout=600))
    for case, tol in (("float32 causal=False", 2e-6), ("float32 causal=True", 2e-6),
                      ("float64 causal=False", 1e-14), ("float64 causal=True", 1e-14)):
        row = out[case]
        assert row["out"] <= tol, (case, row)
        # the logsumexp is float32 whatever the inputs (SDP.cpp:528)
        assert row["lse_dtype"] == "torch.float32" and row["lse"] <= 1e-6, (case, row)
        # gradients use the float32 logsumexp: float32 rounding bounds them for float64 too
        assert row["grad"] <= 5e-6, (case, row)
        # (N, H, L, E) seen over an (N, L, H, E) buffer (SDP.cpp:523)
        assert row["out_shape"] == [2, 3, 5, 8] and row["out_strides"] == [120, 8, 24, 1], row
    assert out["varlen"]["out"] <= 2e-6 and out["varlen"]["lse_shape"] == [2, 2, 5], out["varlen"]
    assert out["window"] == ("_flash_attention_forward doesn't support window_size_left for "
                             "MUSA backend"), out["window"]


SCALED_MM = r'''
import json, torch, torch_musa
torch.manual_seed(0)
a = (torch.randn(16, 32) * 2).to(torch.float8_e4m3fn)
b = (torch.randn(32, 16) * 2).to(torch.float8_e4m3fn).t().contiguous().t()
sa, sb = torch.tensor(0.5), torch.tensor(2.0)
bias = torch.randn(16, dtype=torch.bfloat16)
ref = ((a.float() * sa) @ (b.float() * sb) + bias.float()).to(torch.bfloat16)
d = lambda t: t.to("musa")
out = torch._scaled_mm(d(a), d(b), d(sa), d(sb), bias=d(bias), out_dtype=torch.bfloat16)
res = {"equal": torch.equal(out.cpu(), ref), "dtype": str(out.dtype),
       "cpu_kernel": torch._C._dispatch_has_kernel_for_dispatch_key("aten::_scaled_mm", "CPU")}
try:
    torch._scaled_mm(d(a.float()), d(b), d(sa), d(sb))
    res["refused"] = None
except (RuntimeError, ValueError) as e:  # torch >= 2.8's CPU kernel words its own
    res["refused"] = [type(e).__name__, str(e).splitlines()[0]]
try:  # the same call on the CPU, where torch has a CPU kernel: the reference refusal
    torch._scaled_mm(a.float(), b, sa, sb)
    res["cpu_refused"] = None
except (RuntimeError, ValueError) as e:
    res["cpu_refused"] = [type(e).__name__, str(e).splitlines()[0]]
print(json.dumps(res))
'''


def test_scaled_mm_runs_with_cudas_arithmetic():
    out = last_json(run_python(SCALED_MM, env=bare_sim_env(), timeout=600))
    assert out["equal"] and out["dtype"] == "torch.bfloat16", out
    # torch_musa's check (Matmul.cpp) where the simulator's kernel runs; where torch has a
    # CPU kernel (torch >= 2.8) the fallback runs it, so the refusal is the CPU's own, which
    # differs between torch releases (RuntimeError on 2.9, ValueError on 2.13)
    if not out["cpu_kernel"]:
        assert out["refused"] == ["RuntimeError", "Expected mat1 to be Float8 matrix got Float"], out
    else:
        assert out["refused"] is not None and out["refused"] == out["cpu_refused"], out
