"""Distributed names on MUSA: the nccl rows of the torch.cuda table.

CUDA APIs made to work: ``torch.cuda.nccl.version()`` (the MCCL version),
``torch.cuda.nccl.is_available(tensors)`` (False: torch_musa has no NCCL-style Python
collectives), and ``torch.cuda.nccl.all_reduce / reduce / broadcast / all_gather /
reduce_scatter / unique_id / init_rank`` raising NotImplementedError that names the
torch_musa release and points to torch.distributed with backend='mccl'. torchada does not
translate ``backend="nccl"`` yet (issue 09); the messages say so.

torch_musa APIs relied on: torch.musa.mccl.version.
"""
from torchada.areas import _kit


def _nccl_is_available(ctx):
    def is_available(tensors):
        return False

    is_available.__module__ = "torch.cuda.nccl"
    return is_available


EMULATIONS = {"nccl.is_available": _nccl_is_available}


def apply(journal):
    import torch.cuda  # noqa: F401

    _kit.apply_rows(_kit.context(journal, __name__), EMULATIONS)
