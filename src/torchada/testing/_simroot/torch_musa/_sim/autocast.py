"""Autocast for the musa device.

Stock torch dispatches AutocastPrivateUse1 but registers neither a fallthrough nor cast
policies for it, so without this autocast("musa") changes nothing (or fails).  The real
torch_musa registers C++ autocast kernels; the simulator registers Python ones with the
policy torch uses for CUDA (the exact op list of torch_musa is a guess: CUDA's).
"""
import torch

_LOWER = ("conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
          "conv_transpose3d", "convolution", "_convolution", "prelu", "addmm", "addmv", "addr",
          "matmul", "einsum", "mm", "mv", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul",
          "linalg_multi_dot", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
          "scaled_dot_product_attention", "_scaled_dot_product_flash_attention")
_FP32 = ("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
         "reciprocal", "rsqrt", "sinh", "tan", "softplus", "layer_norm", "group_norm",
         "frobenius_norm", "nuclear_norm", "cosine_similarity", "poisson_nll_loss",
         "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div",
         "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
         "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
         "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
         "softmax", "log_softmax", "cross_entropy_loss")
_KEY = "AutocastPrivateUse1"
_libs = []


def _caster(dtype):
    def cast(x):
        if isinstance(x, torch.Tensor):
            if x.device.type == "musa" and x.is_floating_point() and x.dtype != torch.float64 and x.dtype != dtype:
                return x.to(dtype)
            return x
        if isinstance(x, (list, tuple)):
            return type(x)(cast(v) for v in x)
        return x

    return cast


def _kernel(op, lower):
    excl = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastPrivateUse1)

    def kernel(*args, **kwargs):
        dtype = torch.get_autocast_dtype("musa") if lower else torch.float32
        cast = _caster(dtype)
        args = cast(args)
        kwargs = {k: cast(v) for k, v in kwargs.items()}
        with torch._C._ExcludeDispatchKeyGuard(excl):
            return op(*args, **kwargs)

    return kernel


def install():
    fb = torch.library.Library("_", "IMPL")
    try:
        fb.fallback(torch.library.fallthrough_kernel, _KEY)
        _libs.append(fb)
    except RuntimeError:
        pass  # this torch already has an AutocastPrivateUse1 fallback
    lib = torch.library.Library("aten", "IMPL")
    _libs.append(lib)
    for names, lower in ((_LOWER, True), (_FP32, False)):
        for name in names:
            packet = getattr(torch.ops.aten, name, None)
            if packet is None:
                continue
            for overload in packet.overloads():
                if overload in ("out",) or overload.endswith("_out"):
                    continue
                qual = name if overload == "default" else f"{name}.{overload}"
                try:
                    lib.impl(qual, _kernel(getattr(packet, overload), lower), _KEY)
                except RuntimeError:
                    pass  # already has an autocast kernel for PrivateUse1 on this torch
