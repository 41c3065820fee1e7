"""Distributed support.  The "mccl" backend is registered when _MUSAC is imported (see
torch_musa._sim.mccl).  The real package's FSDP/DTensor patches are not simulated."""
from . import fsdp


def _apply_distributed_patch():
    return None
