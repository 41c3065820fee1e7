"""Before comparing eager and compiled runs: let torchada's compiled operator overrides
(built off the calling thread, swapped in at a later call) settle, so that neither run
switches kernels half way (the random ops' draws differ between torch_musa's kernel and the
override). Nothing happens where torchada is inactive (an NVIDIA or CPU run)."""
import torch


def settle_overrides():
    try:
        from torchada.areas._op_overrides import shared
    except ImportError:
        return
    if not shared.UNITS:
        return  # the overrides are not installed here
    x = torch.ones(2, 2, device="cuda")
    torch.multinomial(x, 2, True), torch.log(x), torch.isfinite(x)
    shared.background().wait(900)
    torch.multinomial(x, 2, True), torch.log(x), torch.isfinite(x)  # the swap happens here
