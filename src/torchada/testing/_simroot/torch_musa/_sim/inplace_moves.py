"""Module moves between the CPU and musa keep their Parameter objects, as on torch_musa.

torch_musa runs on a patched torch that treats CPU and MUSA tensors as shallow-copy
compatible, so ``Module.to("musa")`` / ``.cuda()`` changes ``param.data`` in place, as CUDA
does: tied weights stay tied and an optimizer built before the move keeps working. Stock
torch replaces each parameter instead (../shared/torch_musa_api/stock_vs_patched_torch.md,
"Module moves replace parameters"; the file of torch_musa's torch patch that does it:
unknown). The simulator runs on stock torch, so after a top-level ``Module._apply`` it puts
the original objects back: each replaced parameter gets the new one's contents through
``torch.utils.swap_tensors`` (so ``.grad`` follows) and returns to every place it was
registered. A parameter swap_tensors cannot take (weak references, extra C++ owners) is
left as stock torch leaves it.
"""
import threading

import torch

_depth = threading.local()


def _registered(module):
    return [(m, key, p, p.device.type) for m in module.modules()
            for key, p in m._parameters.items() if p is not None]


def _restore(before):
    replaced = {}
    for owner, key, old, old_type in before:
        new = owner._parameters.get(key)
        if new is None or new is old or not isinstance(new, torch.nn.Parameter):
            continue
        if old_type == new.device.type:  # not a CPU <-> musa move: stock behaviour
            continue
        if id(old) not in replaced:
            try:
                torch.utils.swap_tensors(old, new)
            except RuntimeError:
                continue
            replaced[id(old)] = old
        owner._parameters[key] = replaced[id(old)]


def install():
    original = torch.nn.Module._apply

    def _apply(self, fn, recurse=True):
        if getattr(_depth, "n", 0) or not recurse:
            return original(self, fn, recurse)
        before = _registered(self)
        _depth.n = 1
        try:
            result = original(self, fn, recurse)
        finally:
            _depth.n = 0
        _restore(before)
        return result

    _apply.__wrapped__ = original
    torch.nn.Module._apply = _apply
