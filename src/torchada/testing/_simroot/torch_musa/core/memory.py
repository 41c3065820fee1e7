"""Memory management.  The simulated allocator tracks bytes per device; freed memory stays
"reserved" until empty_cache(), like a caching allocator.

Note: like the real module, this file does not import `warnings`, so
reset_max_memory_allocated / reset_max_memory_cached raise NameError (a real quirk).
"""
import contextlib
from typing import Any, Dict, Optional, Tuple, Union

import torch
from torch.types import Device

from torch_musa import _MUSAC
from torch_musa.core._lazy_init import _lazy_init, is_initialized
from torch_musa.core._stats import flatten
from torch_musa.core._utils import _get_musa_device_index
from torch_musa.core.device import current_device
from torch_musa._sim import releases as _releases

__all__ = [
    "set_per_process_memory_fraction", "empty_cache", "memory_stats", "memory_stats_as_nested_dict",
    "reset_accumulated_memory_stats", "reset_peak_memory_stats", "reset_max_memory_allocated",
    "reset_max_memory_cached", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_snapshot", "memory_summary", "mem_get_info",
    "get_allocator_backend", "MUSAPluggableAllocator", "change_current_allocator", "MemPool",
    "MemPoolContext", "use_mem_pool", "memory_stats_all", "_record_memory_history",
    "_dump_snapshot", "_set_allocator_settings",
]

_musa_MUSAAllocator = _MUSAC._musa_MUSAAllocator


def _dev(device):
    return _get_musa_device_index(device, optional=True)


def set_per_process_memory_fraction(fraction, device: Union[Device, int] = None) -> None:
    _lazy_init()
    if device is None:
        device = current_device()
    device = _get_musa_device_index(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _MUSAC._musa_setMemoryFraction(fraction, device)


def empty_cache():
    if is_initialized():
        _MUSAC._musa_emptyCache()


def memory_stats(device: Union[Device, int] = None) -> Dict[str, Any]:
    return flatten(memory_stats_as_nested_dict(device=device))


def memory_stats_as_nested_dict(device: Union[Device, int] = None) -> Dict[str, Any]:
    if not is_initialized():
        return {}
    device = _dev(device)
    flat = _MUSAC._musa_memoryStats(device)
    nested = {}
    for key, value in flat.items():
        if "." in key:
            name, pool = key.split(".", 1)
            nested.setdefault(name, {})[pool] = value
        else:
            nested[key] = value
    return nested


def memory_stats_all() -> Dict[str, Any]:
    from torch_musa.core.device import device_count

    return {i: memory_stats(i) for i in range(device_count())}


def reset_accumulated_memory_stats(device: Union[Device, int] = None) -> None:
    device = _dev(device)
    return _MUSAC._musa_resetAccumulatedMemoryStats(device)


def reset_peak_memory_stats(device: Union[Device, int] = None) -> None:
    device = _dev(device)
    return _MUSAC._musa_resetPeakMemoryStats(device)


def reset_max_memory_allocated(device: Union[Device, int] = None) -> None:
    warnings.warn(  # noqa: F821  (NameError on purpose: the real module lacks the import)
        "torch.musa.reset_max_memory_allocated now calls torch.musa.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.", FutureWarning)
    return reset_peak_memory_stats(device=device)


def reset_max_memory_cached(device: Union[Device, int] = None) -> None:
    warnings.warn(  # noqa: F821
        "torch.musa.reset_max_memory_cached now calls torch.musa.reset_peak_memory_stats, "
        "which resets /all/ peak memory stats.", FutureWarning)
    return reset_peak_memory_stats(device=device)


def memory_allocated(device: Union[Device, int] = None) -> int:
    return memory_stats(device=device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device: Union[Device, int] = None) -> int:
    return memory_stats(device=device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device: Union[Device, int] = None) -> int:
    return memory_stats(device=device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device: Union[Device, int] = None) -> int:
    return memory_stats(device=device).get("reserved_bytes.all.peak", 0)


def _snapshot(device: Union[Device, int] = None):
    # torch_musa/core/memory.py:326 (manifest); the dict layout is torch.cuda.memory._snapshot's.
    return _MUSAC._musa_memorySnapshot()


def memory_snapshot():
    # torch_musa/core/memory.py:369: takes no arguments (torch.cuda's takes mempool_id).
    return _MUSAC._musa_memorySnapshot()["segments"]


def _format_size(sz, pref_sz):
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return f"{sz:6d} {prefix}"


def _format_count(cnt, pref_cnt):
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return f"{cnt:7d} {prefix} "


def memory_summary(device: Union[Device, int] = None, abbreviated: bool = False) -> str:
    """torch_musa/core/memory.py:377 is torch.cuda.memory_summary with MUSA wording; the table
    layout below is that function's (torch/cuda/memory.py, memory_summary)."""
    device = _dev(device)
    stats = memory_stats(device=device)
    metrics_to_display = [
        ("allocated_bytes", "Allocated memory", _format_size),
        ("active_bytes", "Active memory", _format_size),
        ("requested_bytes", "Requested memory", _format_size),
        ("reserved_bytes", "GPU reserved memory", _format_size),
        ("inactive_split_bytes", "Non-releasable memory", _format_size),
        ("allocation", "Allocations", _format_count),
        ("active", "Active allocs", _format_count),
        ("segment", "GPU reserved segments", _format_count),
        ("inactive_split", "Non-releasable allocs", _format_count),
    ]
    lines = []
    lines.append("=" * 75)
    lines.append(" {_:16} PyTorch MUSA memory summary, device ID {device:<17d} ")
    lines.append("-" * 75)
    lines.append("  {_:9} MUSA OOMs: {num_ooms:<12d} | {_:6} musaMalloc retries: {num_alloc_retries:<8d}  ")
    lines.append("=" * 75)
    lines.append("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ")
    for metric_key, metric_name, formatter in metrics_to_display:
        lines.append("-" * 75)
        submetrics = [("all", metric_name)]
        if not abbreviated:
            submetrics.append(("large_pool", "      from large pool"))
            submetrics.append(("small_pool", "      from small pool"))
        current_prefval, peak_prefval, allocated_prefval, freed_prefval = None, None, None, None
        for submetric_key, submetric_name in submetrics:
            prefix = metric_key + "." + submetric_key + "."
            current = stats.get(prefix + "current", 0)
            peak = stats.get(prefix + "peak", 0)
            allocated = stats.get(prefix + "allocated", 0)
            freed = stats.get(prefix + "freed", 0)
            if current_prefval is None:
                current_prefval, peak_prefval = current, peak
                allocated_prefval, freed_prefval = allocated, freed
            lines.append(
                f" {submetric_name:<21} | {formatter(current, current_prefval)} | "
                f"{formatter(peak, peak_prefval)} | {formatter(allocated, allocated_prefval)} | "
                f"{formatter(freed, freed_prefval)} ")
    metrics_to_display = [
        ("oversize_allocations", "Oversize allocations", _format_count),
        ("oversize_segments", "Oversize GPU segments", _format_count),
    ]
    for metric_key, metric_name, formatter in metrics_to_display:
        lines.append("-" * 75)
        prefix = metric_key + "."
        current = stats.get(prefix + "current", 0)
        peak = stats.get(prefix + "peak", 0)
        allocated = stats.get(prefix + "allocated", 0)
        freed = stats.get(prefix + "freed", 0)
        lines.append(
            f" {metric_name:<21} | {formatter(current, current)} | {formatter(peak, peak)} | "
            f"{formatter(allocated, allocated)} | {formatter(freed, freed)} ")
    lines.append("=" * 75)
    fmt_dict = {"_": "", "device": device}
    for k, v in stats.items():
        fmt_dict[k.replace(".", "-")] = v
    fmt_dict["num_ooms"] = stats.get("num_ooms", 0)
    fmt_dict["num_alloc_retries"] = stats.get("num_alloc_retries", 0)
    return "|" + "|\n|".join(lines).format(**fmt_dict) + "|\n"


def mem_get_info(device: Union[Device, int] = None) -> Tuple[int, int]:
    if device is None:
        device = current_device()
    device = _get_musa_device_index(device)
    return _MUSAC._musart.musaMemGetInfo(device)


def get_allocator_backend() -> str:
    return _MUSAC._musa_getAllocatorBackend()


class _MUSAAllocator:
    def __init__(self, allocator: _musa_MUSAAllocator):
        self._allocator = allocator

    def allocator(self):
        return self._allocator


class MUSAPluggableAllocator(_MUSAAllocator):
    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str):
        raise RuntimeError("MUSAPluggableAllocator is not simulated by torchada.testing")


def _get_current_allocator() -> _MUSAAllocator:
    # torch_musa/core/memory.py:617 (manifest).
    return _MUSAAllocator(_MUSAC._musa_getAllocator())


def change_current_allocator(allocator: _MUSAAllocator) -> None:
    _MUSAC._musa_changeCurrentAllocator(allocator.allocator())


class MemPool(_MUSAC._MemPool):
    # Each release's own constructor (core/memory.py): 2.7.1 takes the allocator only;
    # 2.9.1.post1 adds use_on_oom (at 5e25af7); 2.11.0.post2 adds no_split (at e205050).
    if _releases.has("mempool_no_split"):
        def __init__(self, allocator: Optional[_musa_MUSAAllocator] = None,
                     use_on_oom: bool = False, no_split: bool = False):
            super().__init__(allocator, True, use_on_oom, no_split)
    elif _releases.has("mempool_use_on_oom"):
        def __init__(self, allocator: Optional[_musa_MUSAAllocator] = None,
                     use_on_oom: bool = False):
            super().__init__(allocator, True, use_on_oom)
    else:
        def __init__(self, allocator: Optional[_musa_MUSAAllocator] = None):
            super().__init__(allocator, True)

    @property
    def id(self) -> Tuple[int, int]:
        """Returns the ID of this pool as a tuple of two ints."""
        return super().id

    @property
    def allocator(self) -> Optional[_musa_MUSAAllocator]:
        """Returns the allocator this MemPool routes allocations to."""
        return super().allocator


class MemPoolContext(_MUSAC._MemPoolContext):
    def __init__(self, pool: MemPool):
        super().__init__(pool)

    @staticmethod
    def active_pool() -> Optional[_MUSAC._MemPool]:
        # The real method calls the C static method named activate_pool.
        return _MUSAC._MemPoolContext.activate_pool()


@contextlib.contextmanager
def use_mem_pool(pool: MemPool, device: Union[Device, int] = None):
    # Simulated: allocations are not routed to pools; the context is honoured as a no-op.
    ctx = _MUSAC._MemPoolContext(pool)
    try:
        yield
    finally:
        _MUSAC._MemPoolContext._active[0] = ctx._prev


def _record_memory_history(enabled="all", *args, **kwargs):
    return None


def _dump_snapshot(filename="dump_snapshot.pickle"):
    import pickle

    with open(filename, "wb") as f:
        pickle.dump(_MUSAC._musa_memorySnapshot(), f)


def _set_allocator_settings(env: str):
    return _MUSAC._musa_musaCachingAllocator_set_allocator_settings(env)


# Later releases (torch_musa._sim.releases): 2.11.0.post2 drops MemPoolContext from
# core/memory.py (e205050); 2.9.1.post1 adds the raw allocator calls and the host-memory
# statistics (5e25af7), kept by 2.11.0.post2.
if _releases.has("mempool_context_dropped"):
    __all__.remove("MemPoolContext")
    del MemPoolContext
if _releases.has("caching_allocator"):
    from torch_musa.core.memory_raw import *  # noqa: E402,F401,F403
    from torch_musa.core import memory_raw as _memory_raw  # noqa: E402

    __all__ += _memory_raw.__all__
if _releases.has("host_memory_stats"):
    from torch_musa.core.host_memory import *  # noqa: E402,F401,F403
    from torch_musa.core import host_memory as _host_memory  # noqa: E402

    __all__ += _host_memory.__all__
