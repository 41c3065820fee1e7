"""torch_musa's autograd backend fallback for PrivateUse1, on torch releases that lack one.

torch_musa v2.7.1 registers it itself (torch_musa/csrc/core/VariableFallbackKernel_musa.cpp:
29, ``TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m)``): torch's
``basic_autograd_not_implemented_fallback``, the fallback torch registers for AutogradCPU /
AutogradCUDA. Stock torch 2.7.1 registers none for AutogradPrivateUse1 (later stock torch
registers the same one), so the simulator installs torch_musa's from its C++ backend
(``musa_sim.cpp``, ``install_autograd_fallback``). Observable behaviour, torch's: under the
default fallback mode ("warn", ``torch._C._get_autograd_fallback_mode()``) an operator with
no autograd formula still runs on inputs that require grad, its outputs require grad, and
backward through it warns that no autograd kernel was registered; mode "nothing" leaves the
outputs without a grad_fn.
"""
import torch


def install():
    """Install torch_musa's fallback where this torch has none; returns whether it did."""
    if torch._C._dispatch_has_backend_fallback(torch._C.DispatchKey.AutogradPrivateUse1):
        return False  # this torch registers torch's own (torch >= 2.8 stock builds)
    return bool(torch.ops.musa_sim.install_autograd_fallback())
