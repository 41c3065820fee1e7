"""Inductor's matmul template heuristics for the musa device.

CUDA API made to work: ``torch.compile`` (Inductor, max-autotune) choosing matmul template
configurations for musa tensors. Inductor's registry of template heuristics is keyed by
device type (torch/_inductor/template_heuristics/registry.py, torch >= 2.9); the musa keys
are empty on torch_musa releases before 2.11.0.post2 (seed fix table), so every lookup fell
back to the empty base heuristic. The fix unit ``cuda_entries`` copies each CUDA entry to the
musa key it lacks, never replacing one torch_musa registered.

torch_musa APIs relied on: none.
"""
from torchada.areas import _kit


@_kit.fix("cuda_entries")
def cuda_entries(ctx):
    """The musa keys of the registry filled from the CUDA entries (torch_musa's kept)."""
    import torch._inductor.template_heuristics.registry as registry

    table = getattr(registry, "_TEMPLATE_HEURISTIC_REGISTRY", None)
    if not isinstance(table, dict):
        ctx.note("cuda_entries: this torch's registry has another shape; nothing filled")
        return
    filled = 0
    for key, cls in list(table.items()):
        if len(key) == 3 and key[1] == "cuda":
            musa_key = (key[0], "musa", key[2])
            if musa_key not in table:
                ctx.setitem(table, musa_key, cls)
                filled += 1
    cache = getattr(registry, "_HEURISTIC_CACHE", None)
    if isinstance(cache, dict) and filled:
        # Lookups made before now cached the fallback; a cache entry dropped is only looked
        # up again, so this needs no undo.
        for key in [k for k in cache if len(k) == 3 and k[1] == "musa"]:
            cache.pop(key, None)
    ctx.note("cuda_entries: %d musa entries filled from CUDA ones" % filled)
