"""RNG grid sizing alignment with NVIDIA GPUs: NV_GPU_REGISTRY and align_rng_to_nv_gpu as
torch_musa/core/random.py has them at e205050 (2.11.0.post2). 2.9.1.post1's __init__.py
(5e25af7) imports align_rng_to_nv_gpu from core.random and calls it at import, but its
core/random.py is not stored there: the function is taken to be 2.11.0.post2's (unknown).
Absent at v2.7.1. core/random.py re-exports these on the releases that have them."""
import os

__all__ = ["NV_GPU_REGISTRY", "align_rng_to_nv_gpu"]

# {name: (multiProcessorCount, maxThreadsPerMultiProcessor)}, as at e205050
NV_GPU_REGISTRY = {
    "V100": (80, 2048),
    "A100": (108, 2048),
    "A800": (108, 2048),
    "H100_PCIE": (114, 2048),
    "H100": (132, 2048),
    "H200": (132, 2048),
    "H800": (132, 2048),
    "B200": (192, 2048),
}


def align_rng_to_nv_gpu(gpu_name=None):
    """Explicit TORCH_ARCH_MP_COUNT + TORCH_ARCH_MAXTHREADS_PER_MP win; then gpu_name, then
    TORCH_RNG_ALIGN; an unknown name raises ValueError naming the known ones."""
    if os.environ.get("TORCH_ARCH_MP_COUNT") and os.environ.get("TORCH_ARCH_MAXTHREADS_PER_MP"):
        return
    if gpu_name is None:
        gpu_name = os.environ.get("TORCH_RNG_ALIGN")
    if gpu_name is None:
        return
    name = gpu_name.upper().replace("-", "_")
    if name not in NV_GPU_REGISTRY:
        raise ValueError(f"Unknown NV GPU '{gpu_name}'. "
                         f"Available: {', '.join(sorted(NV_GPU_REGISTRY.keys()))}")
    mp_count, max_threads = NV_GPU_REGISTRY[name]
    os.environ["TORCH_ARCH_MP_COUNT"] = str(mp_count)
    os.environ["TORCH_ARCH_MAXTHREADS_PER_MP"] = str(max_threads)
