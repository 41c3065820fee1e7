"""Kernels torch_musa registers for PrivateUse1 where stock torch has no CPU kernel, so the
simulator's CPU fallback cannot serve them.

torch_musa v2.7.1 ports these from PyTorch's CUDA sources: its musa_functions.yaml names
the CUDA functions as the PrivateUse1 kernels (``_thnn_fused_lstm_cell_cuda`` at line 3889,
``_thnn_fused_lstm_cell_backward_impl_cuda`` 3895, ``_thnn_fused_gru_cell_cuda`` 3901,
``_thnn_fused_gru_cell_backward_cuda`` 3907, ``batch_norm_stats_cuda`` 1128,
``batch_norm_gather_stats_with_counts_cuda`` 1134, ``batch_norm_elemt_cuda`` 1140,
``batch_norm_backward_reduce_cuda`` 1152, ``batch_norm_backward_elemt_cuda`` 1158). Each
kernel below follows that CUDA function's arithmetic: the RNN cells from
``aten/src/ATen/native/cuda/RNN.cu`` (kernel::lstm_cell_forward / lstm_cell_backward /
gru_cell_forward / gru_cell_backward), the SyncBatchNorm statistics from
``aten/src/ATen/native/cuda/Normalization.cuh`` and ``Normalization.cu``. Element-wise
steps are torch ops on musa tensors (they run on the CPU kernels); the accumulation type
is CUDA's ``acc_type<scalar_t, true>`` (float for half and bfloat16).

Only the PrivateUse1 slot is registered: autograd stays torch's (derivatives.yaml sends
``_thnn_fused_*_cell`` backward to the backward kernels here; SyncBatchNorm's
autograd.Function calls the statistics kernels itself).
"""
import torch

_LIBRARY = None


def _acc(dtype):
    """at::acc_type<scalar_t, /*is_cuda=*/true> for floating types."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _sigmoid(x):
    # RNN.cu: sigmoid(in) = 1 / (1 + exp(-in)), in the accumulation type
    return 1.0 / (1.0 + torch.exp(-x))


def _gates(input_gates, hidden_gates, input_bias, hidden_bias, acc):
    # RNN.cu sums input gate + hidden gate + input bias + hidden bias, left to right
    g = input_gates.to(acc) + hidden_gates.to(acc)
    if input_bias is not None:
        g = g + input_bias.to(acc) + hidden_bias.to(acc)
    return g


# ---------------------------------------------------------------- LSTM / GRU cells
def thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    # RNN.cu kernel::lstm_cell_forward; returns (hy, cy, workspace = [i, f, c, o] gates)
    dtype, acc = input_gates.dtype, _acc(input_gates.dtype)
    i, f, c, o = _gates(input_gates, hidden_gates, input_bias, hidden_bias, acc).chunk(4, 1)
    ig, fg, cg, og = _sigmoid(i), _sigmoid(f), torch.tanh(c), _sigmoid(o)
    cy = fg * cx.to(acc) + ig * cg
    hy = og * torch.tanh(cy)
    workspace = torch.cat([ig, fg, cg, og], 1).to(dtype)
    return hy.to(dtype).contiguous(), cy.to(dtype).contiguous(), workspace


def thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    # RNN.cu kernel::lstm_cell_backward and _thnn_fused_lstm_cell_backward_impl_cuda
    if grad_hy is None and grad_cy is None:
        return None, None, None
    dtype, acc = workspace.dtype, _acc(workspace.dtype)
    ig, fg, cg, og = (w.to(acc) for w in workspace.chunk(4, 1))
    zero = torch.zeros_like(cy, dtype=acc)
    go = grad_hy.to(acc) if grad_hy is not None else zero
    goc = grad_cy.to(acc) if grad_cy is not None else zero
    gcx = torch.tanh(cy.to(acc))
    gog = go * gcx
    gcx = go * og * (1 - gcx * gcx) + goc
    gig = gcx * cg
    gfg = gcx * cx.to(acc)
    gcg = gcx * ig
    gcx = gcx * fg
    gig = gig * (1 - ig) * ig
    gfg = gfg * (1 - fg) * fg
    gcg = gcg * (1 - cg * cg)
    gog = gog * (1 - og) * og
    grad_gates = torch.cat([gig, gfg, gcg, gog], 1).to(dtype)
    grad_bias = grad_gates.sum(0) if has_bias else None
    return grad_gates, gcx.to(dtype).contiguous(), grad_bias


def thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    # RNN.cu kernel::gru_cell_forward; workspace = [r, i, n, hx, hn + b_hn] (5 * hidden)
    dtype, acc = input_gates.dtype, _acc(input_gates.dtype)
    ir, ii, in_ = input_gates.to(acc).chunk(3, 1)
    hr, hi, hn = hidden_gates.to(acc).chunk(3, 1)
    rg_in, ig_in = ir + hr, ii + hi
    if input_bias is not None:
        b1r, b1i, b1n = input_bias.to(acc).chunk(3)
        b2r, b2i, b2n = hidden_bias.to(acc).chunk(3)
        rg_in, ig_in, in_, hn = rg_in + b1r + b2r, ig_in + b1i + b2i, in_ + b1n, hn + b2n
    rg, ig = _sigmoid(rg_in), _sigmoid(ig_in)
    ng = torch.tanh(in_ + rg * hn)
    hy = ng + ig * (hx.to(acc) - ng)
    workspace = torch.cat([rg.to(dtype), ig.to(dtype), ng.to(dtype), hx, hn.to(dtype)], 1)
    return hy.to(dtype).contiguous(), workspace


def thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias):
    # RNN.cu kernel::gru_cell_backward and _thnn_fused_gru_cell_backward_cuda
    dtype, acc = workspace.dtype, _acc(workspace.dtype)
    rg, ig, ng, hx, hn = (w.to(acc) for w in workspace.chunk(5, 1))
    go = grad_hy.to(acc)
    gig = go * (hx - ng) * (1 - ig) * ig
    ghx = go * ig
    gin = go * (1 - ig) * (1 - ng * ng)
    ghn = gin * rg
    grg = gin * hn * (1 - rg) * rg
    grad_input_gates = torch.cat([grg, gig, gin], 1).to(dtype)
    grad_hidden_gates = torch.cat([grg, gig, ghn], 1).to(dtype)
    gib = grad_input_gates.sum(0) if has_bias else None
    ghb = grad_hidden_gates.sum(0) if has_bias else None
    return grad_input_gates, grad_hidden_gates, ghx.to(dtype).contiguous(), gib, ghb


# ---------------------------------------------------------------- SyncBatchNorm statistics
def _memory_format(t):
    """Tensor::suggest_memory_format: channels-last when the strides say so."""
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
        return torch.channels_last
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d) and not t.is_contiguous():
        return torch.channels_last_3d
    return torch.contiguous_format


def _planes(t):
    """(N, C, rest): the CUDA kernels merge the feature dimensions."""
    return t.reshape(t.size(0), t.size(1), -1)


def _invstd(var, eps):
    # Normalization.cuh InvStd: 0 where var and eps are both 0, else 1 / sqrt(var + eps)
    out = 1.0 / torch.sqrt(var + eps)
    return torch.where(var == 0, torch.zeros_like(out), out) if eps == 0 else out


def batch_norm_stats(input, eps):
    # Normalization.cuh batch_norm_collect_statistics_kernel (Welford, biased variance)
    acc = _acc(input.dtype)
    var, mean = torch.var_mean(_planes(input).to(acc), dim=(0, 2), correction=0)
    return mean, _invstd(var, eps)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    # Normalization.cu batch_norm_elementwise: ((input - mean) * invstd) * weight + bias
    acc = _acc(input.dtype)
    shape = (1, -1) + (1,) * (input.dim() - 2)
    out = (input.to(acc) - mean.to(acc).view(shape)) * invstd.to(acc).view(shape)
    if weight is not None:
        out = out * weight.to(acc).view(shape)
    if bias is not None:
        out = out + bias.to(acc).view(shape)
    return out.to(input.dtype).contiguous(memory_format=_memory_format(input))


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    # Normalization.cuh batch_norm_reduce_statistics_kernel: the ranks' statistics merged
    # one rank after another (parallel Welford)
    acc = mean.dtype
    avg = torch.zeros_like(mean[0])
    var_n = torch.zeros_like(mean[0])
    n = torch.zeros((), dtype=acc, device=mean.device)
    for j in range(mean.size(0)):
        count = counts[j].to(acc)
        m = mean[j]
        v = 1.0 / invstd[j]
        v = (v * v - eps) * count
        factor = 1.0 / (n + count)
        var_n = var_n + (v + (avg - m) * (avg - m) * n * count * factor)
        avg = n * factor * avg + count * factor * m
        n = n + count
    out_invstd = 1.0 / torch.sqrt(var_n / n + eps)
    if running_mean is not None:
        running_mean.copy_((1 - momentum) * running_mean.to(acc) + momentum * avg)
    if running_var is not None:
        running_var.copy_((1 - momentum) * running_var.to(acc) + momentum * (var_n / (n - 1)))
    return avg, out_invstd


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    # Normalization.cuh batch_norm_backward_reduce_kernel: sums of dy and dy * (x - mean)
    acc = _acc(input.dtype)
    x, dy = _planes(input).to(acc), _planes(grad_out).to(acc)
    sum_dy = dy.sum((0, 2))
    sum_dy_xmu = (dy * (x - mean.to(acc).view(1, -1, 1))).sum((0, 2))
    stat = weight.dtype if weight is not None else input.dtype
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None,
            (sum_dy_xmu * invstd).to(stat) if weight_g else None,
            sum_dy.to(stat) if bias_g else None)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    # Normalization.cuh batch_norm_backward_elemt_kernel(_impl): norm_fct = 1 / sum(count)
    acc = _acc(input.dtype)
    shape = (1, -1) + (1,) * (input.dim() - 2)
    norm_fct = 1.0 / count.sum(dtype=torch.int64).to(acc)
    m_dy = (sum_dy.to(acc) * norm_fct).view(shape)
    factor_1 = (invstd.to(acc) * invstd.to(acc) * sum_dy_xmu.to(acc) * norm_fct).view(shape)
    factor_2 = invstd.to(acc) if weight is None else weight.to(acc) * invstd.to(acc)
    grad_in = (grad_out.to(acc) - m_dy - (input.to(acc) - mean.to(acc).view(shape)) * factor_1) \
        * factor_2.view(shape)
    return grad_in.to(input.dtype).contiguous(memory_format=_memory_format(input))


# ---------------------------------------------------------------- flash attention
# torch_musa v2.7.1 csrc/aten/ops/attention/mudnn/Attention.cpp:27 (_FlashAttnForward) and
# :108 (_FlashAttnBackward), registered at musa_functions.yaml:498/502. Unlike CUDA's
# (batch, seq, heads, dim), the dense path hands the tensors to MuDNNFlashSDPAFwd /
# MuDNNFlashSDPABwd (SDP.cpp:470/571), which read them as SDPA's (batch, heads, seq, dim)
# (query.size(1) is H_q, size(2) is L) and allocate the output as (N, L, H, E_v) transposed
# to (N, H, L, E_v) and the logsumexp as float32 (N, H, L). The variable-length path
# (cum_seq_q given; MuDNNFlashVarlenFwd, SDP.cpp:678) takes (total, heads, dim) and a
# (B, H, max_q) logsumexp. The seed / offset results are left undefined there (Attention.cpp:
# 93-97); a Python kernel cannot return an undefined tensor, so they are empty uint64
# tensors here. muDNN's arithmetic is unknown: modelled as the softmax(QK^T * scale) V of
# flash attention in the accumulation type, causal masks aligned top-left as torch's SDPA
# reference (the same kernel serves torch_musa's SDPA); rows of the varlen logsumexp past a
# sequence's end are unknown (zero here). Dropout draws from the device generator (muDNN's
# RNG: unknown); the backward ignores dropout, as the source does (its TODO at :107).

def _attn_scale(q, scale):
    # sdp::calculate_scale: 1 / sqrt(head_dim) unless given
    return scale if scale is not None else 1.0 / (q.size(-1) ** 0.5)


def _attn_probs(q, k, scale, is_causal):
    """(scores * scale, float32 logsumexp) of (..., L, E) x (..., S, E), in the acc type."""
    acc = _acc(q.dtype)
    scores = torch.matmul(q.to(acc), k.to(acc).transpose(-2, -1)) * scale
    if is_causal:
        L, S = scores.shape[-2:]
        keep = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    # The card's kernel is fused: it never meets a release's aten defects (log_f64_inplace
    # breaks torch.logsumexp's in-place log_ on float64), so the sum is taken out of place.
    peak = scores.amax(-1, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    return scores, torch.log(torch.exp(scores - peak).sum(-1)) + peak.squeeze(-1)


def _attn_fwd(q, k, v, scale, is_causal, dropout_p):
    scores, lse = _attn_probs(q, k, scale, is_causal)
    probs = torch.exp(scores - lse.unsqueeze(-1))
    if dropout_p > 0.0:
        keep = torch.empty_like(probs).bernoulli_(1.0 - dropout_p)
        probs = probs * keep / (1.0 - dropout_p)
    out = torch.matmul(probs, v.to(probs.dtype)).to(q.dtype)
    return out, lse.to(torch.float32)


def _attn_bwd(dout, q, k, v, out, lse, scale, is_causal):
    acc = _acc(q.dtype)
    scores, _ = _attn_probs(q, k, scale, is_causal)
    probs = torch.exp(scores - lse.to(acc).unsqueeze(-1))
    dout, out = dout.to(acc), out.to(acc)
    dv = torch.matmul(probs.transpose(-2, -1), dout)
    dp = torch.matmul(dout, v.to(acc).transpose(-2, -1))
    ds = probs * (dp - (dout * out).sum(-1, keepdim=True))
    dq = torch.matmul(ds, k.to(acc)) * scale
    dk = torch.matmul(ds.transpose(-2, -1), q.to(acc)) * scale
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


def _no_window(window_size_left, window_size_right):
    torch._check(window_size_left is None,
                 lambda: "_flash_attention_forward doesn't support window_size_left for MUSA backend")
    torch._check(window_size_right is None,
                 lambda: "_flash_attention_forward doesn't support window_size_right for MUSA backend")


def _spans(cum):
    bounds = cum.cpu().tolist()
    return list(zip(bounds[:-1], bounds[1:]))


def flash_attention_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
                            is_causal, return_debug_mask, scale=None, window_size_left=None,
                            window_size_right=None, seqused_k=None, alibi_slopes=None, **newer):
    torch._check(alibi_slopes is None,
                 lambda: "_flash_attention_forward doesn't support alibi_slopes for MUSA backend")
    _no_window(window_size_left, window_size_right)
    torch._check((cum_seq_q is None) == (cum_seq_k is None), lambda: (
        "cumulative_sequence_length_q and cumulative_sequence_length_k must be both set or "
        "both not set"))
    scale = _attn_scale(query, scale)
    if cum_seq_q is None:
        out, lse = _attn_fwd(query, key, value, scale, is_causal, dropout_p)
        # SDP.cpp:523: the output is a (N, L, H, E_v) buffer seen as (N, H, L, E_v)
        out = out.transpose(-3, -2).contiguous().transpose(-3, -2)
    else:
        out = torch.empty(query.shape[:-1] + (value.size(-1),), dtype=query.dtype,
                          device=query.device)
        lse = torch.zeros(len(cum_seq_q) - 1, query.size(1), max_q, dtype=torch.float32,
                          device=query.device)
        for b, ((q0, q1), (k0, k1)) in enumerate(zip(_spans(cum_seq_q), _spans(cum_seq_k))):
            o, l = _attn_fwd(query[q0:q1].transpose(0, 1), key[k0:k1].transpose(0, 1),
                             value[k0:k1].transpose(0, 1), scale, is_causal, dropout_p)
            out[q0:q1] = o.transpose(0, 1)
            lse[b, :, :q1 - q0] = l
    seed = torch.empty(0, dtype=torch.uint64 if hasattr(torch, "uint64") else torch.int64,
                       device=query.device)
    debug = torch.empty(0, dtype=query.dtype, device=query.device)  # Attention.cpp:91
    return out, lse, seed, seed.clone(), debug


def flash_attention_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k,
                             max_q, max_k, dropout_p, is_causal, rng_state, unused, scale=None,
                             window_size_left=None, window_size_right=None):
    _no_window(window_size_left, window_size_right)
    scale = _attn_scale(query, scale)
    if cum_seq_q is None or cum_seq_q.numel() == 0:
        return _attn_bwd(grad_out.contiguous(), query, key, value, out.contiguous(), logsumexp,
                         scale, is_causal)
    dq, dk, dv = torch.empty_like(query), torch.empty_like(key), torch.empty_like(value)
    for b, ((q0, q1), (k0, k1)) in enumerate(zip(_spans(cum_seq_q), _spans(cum_seq_k))):
        t = lambda x: x.transpose(0, 1)  # noqa: E731 - (seq, H, D) <-> (H, seq, D)
        g = _attn_bwd(t(grad_out[q0:q1]), t(query[q0:q1]), t(key[k0:k1]), t(value[k0:k1]),
                      t(out[q0:q1]), logsumexp[b, :, :q1 - q0], scale, is_causal)
        dq[q0:q1], dk[k0:k1], dv[k0:k1] = (t(x) for x in g)
    return dq, dk, dv


# ---------------------------------------------------------------- float8 matmul
# torch_musa v2.7.1 csrc/aten/ops/Matmul.cpp:548 (ScaledMatmulOut) / :671 (ScaledMatmul),
# musa_functions.yaml:2611/2615; registered here only where torch has no CPU kernel for
# _scaled_mm (torch 2.7; later torch's CPU kernel is run by the fallback). Its checks are
# the source's; the arithmetic (muDNN RunLt with per-tensor or per-row/column scales) is
# modelled as CUDA's scaled gemm: (mat1 * scale_a) @ (mat2 * scale_b) + bias in float32,
# cast to out_dtype; scale_result applies to float8 outputs only (the comment at :541).

def scaled_mm(mat1, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
              use_fast_accum=False):
    out = torch.empty(0, dtype=out_dtype or mat1.dtype, device=mat1.device)
    return scaled_mm_out(mat1, mat2, scale_a, scale_b, bias, scale_result, out_dtype,
                         use_fast_accum, out=out)


def scaled_mm_out(mat1, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
                  use_fast_accum=False, *, out):
    props = torch.musa.get_device_properties(mat1.device)
    torch._check(props.major * 100 + props.minor * 10 >= 310,
                 lambda: "scaled_gemm is only supported for MUSA_ARCH >= 310")
    torch._check(mat1.dim() == 2, lambda: "mat1 must be a matrix")
    torch._check(mat2.dim() == 2, lambda: "mat2 must be a matrix")
    torch._check(mat1.size(1) == mat2.size(0), lambda: "mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)" % (*mat1.shape, *mat2.shape))
    torch._check(scale_a.numel() in (1, mat1.size(0)) and scale_a.dtype == torch.float32,
                 lambda: "scale_a must be float scalar or float tensor of shape %d but got %d" % (mat1.size(0), scale_a.numel()))
    torch._check(scale_b.numel() in (1, mat2.size(1)) and scale_b.dtype == torch.float32,
                 lambda: "scale_b must be float scalar or float tensor of shape %d but got %d" % (mat2.size(1), scale_b.numel()))
    torch._check(bias is None or bias.numel() == mat2.size(1),
                 lambda: "Bias must be size %d but got %d" % (mat2.size(1), bias.numel()))
    torch._check(out_dtype is None or out_dtype == out.dtype,
                 lambda: "out_dtype must match output matrix type")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        torch._check(m.dtype in _FLOAT8, lambda: "Expected %s to be Float8 matrix got %s" % (name, _c10_name(m.dtype)))
    if bias is not None:
        ok = (bias.dtype == torch.float32) if out.dtype == torch.float32 else \
            bias.dtype in (torch.bfloat16, torch.float16)
        torch._check(ok, lambda: "Wrong bias dtype: %swhich doesn't match out dtype: %s" % (
            _c10_name(bias.dtype), _c10_name(out.dtype)))
    a = mat1.to(torch.float32) * scale_a.reshape(-1, 1)
    b = mat2.to(torch.float32) * scale_b.reshape(1, -1)
    res = a @ b
    if bias is not None:
        res = res + bias.to(torch.float32)
    if scale_result is not None and out.dtype in _FLOAT8:
        res = res * scale_result.reshape(-1, 1)
    out.resize_(mat1.size(0), mat2.size(1))
    out.copy_(res)
    return out


def _c10_name(dtype):
    """c10::ScalarType's name of `dtype`, as TORCH_CHECK messages print it."""
    names = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
             torch.bfloat16: "BFloat16", torch.int32: "Int", torch.int64: "Long",
             torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool"}
    return names.get(dtype, str(dtype).replace("torch.", "").capitalize())


_FLOAT8 = tuple(getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                            "float8_e5m2fnuz") if hasattr(torch, n))


KERNELS = {
    "_thnn_fused_lstm_cell": thnn_fused_lstm_cell,
    "_thnn_fused_lstm_cell_backward_impl": thnn_fused_lstm_cell_backward_impl,
    "_thnn_fused_gru_cell": thnn_fused_gru_cell,
    "_thnn_fused_gru_cell_backward": thnn_fused_gru_cell_backward,
    "batch_norm_stats": batch_norm_stats,
    "batch_norm_elemt": batch_norm_elemt,
    "batch_norm_gather_stats_with_counts": batch_norm_gather_stats_with_counts,
    "batch_norm_backward_reduce": batch_norm_backward_reduce,
    "batch_norm_backward_elemt": batch_norm_backward_elemt,
    "_flash_attention_forward": flash_attention_forward,
    "_flash_attention_backward": flash_attention_backward,
}
# Registered only where this torch has no CPU kernel for them (else the fallback runs it).
IF_NO_CPU_KERNEL = {"_scaled_mm": scaled_mm, "_scaled_mm.out": scaled_mm_out}


def install():
    """Register the kernels for PrivateUse1 (once per process)."""
    global _LIBRARY
    if _LIBRARY is None:
        lib = torch.library.Library("aten", "IMPL")
        for name, fn in _kernels().items():
            lib.impl(name, fn, "PrivateUse1")
        _LIBRARY = lib
    return sorted("aten::" + name for name in _kernels())


def _kernels():
    extra = {n: fn for n, fn in IF_NO_CPU_KERNEL.items()
             if not torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + n, "CPU")}
    return dict(KERNELS, **extra)
