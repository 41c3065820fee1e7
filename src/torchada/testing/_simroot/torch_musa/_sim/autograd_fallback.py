"""An autograd backend fallback for PrivateUse1 on torch releases that lack one.

Stock torch 2.13 registers a backend fallback for AutogradPrivateUse1 (as for AutogradCUDA);
the stock torch 2.7.1 wheel does not (``torch._C._dispatch_has_backend_fallback(
DispatchKey.AutogradPrivateUse1)`` is False there, True for AutogradCUDA), so an operator
with only a PrivateUse1 kernel and no autograd formula cannot run on a musa tensor.
torch_musa 2.7.1 runs on Moore Threads' patched torch 2.7.1 and custom operators with
PrivateUse1 kernels do run on it (vLLM-MUSA and SGLang-MUSA register theirs that way), so
the patched torch or torch_musa must provide this fallback. Which one, and whether it is a
fallthrough or torch's "autograd not implemented" fallback, is unknown (the torch_musa
source could not be read here; see docs/simulator.md). Modelled as a fallthrough: outputs
of such operators do not require grad, and no backward is recorded.
"""
import torch

_libs = []


def install():
    key = torch._C.DispatchKey.AutogradPrivateUse1
    if torch._C._dispatch_has_backend_fallback(key):
        return  # this torch has one (torch >= 2.8 stock builds)
    lib = torch.library.Library("_", "IMPL")
    lib.fallback(torch.library.fallthrough_kernel, "AutogradPrivateUse1")
    _libs.append(lib)
