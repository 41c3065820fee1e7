"""torch_musa's FSDP2 patches, simulated from torch_musa/distributed/_composable/fsdp/patch.py
(v2.7.1, 0bc05bf).

At ``import torch_musa`` (torch_musa/__init__.py:174 -> distributed/__init__.py ->
``_apply_fsdp2_patches``, patch.py:245) ``torch.distributed.fsdp.fully_shard`` becomes a
wrapper of PyTorch's (``functools.wraps``: ``__wrapped__`` is PyTorch's) that, on its first
call, whatever the mesh, replaces PyTorch's FSDP2 methods with torch_musa's
(``_setup_fsdp2_patches``, :200-227): the overlap patch, then, under NO_OVERLAP (the default,
and forced below arch mp_31 with a warning), ``FSDPParamGroup.wait_for_unshard`` /
``post_backward`` and the code of ``foreach_all_gather``. The simulator applies the wrapper
when the program imports torch.distributed.fsdp (see torch_musa._sim.onimport).

The two NO_OVERLAP methods are PyTorch 2.7's bodies with the stream syncs removed (:38-133);
the simulated device runs every stream on one queue, so PyTorch's own bodies compute the
same and run here under torch_musa's names. The ``foreach_all_gather.__code__`` swap (:223)
is not simulated: both are ``torch.no_grad()`` wrappers sharing one code object whose
closure keeps PyTorch's body, so on the real package it changes nothing either.
"""
import functools
import warnings

import torch

from . import custom_overlap_patch as _overlap

__all__ = ["_apply_fsdp2_patches"]


def wait_for_unshard_non_overlap(self):
    return _overlap._PYTORCH["wait_for_unshard"](self)


def post_backward_non_overlap(self, *unused):
    return _overlap._PYTORCH["post_backward"](self, *unused)


def _setup_fsdp2_patches():
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

    _overlap._apply_custom_overlap_patch()
    from torch_musa.core._utils import _get_musa_arch

    if _get_musa_arch() < 31:
        _overlap._FSDP2_OVERLAP_LEVEL = _overlap.FSDP2OverlapLevel.NO_OVERLAP
        warnings.warn("The overlapping of FSDP2 was disabled on musa arch older than mp_31")
    if _overlap._FSDP2_OVERLAP_LEVEL == _overlap.FSDP2OverlapLevel.NO_OVERLAP:
        _overlap._PYTORCH.setdefault("wait_for_unshard", FSDPParamGroup.wait_for_unshard)
        _overlap._PYTORCH.setdefault("post_backward", FSDPParamGroup.post_backward)
        FSDPParamGroup.wait_for_unshard = wait_for_unshard_non_overlap
        FSDPParamGroup.post_backward = post_backward_non_overlap


def monkey_patched_fully_shard(fully_shard_func):
    # patch.py:230-242: the patches land on the first call, for every mesh
    has_patched = False

    @functools.wraps(fully_shard_func)
    def wrapper(*args, **kwargs):
        nonlocal has_patched
        if not has_patched:
            _setup_fsdp2_patches()
            has_patched = True
        return fully_shard_func(*args, **kwargs)

    return wrapper


def _apply_fsdp2_patches():
    import sys

    from torch.distributed.fsdp._fully_shard import fully_shard

    # sys.modules: the simulator applies this right after torch.distributed.fsdp's body
    # ran, before the import system binds it on torch.distributed
    fsdp = sys.modules["torch.distributed.fsdp"]
    fsdp.fully_shard = monkey_patched_fully_shard(fully_shard)
