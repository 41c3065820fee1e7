"""The patched torch's ``torch.multiprocessing.reductions`` (torch_musa v2.7.1
torch_patches/torch_multiprocessing_reductions.py.patch).

Two hunks: ``reduce_tensor`` sends a PrivateUse1 tensor the way it sends a CUDA one (through
``storage._share_cuda_()``, which torch_musa's core/storage.py points at ``_share_musa_``,
and ``rebuild_cuda_tensor`` on the receiving side, whose ``torch.cuda._lazy_init`` and
``_new_shared_cuda`` torch_musa also replaces), and ``reduce_storage`` refuses a bare musa
storage as it refuses a CUDA one. Modelled like _sim/patched_parallel.py: the installed
torch's source of each function with the patch's edits, put in place as its ``__code__``, so
the functions ForkingPickler registered are the patched ones. An edit whose text this torch
does not have is skipped (which torch releases after 2.7.1 the patch is carried to: unknown;
the same text is in torch 2.7.1 to 2.13).
"""
import sys

from torch_musa._sim.patched_parallel import _patch, _substitute

_REDUCE_TENSOR = (
    ('    if storage._untyped_storage.device.type == "cuda":\n',
     '    if storage._untyped_storage.device.type in ["cuda", '
     'torch._C._get_privateuse1_backend_name()]:\n'),)
_REDUCE_STORAGE = (
    ('            "Cannot pickle CUDA storage; try pickling a CUDA tensor instead"\n        )\n',
     '            "Cannot pickle CUDA storage; try pickling a CUDA tensor instead"\n        )\n'
     '    elif storage.is_musa:\n        raise RuntimeError(\n'
     '            "Cannot pickle MUSA storage; try pickling a MUSA tensor instead"\n        )\n'),)


def apply():
    import torch.multiprocessing.reductions  # noqa: F401 (import torch already loads it)

    reductions = sys.modules["torch.multiprocessing.reductions"]
    # one read and compile of the module for both functions (~3 ms each)
    _patch(reductions, ("reduce_tensor", "reduce_storage"),
           _substitute(_REDUCE_TENSOR + _REDUCE_STORAGE))
