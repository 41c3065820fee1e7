"""Autocast for the musa device.

Stock torch dispatches AutocastPrivateUse1 but registers neither a fallthrough nor cast
policies for it, so without this autocast("musa") changes nothing.  The real torch_musa
registers C++ autocast kernels (torch_musa/csrc/amp/autocast_mode.cpp; its op lists could
not be read in this session: unknown) built on ATen's autocast helpers.  The simulator uses
ATen's full CUDA policy of torch 2.7 (aten/src/ATen/autocast_mode.cpp, the KERNEL_CUDA
lists): lower precision, fp32, fp32 with an optional dtype set, fp32 with a dtype appended,
promote, and the banned binary_cross_entropy.
"""
import torch

# aten/src/ATen/autocast_mode.cpp, TORCH_LIBRARY_IMPL(aten, Autocast, m): lower_precision_fp
_LOWER = ("_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
          "conv_transpose2d", "conv_transpose3d", "convolution", "prelu", "addmm", "addmv", "addr",
          "matmul", "einsum", "mm", "mv", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm",
          "chain_matmul", "linalg_multi_dot", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell",
          "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
          "_scaled_dot_product_flash_attention", "scaled_dot_product_attention")
# ... fp32
_FP32 = ("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
         "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "native_layer_norm",
         "group_norm", "frobenius_norm", "nuclear_norm", "cosine_similarity", "poisson_nll_loss",
         "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div",
         "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
         "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
         "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
         "upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_nearest2d",
         "_upsample_nearest_exact2d", "upsample_nearest3d", "_upsample_nearest_exact3d",
         "upsample_linear1d", "upsample_bilinear2d", "_upsample_bilinear2d_aa",
         "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa")
# ... fp32_set_opt_dtype: run in fp32 by setting the op's own dtype argument
_FP32_SET_DTYPE = ("prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm",
                   "linalg_matrix_norm", "sum")
# ... fp32_append_dtype: norm overloads without dtype redispatch to the ones with it
_FP32_APPEND_DTYPE = {"Scalar": "ScalarOpt_dtype", "ScalarOpt_dim": "ScalarOpt_dim_dtype",
                      "names_ScalarOpt_dim": "names_ScalarOpt_dim_dtype"}
# ... promote: every eligible input goes to the widest floating type among them
_PROMOTE = ("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler",
            "index_put", "tensordot", "scatter_add")
# ... banned (the message is ATen's, with nothing MUSA-specific)
_BANNED = ("binary_cross_entropy",)
BCE_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")

_KEY = "AutocastPrivateUse1"
_libs = []


def _eligible(x):
    # at::autocast::is_autocast_eligible: floating, on the autocast device; doubles never cast.
    return (isinstance(x, torch.Tensor) and x.device.type == "musa" and x.is_floating_point()
            and x.dtype != torch.float64)


def _cast(x, dtype):
    if _eligible(x):
        return x.to(dtype) if x.dtype != dtype else x
    if isinstance(x, (list, tuple)):
        return type(x)(_cast(v, dtype) for v in x)
    return x


def _tensors(values):
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _promote_type(values):
    # at::autocast::prioritize
    lower = torch.get_autocast_dtype("musa")
    current = lower
    for t in _tensors(values):
        if not _eligible(t):
            continue
        if current == torch.float32 or t.dtype == torch.float32:
            current = torch.float32
        elif current != t.dtype:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _first_eligible(args):
    first = next(_tensors(args), None)
    return first is not None and _eligible(first)


_EXCLUDE = None


def _guard():
    return torch._C._ExcludeDispatchKeyGuard(_EXCLUDE)


def _kernel(op, policy, alt=None):
    if policy in ("lower", "fp32"):
        def kernel(*args, **kwargs):
            dtype = torch.get_autocast_dtype("musa") if policy == "lower" else torch.float32
            args = _cast(args, dtype)
            kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
            with _guard():
                return op(*args, **kwargs)
    elif policy == "set_dtype":
        names = [a.name for a in op._schema.arguments]
        pos = names.index("dtype") if "dtype" in names else None
        kw_only = pos is not None and op._schema.arguments[pos].kwarg_only

        def kernel(*args, **kwargs):
            if pos is not None and _first_eligible(args):
                if not kw_only and len(args) > pos:
                    if args[pos] is None:
                        args = args[:pos] + (torch.float32,) + args[pos + 1:]
                elif kwargs.get("dtype") is None:
                    kwargs["dtype"] = torch.float32
            with _guard():
                return op(*args, **kwargs)
    elif policy == "append_dtype":
        def kernel(*args, **kwargs):
            with _guard():
                if _first_eligible(args):
                    return alt(*args, **kwargs, dtype=torch.float32)
                return op(*args, **kwargs)
    elif policy == "promote":
        def kernel(*args, **kwargs):
            dtype = _promote_type(list(args) + list(kwargs.values()))
            args = _cast(args, dtype)
            kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
            with _guard():
                return op(*args, **kwargs)
    else:  # banned
        def kernel(*args, **kwargs):
            raise RuntimeError(BCE_MESSAGE)
    return kernel


def _overloads(name):
    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return
    for overload in packet.overloads():
        if overload == "out" or overload.endswith("_out") or overload.startswith("out"):
            continue
        op = getattr(packet, overload)
        if any(a.alias_info is not None and a.alias_info.is_write for a in op._schema.arguments):
            continue  # in-place and out= variants are not autocast (ATen lists functional ops)
        yield (name if overload == "default" else f"{name}.{overload}"), overload, op


def _register(lib, qual, kernel):
    try:
        lib.impl(qual, kernel, _KEY)
    except RuntimeError:
        pass  # this torch already has an autocast kernel for PrivateUse1


def install():
    global _EXCLUDE
    _EXCLUDE = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastPrivateUse1)
    fb = torch.library.Library("_", "IMPL")
    try:
        fb.fallback(torch.library.fallthrough_kernel, _KEY)
        _libs.append(fb)
    except RuntimeError:
        pass  # this torch already has an AutocastPrivateUse1 fallback
    lib = torch.library.Library("aten", "IMPL")
    _libs.append(lib)
    for names, policy in ((_LOWER, "lower"), (_FP32, "fp32"), (_FP32_SET_DTYPE, "set_dtype"),
                          (_PROMOTE, "promote"), (_BANNED, "banned")):
        for name in names:
            for qual, _overload, op in _overloads(name):
                _register(lib, qual, _kernel(op, policy))
    for src, dst in _FP32_APPEND_DTYPE.items():
        packet = torch.ops.aten.norm
        if src in packet.overloads() and dst in packet.overloads():
            _register(lib, f"norm.{src}", _kernel(getattr(packet, src), "append_dtype", getattr(packet, dst)))
