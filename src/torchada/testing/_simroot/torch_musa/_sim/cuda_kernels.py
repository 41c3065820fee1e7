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
}


def install():
    """Register the kernels for PrivateUse1 (once per process)."""
    global _LIBRARY
    if _LIBRARY is None:
        lib = torch.library.Library("aten", "IMPL")
        for name, fn in KERNELS.items():
            lib.impl(name, fn, "PrivateUse1")
        _LIBRARY = lib
    return sorted("aten::" + name for name in KERNELS)
