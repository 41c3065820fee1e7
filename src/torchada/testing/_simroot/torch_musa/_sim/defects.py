"""Reproduced defects of named torch_musa releases (chosen by TORCHADA_SIM_TORCH_MUSA_VERSION,
overridden by TORCHADA_SIM_DEFECTS).  Each is a PrivateUse1 kernel registered only when the
defect is active, so an unaffected release pays nothing."""
import torch

from torchada.testing._simconfig import config

_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = torch.library.Library("aten", "IMPL")
    return _lib


def _mm_dtype_zeros(self, mat2, out_dtype):
    # 2.11.0.post1: mm(..., out_dtype=) returns zeros.
    return torch.zeros((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device)


def _bmm_dtype_wrong(self, mat2, out_dtype):
    # 2.11.0.post1: bmm(..., out_dtype=) repeats batch 0's product in every batch (wrong values).
    first = torch.mm(self[0], mat2[0]).to(out_dtype)
    return first.unsqueeze(0).expand(self.shape[0], -1, -1).contiguous()


def _mm_dtype(self, mat2, out_dtype):
    # Stock torch has mm/bmm(out_dtype=) kernels for CUDA only; MUSA has its own.  The
    # simulator accumulates in float32 and casts (guess: what the muDNN kernel computes).
    return torch.mm(self.float(), mat2.float()).to(out_dtype)


def _bmm_dtype(self, mat2, out_dtype):
    return torch.bmm(self.float(), mat2.float()).to(out_dtype)


def _log_inplace(self):
    if self.dtype == torch.float64:
        raise RuntimeError('"log_musa" not implemented for \'Double\'')
    return self.copy_(torch.log(self))


def _isfinite_blocking(self):
    from torch_musa import _MUSAC

    _MUSAC._check_not_capturing("torch.isfinite (blocking on this release)")
    _MUSAC._musa_synchronize()
    return (self == self) & (self.abs() != float("inf"))


def install():
    cfg = config()
    names = {s.overload_name for s in torch._C._jit_get_schemas_for_operator("aten::mm")}
    if "dtype" in names:  # out_dtype= exists on torch >= 2.9 only
        bad = cfg.has("mm_out_dtype")
        _library().impl("mm.dtype", _mm_dtype_zeros if bad else _mm_dtype, "PrivateUse1")
        _library().impl("bmm.dtype", _bmm_dtype_wrong if bad else _bmm_dtype, "PrivateUse1")
    if cfg.has("log_f64_inplace"):
        _library().impl("log_", _log_inplace, "PrivateUse1")
    if cfg.has("blocking_isfinite"):
        # isfinite is CompositeImplicitAutograd: on torch 2.7 the autograd key is where a
        # backend kernel must sit to be reached at all (its output is bool, never differentiated).
        _library().impl("isfinite", _isfinite_blocking, "PrivateUse1")
        _library().impl("isfinite", _isfinite_blocking, "AutogradPrivateUse1")
