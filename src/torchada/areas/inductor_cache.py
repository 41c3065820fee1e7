"""Inductor's cache key of the system, on MUSA.

CUDA API made to work: ``torch.compile`` with the Inductor backend, whose
``CacheBase.get_system()`` (torch/_inductor/codecache.py) asks ``torch.cuda`` for the device
and, because ``torch.version.cuda`` is None, reads ``gcnArchName`` (ROCm's field). With
torch.cuda answering from torch.musa, the properties are torch_musa's, which have no such
field (``_MusaDeviceProperties``, missing_vs_torch_cuda in the 2.7.1 manifest): every
Inductor compile, CPU ones included, stopped with AttributeError. (Without torchada
``torch.cuda.get_device_properties`` raises RuntimeError, which Inductor catches.)
On MUSA the system is keyed by the device name and ``torch.version.musa`` instead.

torch_musa APIs relied on: torch.musa.get_device_properties, torch.musa.current_device,
torch.version.musa.
"""
import functools
import hashlib
import json


def _system(ctx, codecache, original):
    torch = ctx.torch

    @functools.cache
    def get_system():
        try:
            return original()
        except AttributeError:  # gcnArchName on torch_musa's device properties
            pass
        triton_key = getattr(codecache, "triton_key", None)
        try:
            triton_version = triton_key() if triton_key is not None else None
        except Exception:  # no triton: the key says so, as torch's own does
            triton_version = None
        props = torch.musa.get_device_properties(torch.musa.current_device())
        system = {"device": {"name": props.name},
                  "version": {"triton": triton_version,
                              "musa": getattr(torch.version, "musa", None)}}
        strategy = getattr(codecache, "SYSTEM_CACHE_KEY_STRATEGY", None)
        if strategy is not None:
            digest = strategy.key_from_json(system)
        else:
            digest = hashlib.sha256(json.dumps(system, sort_keys=True).encode()).hexdigest()
        return dict(system, hash=digest)

    return get_system


def apply(ctx):
    import torch._inductor.codecache as codecache

    cache_base = getattr(codecache, "CacheBase", None)
    original = getattr(cache_base, "get_system", None)
    if original is None:
        ctx.note("nothing to do: this torch's Inductor has no CacheBase.get_system")
        return
    ctx.setattr(cache_base, "get_system", staticmethod(_system(ctx, codecache, original)))
