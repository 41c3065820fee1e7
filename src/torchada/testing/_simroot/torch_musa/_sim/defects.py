"""Reproduced defects of named torch_musa releases (chosen by TORCHADA_SIM_TORCH_MUSA_VERSION,
overridden by TORCHADA_SIM_DEFECTS).  Each is a PrivateUse1 kernel registered only when the
defect is active, so an unaffected release pays nothing; those modelling torch_musa's own
kernels are registered from C++ (musa_sim.cpp install_kernels), like the real ones."""
import torch

from torchada.testing._simconfig import config

_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = torch.library.Library("aten", "IMPL")
    return _lib


def _isfinite_blocking(self):
    from torch_musa import _MUSAC

    _MUSAC._check_not_capturing("torch.isfinite (blocking on this release)")
    _MUSAC._musa_synchronize()
    return (self == self) & (self.abs() != float("inf"))


def install():
    cfg = config()
    # torch_musa's kernels (and the broken ones of named releases) are C++ registrations
    # in the backend (musa_sim.cpp install_kernels), as the real ones are.
    names = {s.overload_name for s in torch._C._jit_get_schemas_for_operator("aten::mm")}
    if "dtype" in names:  # out_dtype= exists on torch >= 2.9 only
        torch.ops.musa_sim.install_kernels(
            "mm_out_dtype_defect" if cfg.has("mm_out_dtype") else "mm_out_dtype")
    if cfg.has("log_f64_inplace"):
        torch.ops.musa_sim.install_kernels("log_f64_inplace")
    if cfg.has("blocking_isfinite"):
        # isfinite is CompositeImplicitAutograd: on torch 2.7 the autograd key is where a
        # backend kernel must sit to be reached at all (its output is bool, never differentiated).
        _library().impl("isfinite", _isfinite_blocking, "PrivateUse1")
        _library().impl("isfinite", _isfinite_blocking, "AutogradPrivateUse1")
