"""torch.accelerator on MUSA.

CUDA-era code that uses the device-generic ``torch.accelerator`` API (torch >= 2.6) gets a
working API on MUSA:

* where torch's own function exists and works it wins (torch drives PrivateUse1 through the
  backend's registered hooks);
* names this torch lacks (older releases have no memory API; none has ``manual_seed``,
  ``Stream``, ``Event``) fall back to the torch.musa counterpart;
* torch_musa releases before 2.11.0.post2 break the accelerator memory APIs
  (``memory_allocated``, ``memory_stats``, ``get_memory_info``, ``empty_cache``, ...): on those
  releases only, they are routed to torch.musa's allocator functions; later releases stand
  aside (the fix unit ``accelerator.memory_routes`` in ``torchada/areas/manifest.py``).

torch_musa APIs relied on: ``torch.musa.{empty_cache, memory_stats, memory_allocated,
max_memory_allocated, memory_reserved, max_memory_reserved, reset_peak_memory_stats,
reset_accumulated_memory_stats, mem_get_info, manual_seed, manual_seed_all, Stream, Event,
synchronize, device, device_count, current_device, set_device, current_stream, set_stream,
is_available, get_device_capability}``.
"""
from torchada.areas import _kit

# torch.accelerator name -> torch.musa name, for names this torch may lack.
FALLBACKS = {
    "empty_cache": "empty_cache", "memory_stats": "memory_stats",
    "memory_allocated": "memory_allocated", "max_memory_allocated": "max_memory_allocated",
    "memory_reserved": "memory_reserved", "max_memory_reserved": "max_memory_reserved",
    "reset_peak_memory_stats": "reset_peak_memory_stats",
    "reset_accumulated_memory_stats": "reset_accumulated_memory_stats",
    "get_memory_info": "mem_get_info", "manual_seed": "manual_seed",
    "manual_seed_all": "manual_seed_all", "Stream": "Stream", "Event": "Event",
    "synchronize": "synchronize", "device_index": "device", "device_count": "device_count",
    "current_device_index": "current_device", "current_device_idx": "current_device",
    "set_device_index": "set_device", "set_device_idx": "set_device",
    "current_stream": "current_stream", "set_stream": "set_stream",
    "is_available": "is_available", "get_device_capability": "get_device_capability",
}
# The memory APIs broken before FIXED_IN (argument: device_index, as in torch.accelerator).
MEMORY = ("empty_cache", "memory_stats", "memory_allocated", "max_memory_allocated",
          "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
          "reset_accumulated_memory_stats", "get_memory_info")


def _routed(name, target, original):
    if name == "empty_cache":
        def fn():
            return target()
    else:
        def fn(device_index=None, /):
            return target(device_index)
    if original is not None:
        fn = _kit.wraps(original)(fn)
    else:
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = "torch.accelerator.%s on MUSA: torch.musa.%s." % (name, target.__name__)
    return fn


def apply(ctx):
    import torch.accelerator as acc

    for name, musa_name in FALLBACKS.items():
        if not hasattr(acc, name) and hasattr(ctx.musa, musa_name):
            ctx.setattr(acc, name, getattr(ctx.musa, musa_name))


@_kit.fix("memory_routes")
def memory_routes(ctx):
    """The memory APIs routed to torch.musa's allocator functions (broken releases only)."""
    import torch.accelerator as acc

    try:
        import torch.accelerator.memory as acc_memory
    except ImportError:
        acc_memory = None
    for name in MEMORY:
        target = getattr(ctx.musa, FALLBACKS[name], None)
        if target is None:
            continue
        fn = _routed(name, target, getattr(acc, name, None))
        ctx.setattr(acc, name, fn)
        if acc_memory is not None and hasattr(acc_memory, name):
            ctx.setattr(acc_memory, name, fn)
