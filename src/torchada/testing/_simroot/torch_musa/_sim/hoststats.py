"""Pinned host-memory statistics of the simulator (torch_musa._MUSAC._musa_hostMemoryStats).

The C++ side (musa_sim::host_stats) counts every pinned allocation and free of the
simulator's pinned allocator, which allocates and frees at once (no caching): so
allocations == active_requests and allocated_bytes == active_bytes, and every allocation
is one host-allocation call. The real allocator caches blocks and rounds sizes (unknown
for MUSA: its C++ was not read). Key names are those of torch's at::HostStats (the
torch.cuda.host_memory_stats keys): torch_musa 2.11.0.post2's docstring lists the same
(core/memory.py at e205050); 2.9.1.post1's docstring lists older CUDA names, but the dict
comes from C++ that was not read (unknown), so both releases use torch's names here.
"""
import torch

_ops = torch.ops.musa_sim
_FIELDS = ("current", "peak", "allocated", "freed")


def host_memory_stats():
    flat = list(_ops.host_stats())
    # C++ order: allocations[4], allocated_bytes[4], num_host_alloc, num_host_free
    allocations = dict(zip(_FIELDS, flat[0:4]))
    allocated_bytes = dict(zip(_FIELDS, flat[4:8]))
    timing = {"total": 0, "max": 0, "min": 0, "count": 0, "avg": 0}
    return {
        "allocations": allocations, "allocated_bytes": allocated_bytes,
        "active_requests": dict(allocations), "active_bytes": dict(allocated_bytes),
        "num_host_alloc": flat[8], "num_host_free": flat[9],
        "host_alloc_time": dict(timing), "host_free_time": dict(timing),
    }


def reset_accumulated():
    _ops.host_stats_reset(False)


def reset_peak():
    _ops.host_stats_reset(True)
