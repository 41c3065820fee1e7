"""Which simulated torch_musa release has which of the surfaces added after 2.7.1.

API names are answered by torchada.testing.torch_musa_api.has_api (the recorded API of the
selected profile, read at the release commits: 2.9.1.post1 = MooreThreads/torch_musa
5e25af754dfd, 2.11.0.post2 = e205050c4767). Behaviour without a name of its own is keyed
by the first profile whose source has it.
"""
from torchada.testing._simconfig import config
from torchada.testing.torch_musa_api import has_api

# surface -> the torch.musa name that marks it (has_api decides)
BY_NAME = {
    "caching_allocator": "caching_allocator_alloc",
    "get_per_process_memory_fraction": "get_per_process_memory_fraction",
    "host_memory_stats": "host_memory_stats",
    "get_stream_from_external": "get_stream_from_external",
    # torch_musa/__init__.py at 5e25af7 imports align_rng_to_nv_gpu and calls it at import
    "rng_align": "align_rng_to_nv_gpu",
    "nv_gpu_registry": "NV_GPU_REGISTRY",
}
# surface -> first profile (no name of its own)
BY_PROFILE = {
    # MemPool(allocator, use_on_oom): core/memory.py at 5e25af7 (2.7.1: allocator only)
    "mempool_use_on_oom": "2.9.1.post1",
    # MemPool(allocator, use_on_oom, no_split): core/memory.py at e205050
    "mempool_no_split": "2.11.0.post2",
    # core/memory.py at e205050 has no MemPoolContext (5e25af7 still defines it)
    "mempool_context_dropped": "2.11.0.post2",
    # torch_musa/core/ipc.py exists at e205050, not at 5e25af7
    "ipc_uuid": "2.11.0.post2",
}


def has(surface: str) -> bool:
    if surface in BY_NAME:
        return has_api(BY_NAME[surface], config().torch_musa_version)
    from packaging.version import Version

    return Version(config().profile) >= Version(BY_PROFILE[surface])
