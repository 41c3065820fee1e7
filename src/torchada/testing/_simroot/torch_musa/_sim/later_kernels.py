"""Kernels a later release's operator table registers for PrivateUse1 where stock torch has
a CUDA kernel only, so the simulator's CPU fallback cannot serve them.

torch_musa 2.9.1.post1's ``musa_functions.yaml`` (commit 5e25af7) lists these as structured
or CUDA-dispatched entries, so its codegen registers PyTorch's CUDA kernels for them
(``optable/_yaml_ops.py``; the table's rows name the yaml lines). Each function below follows
that CUDA function's arithmetic:

* ``mm`` / ``bmm`` / ``addmm`` / ``baddbmm`` ``.dtype(_out)``: ``aten/src/ATen/native/cuda/Blas.cpp``
  ``_mm_dtype_out_cuda`` / ``_bmm_dtype_out_cuda`` / ``_addmm_dtype_out_cuda`` /
  ``_baddbmm_dtype_out_cuda``: same-dtype inputs, ``out_dtype`` either theirs or float32
  for half / bfloat16, one GEMM accumulating in float32 (``beta * self + alpha * A @ B``,
  ``self`` unread when beta is 0), written once in ``out_dtype``. muDNN's GEMM order of
  summation: unknown (the CPU's float32 GEMM here).
* ``batch_norm_gather_stats``: ``cuda/Normalization.cu`` ``batch_norm_gather_stats_cuda``:
  every rank's count is ``count``, merged as ``batch_norm_gather_stats_with_counts`` merges.
* ``batch_norm_elemt.out``: ``batch_norm_elemt_out`` writes ``batch_norm_elemt`` into out.
* ``_masked_scale``: ``cuda/Dropout.cu`` ``masked_scale_cuda``: ``self * mask * scale`` in the
  accumulation type.
* ``_fused_dropout``: ``cuda/Dropout.cu`` ``fused_dropout_cuda``: ``p`` is the probability to
  keep; mask (uint8) ``bernoulli(p)``, output ``self * mask / p``. The draws come from the
  device generator (the card's Philox layout for this kernel: unknown).

Registered only where the release's table registers the row and this torch defines the
overload without a CPU kernel (``install``).
"""
import torch

from torch_musa._sim.cuda_kernels import _acc, batch_norm_elemt, \
    batch_norm_gather_stats_with_counts
from torch_musa._sim.later_gemm_kernels import KERNELS as _GEMM_KERNELS
from torch_musa._sim.later_sparse_kernels import KERNELS as _SPARSE_KERNELS


def _check_out_dtype(a, b, out_dtype):
    torch._check(a.dtype == b.dtype, lambda: "input dtypes must be the same")
    torch._check(out_dtype == a.dtype or (out_dtype == torch.float32 and a.dtype in (
        torch.float16, torch.bfloat16)),
        lambda: "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")


def _gemm(self, a, b, out_dtype, beta, alpha, batched):
    _check_out_dtype(a, b, out_dtype)
    # scaling by 1 is exact in float32, so alpha and beta apply unconditionally
    prod = (torch.bmm if batched else torch.mm)(a.to(torch.float32), b.to(torch.float32)) * alpha
    if self is not None and beta != 0:
        prod = prod + self.to(torch.float32) * beta
    return prod.to(out_dtype)


def _into(out, result):
    out.resize_(result.shape)
    out.copy_(result)
    return out


def _product_into(out, a, b, out_dtype, batched):
    torch._check(out.dtype == out_dtype, lambda: (
        "out_dtype must be the same as the dtype of the provided out tensor"))
    return _into(out, _gemm(None, a, b, out_dtype, 0, 1, batched))


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _product_into(out, self, mat2, out_dtype, False)


def bmm_dtype_out(self, mat2, out_dtype, *, out):
    return _product_into(out, self, mat2, out_dtype, True)


def addmm_dtype(self, mat1, mat2, out_dtype, *, beta=1, alpha=1):
    return _gemm(self, mat1, mat2, out_dtype, beta, alpha, False)


def addmm_dtype_out(self, mat1, mat2, out_dtype, *, beta=1, alpha=1, out):
    return _into(out, addmm_dtype(self, mat1, mat2, out_dtype, beta=beta, alpha=alpha))


def baddbmm_dtype(self, batch1, batch2, out_dtype, *, beta=1, alpha=1):
    return _gemm(self, batch1, batch2, out_dtype, beta, alpha, True)


def baddbmm_dtype_out(self, batch1, batch2, out_dtype, *, beta=1, alpha=1, out):
    return _into(out, baddbmm_dtype(self, batch1, batch2, out_dtype, beta=beta, alpha=alpha))


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    counts = torch.full((mean.size(0),), float(count), dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                               momentum, eps, counts)


def batch_norm_elemt_out(input, weight, bias, mean, invstd, eps, *, out):
    return _into(out, batch_norm_elemt(input, weight, bias, mean, invstd, eps))


def masked_scale(self, mask, scale):
    acc = _acc(self.dtype)
    return (self.to(acc) * mask.to(acc) * scale).to(self.dtype)


def fused_dropout(self, p, generator=None):
    keep = torch.empty(self.shape, dtype=torch.float32, device=self.device).bernoulli_(
        p, generator=generator)
    mask = keep.to(torch.uint8)
    return masked_scale(self, mask, 1.0 / p), mask


KERNELS = {
    "mm.dtype_out": mm_dtype_out,
    "bmm.dtype_out": bmm_dtype_out,
    "addmm.dtype": addmm_dtype,
    "addmm.dtype_out": addmm_dtype_out,
    "baddbmm.dtype": baddbmm_dtype,
    "baddbmm.dtype_out": baddbmm_dtype_out,
    "batch_norm_gather_stats": batch_norm_gather_stats,
    "batch_norm_elemt.out": batch_norm_elemt_out,
    "_masked_scale": masked_scale,
    "_fused_dropout": fused_dropout,
    **_GEMM_KERNELS,  # int4 packing, grouped / mixed-dtype GEMMs, RMSNorm backward
    **_SPARSE_KERNELS,  # semi-structured sparsity, cuSPARSELt
}
_LIBRARY = None


def _defined_without_cpu_kernel(name):
    base, _, overload = name.partition(".")
    defined = any(s.overload_name == overload
                  for s in torch._C._jit_get_schemas_for_operator("aten::" + base))
    return defined and not torch._C._dispatch_has_kernel_for_dispatch_key("aten::" + name, "CPU")


def install(registered):
    """Register the kernels whose rows `registered` (the release's PrivateUse1 overloads)
    holds; returns their dispatcher names."""
    global _LIBRARY
    chosen = {n: fn for n, fn in KERNELS.items()
              if "aten::" + n in registered and _defined_without_cpu_kernel(n)}
    if _LIBRARY is None and chosen:
        lib = torch.library.Library("aten", "IMPL")
        for name, fn in chosen.items():
            lib.impl(name, fn, "PrivateUse1")
        _LIBRARY = lib
    return sorted("aten::" + n for n in chosen)
