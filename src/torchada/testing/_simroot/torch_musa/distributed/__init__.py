"""Distributed support.  The "mccl" backend is registered when _MUSAC is imported (see
torch_musa._sim.mccl).  The real package's FSDP/DTensor patches are not simulated, except
the ShardedGradScaler replacement and FSDP2's ``fully_shard`` patches (``_composable.fsdp``),
applied when torch.distributed.fsdp is imported."""
import importlib


def _apply_distributed_patch():
    return None


def __getattr__(name):
    if name == "fsdp":
        return importlib.import_module("torch_musa.distributed.fsdp")
    raise AttributeError(f"module 'torch_musa.distributed' has no attribute '{name}'")
