"""The _MUSAC bindings that later torch_musa releases add, bound only on those releases
(torch_musa._sim.releases): the names core/memory.py of 2.9.1.post1 / 2.11.0.post2 calls."""
from torch_musa._sim import hoststats, rawalloc, releases


def install(namespace):
    if releases.has("caching_allocator"):
        namespace["_musa_musaCachingAllocator_raw_alloc"] = rawalloc.raw_alloc
        namespace["_musa_musaCachingAllocator_raw_delete"] = rawalloc.raw_delete
        namespace["_musa_musaCachingAllocator_enable"] = rawalloc.allocator_enable
    if releases.has("get_per_process_memory_fraction"):
        namespace["_musa_getMemoryFraction"] = rawalloc.get_fraction
    if releases.has("host_memory_stats"):
        namespace["_musa_hostMemoryStats"] = hoststats.host_memory_stats
        namespace["_musa_resetAccumulatedHostMemoryStats"] = hoststats.reset_accumulated
        namespace["_musa_resetPeakHostMemoryStats"] = hoststats.reset_peak
