"""Reproduced defects of named torch_musa releases (chosen by TORCHADA_SIM_TORCH_MUSA_VERSION,
overridden by TORCHADA_SIM_DEFECTS).  Each is a PrivateUse1 kernel registered only when the
defect is active, so an unaffected release pays nothing; those modelling torch_musa's own
kernels are registered from C++ (musa_sim.cpp install_kernels), like the real ones."""
import torch

from torchada.testing._simconfig import config


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
    if cfg.has("blocking_bool_mul"):
        torch.ops.musa_sim.install_kernels("blocking_bool_mul")
