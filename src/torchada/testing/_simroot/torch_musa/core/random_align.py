"""RNG grid sizing alignment with NVIDIA GPUs, torch_musa 2.11.0.post2: NV_GPU_REGISTRY and
align_rng_to_nv_gpu of torch_musa/core/random.py at e205050 (absent at 5e25af7,
2.9.1.post1, and at v2.7.1). core/random.py re-exports them on that release; the package
calls align_rng_to_nv_gpu() at import (torch_musa/__init__.py at e205050 was not read: the
call's place is unknown; its own test sets TORCH_RNG_ALIGN before `import torch_musa`)."""
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
