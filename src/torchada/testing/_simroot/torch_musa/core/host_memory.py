"""Pinned host-memory statistics of torch_musa 2.9.1.post1 and later: torch_musa/core/memory.py
(host_memory_stats, host_memory_stats_as_nested_dict, reset_accumulated_host_memory_stats,
reset_peak_host_memory_stats) at 5e25af7 (2.9.1.post1) and e205050 (2.11.0.post2), the same
code in both. Absent at v2.7.1. core/memory.py re-exports these on those releases."""
from typing import Any, Dict

from torch_musa import _MUSAC
from torch_musa.core._stats import flatten
from torch_musa.core._lazy_init import is_initialized

__all__ = ["host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats"]


def host_memory_stats() -> Dict[str, Any]:
    return flatten(host_memory_stats_as_nested_dict())


def host_memory_stats_as_nested_dict() -> Dict[str, Any]:
    # As the real one: {} until MUSA is initialised (pinned memory made before the first
    # device call is not reported then).
    if not is_initialized():
        return {}
    return _MUSAC._musa_hostMemoryStats()


def reset_accumulated_host_memory_stats() -> None:
    return _MUSAC._musa_resetAccumulatedHostMemoryStats()


def reset_peak_host_memory_stats() -> None:
    return _MUSAC._musa_resetPeakHostMemoryStats()
