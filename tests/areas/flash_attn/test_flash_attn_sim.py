"""The MUSA FlashAttention provider behind sgl_kernel.flash_attn, only_qv on legacy entry
points, and the _flash_attn_forward adapter; numbers checked against torch's CPU attention.

The provider is tests/fixtures/musa_fa3 (see its README); an installed sgl_kernel is
tests/fixtures/sgl_kernel_installed."""
import os

from tests._fresh import FIXTURES, clean_env, last_json, run_python, sim_env

FA3 = str(FIXTURES / "musa_fa3")
SGL = str(FIXTURES / "sgl_kernel_installed")

# Reference: torch's scaled_dot_product_attention on the CPU, FA layout (b, s, h, d); causal
# aligned to the bottom right as FlashAttention does (query i sees keys <= i + sk - sq).
COMMON = """
import json, sys
import torch, torchada
torch.manual_seed(0)
q = torch.randn(2, 5, 3, 8, device="cuda")
k = torch.randn(2, 7, 3, 8, device="cuda")
v = torch.randn(2, 7, 3, 8, device="cuda")
def reference(causal):
    qc, kc, vc = (t.cpu().transpose(1, 2) for t in (q, k, v))
    mask = torch.ones(5, 7, dtype=torch.bool).tril(2) if causal else None
    out = torch.nn.functional.scaled_dot_product_attention(qc, kc, vc, attn_mask=mask)
    scores = (qc @ kc.transpose(-1, -2)) * 8 ** -0.5
    if causal:
        scores = scores.masked_fill(~mask, float("-inf"))
    return out.transpose(1, 2), torch.logsumexp(scores, -1)
def err(a, b):
    return (a.cpu().float() - b).abs().max().item()
def outcome(fn):
    try:
        return "ok: %r" % (fn(),)
    except Exception as exc:
        return "%s: %s" % (type(exc).__name__, exc)
"""


def run(code, **env):
    return last_json(run_python(COMMON + code, env=sim_env(**env)))


def test_sgl_kernel_flash_attn_is_the_provider_and_computes_attention():
    out = run("""
from sgl_kernel.flash_attn import flash_attn_with_kvcache, flash_attn_varlen_func
import sgl_kernel, flash_attn_interface as fai
ref, lse_ref = reference(True)
o = flash_attn_with_kvcache(q, k, v, causal=True)
o2, lse = flash_attn_with_kvcache(q, k, v, causal=True, only_qv=False, return_softmax_lse=True)
print(json.dumps({"same": sys.modules["sgl_kernel.flash_attn"] is fai and sgl_kernel.flash_attn is fai,
                  "stub_path": sgl_kernel.__path__, "device": str(o.device),
                  "err": err(o, ref), "err2": err(o2, ref), "lse": err(lse, lse_ref),
                  "kv_calls": [c for c in fai.calls if c[0] == "flash_attn_with_kvcache"]}))
""", PYTHONPATH=FA3)
    assert out["same"] is True and out["stub_path"] == []
    assert out["device"] == "musa:0"
    # float32 softmax attention in a different order of summation: a few ulps of 1.0
    assert out["err"] < 1e-6 and out["err2"] < 1e-6 and out["lse"] < 1e-5
    assert len(out["kv_calls"]) == 2  # only_qv=False was dropped, the call went through


def test_only_qv_true_fails_closed_and_kwargs_entry_points_are_untouched():
    out = run("""
import flash_attn_interface as fai
from sgl_kernel.flash_attn import flash_attn_with_kvcache
raw_varlen = fai.flash_attn_varlen_func.__dict__.get("__torchada_only_qv__")
cu = torch.tensor([0, 5], device="cuda")
varlen = outcome(lambda: fai.flash_attn_varlen_func(q[0], k[0], v[0], cu, torch.tensor([0, 7], device="cuda"), only_qv=False).shape)
print(json.dumps({"true": outcome(lambda: flash_attn_with_kvcache(q, k, v, only_qv=True)),
                  "varlen_wrapped": raw_varlen is not None, "varlen": varlen,
                  "varlen_kwargs": fai.calls[-1][1]}))
""", PYTHONPATH=FA3)
    assert out["true"] == (
        "TypeError: flash_attn_interface.flash_attn_with_kvcache(only_qv=True): this MUSA "
        "FlashAttention provider has no only_qv path (its signature lacks the parameter). "
        "Upgrade the flash_attn_interface provider, or run the attention backend that does "
        "not request it")
    # **kwargs may forward only_qv: that entry point is not wrapped, the keyword reaches it
    assert out["varlen_wrapped"] is False and out["varlen_kwargs"] == ["only_qv"]
    assert out["varlen"] == "ok: torch.Size([5, 3, 8])"


def test_forward_adapter_returns_output_and_lse_and_fails_closed():
    out = run("""
import flash_attn_interface as fai
ref, lse_ref = reference(False)
o, lse, s, rng = fai._flash_attn_forward(q, k, v, 0.0, None, False)
print(json.dumps({"err": err(o, ref), "lse": err(lse, lse_ref), "extras": [s, rng],
                  "window": fai.calls[-1][1], "adapter": getattr(fai._flash_attn_forward, "__torchada_adapter__", False),
                  "dropout": outcome(lambda: fai._flash_attn_forward(q, k, v, 0.1, None, False)),
                  "probs": outcome(lambda: fai._flash_attn_forward(q, k, v, 0.0, None, False, -1, -1, 0.0, None, True))}))
""", PYTHONPATH=FA3)
    assert out["adapter"] is True and out["extras"] == [None, None]
    assert out["err"] < 1e-6 and out["lse"] < 1e-5
    assert out["window"] == [-1, -1]  # window_size_left/right became FA3's window_size
    assert out["dropout"].startswith("NotImplementedError: flash_attn_interface._flash_attn_forward"
                                     "(dropout_p=...)")
    assert out["probs"].startswith("NotImplementedError: flash_attn_interface._flash_attn_forward"
                                   "(return_softmax=...)")


def test_provider_without_lse_makes_the_adapter_fail_closed():
    out = run("""
import flash_attn_interface as fai
print(json.dumps({"r": outcome(lambda: fai._flash_attn_forward(q, k, v))}))
""", PYTHONPATH=FA3, FAKE_FA3_VARIANT="no_lse")
    assert out["r"] == ("RuntimeError: flash_attn_interface.flash_attn_func(return_softmax_lse=True) "
                        "returned Tensor, not (out, softmax_lse): this provider cannot back "
                        "_flash_attn_forward")


def test_modern_provider_is_left_alone():
    out = run("""
import flash_attn_interface as fai
from sgl_kernel.flash_attn import flash_attn_with_kvcache
flash_attn_with_kvcache(q, k, v, only_qv=True)
print(json.dumps({"wrapped": [n for n in ("flash_attn_func", "flash_attn_with_kvcache")
                              if hasattr(getattr(fai, n), "__torchada_only_qv__")],
                  "only_qv_seen": fai.calls[-1][1],
                  "forward": fai._flash_attn_forward(q, k, v, 0.0, None, False)[2]}))
""", PYTHONPATH=FA3, FAKE_FA3_VARIANT="modern")
    assert out == {"wrapped": [], "only_qv_seen": True, "forward": "provider-own"}


def test_installed_sgl_kernel_keeps_its_other_modules():
    for order in ("import sgl_kernel", "import flash_attn_interface"):
        out = run(order + """
from sgl_kernel.other import ORIGIN
from sgl_kernel import flash_attn
import sgl_kernel, flash_attn_interface
print(json.dumps({"origin": ORIGIN, "installed": getattr(sgl_kernel, "INSTALLED", False),
                  "fa": flash_attn is flash_attn_interface}))
""", PYTHONPATH=os.pathsep.join([SGL, FA3]))
        assert out == {"origin": "installed sgl_kernel", "installed": True, "fa": True}, order


def test_without_a_provider_sgl_kernel_is_not_supplied():
    out = run("""
print(json.dumps({"r": outcome(lambda: __import__("sgl_kernel.flash_attn"))}))
""")
    assert out["r"] == "ModuleNotFoundError: No module named 'sgl_kernel'"


def test_off_musa_nothing_is_supplied_or_wrapped():
    proc = run_python("""
import json, torch, torchada, flash_attn_interface as fai, inspect
try:
    import sgl_kernel.flash_attn
    r = "imported"
except ModuleNotFoundError as exc:
    r = str(exc)
print(json.dumps({"r": r, "params": list(inspect.signature(fai.flash_attn_with_kvcache).parameters)[-2:],
                  "forward": hasattr(fai, "_flash_attn_forward")}))
""", env=clean_env(PYTHONPATH=FA3))
    out = last_json(proc)
    assert out == {"r": "No module named 'sgl_kernel'",
                   "params": ["softcap", "return_softmax_lse"], "forward": False}


def test_status_names_the_modules_supplied():
    out = run("""
import sgl_kernel.flash_attn
area = [a for a in torchada.status().areas if a.name == "flash_attn"][0]
print(json.dumps({"note": area.note}))
""", PYTHONPATH=FA3)
    assert "supplied: sgl_kernel, sgl_kernel.flash_attn" in out["note"]
