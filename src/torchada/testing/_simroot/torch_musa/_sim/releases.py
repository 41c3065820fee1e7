"""Which simulated torch_musa release has which of the surfaces added after 2.7.1.

One row per surface: the first release whose source has it, read at the release commits
(version.txt says the release):
  2.9.1.post1  = MooreThreads/torch_musa 5e25af754dfdacd5a6f9cc3c3cacd64b816b172e
  2.11.0.post2 = MooreThreads/torch_musa e205050c4767c998c0364fb0c3b82cdb39a58347
Releases between 2.7.1 and 2.9.1.post1 were not read: a surface marked 2.9.1.post1 may be
older (unknown). The simulated release is TORCHADA_SIM_TORCH_MUSA_VERSION (_simconfig).
"""
from torchada.testing._simconfig import config

R291, R2110 = "2.9.1.post1", "2.11.0.post2"

FIRST_RELEASE = {
    # torch_musa/core/memory.py __all__ at both commits (absent at v2.7.1)
    "caching_allocator": R291,
    "get_per_process_memory_fraction": R291,
    "host_memory_stats": R291,
    # MemPool(allocator, use_on_oom, no_split) and no MemPoolContext: core/memory.py at
    # e205050 (2.9.1.post1 still exports MemPoolContext and MemPool(allocator) only)
    "mempool_use_on_oom": R2110,
    # torch_musa/core/ipc.py exists at e205050, not at 5e25af7
    "ipc_uuid": R2110,
    # torch_musa/core/random.py at e205050: NV_GPU_REGISTRY, align_rng_to_nv_gpu
    "rng_align": R2110,
}


def has(surface: str) -> bool:
    from packaging.version import Version

    return Version(config().torch_musa_version) >= Version(FIRST_RELEASE[surface])
