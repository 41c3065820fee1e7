"""CUDA-API areas, one module each (contract: docs/internals.md).

AREA_MODULES maps each area to the module names whose first import applies it, in the order
areas are applied. The finder needs the triggers before any area module is imported, so they
are listed here; each module repeats them as TRIGGERS and a test keeps the two equal.
A listed module that is missing or broken is reported as failed; the others still apply.
"""

AREA_MODULES = {
    # device strings and ordinals: torch.device, factories, .cuda(), .to(), torch.load ...
    "devices": ("torch",),
    # torch.cuda.* (device management, memory, streams, events, RNG, graphs) -> torch.musa
    "cuda_namespace": ("torch",),
    # torch.cuda.amp, torch.autocast("cuda"), GradScaler("cuda")
    "amp": ("torch",),
    # torch.cuda.cudart() with CUDA names on the MUSA runtime
    "cudart": ("torch",),
    # torch.backends.cuda / cudnn where they have a MUSA meaning
    "backends": ("torch",),
    # torch.accelerator fallbacks to torch.musa
    "accelerator": ("torch",),
    # CUDA_VISIBLE_DEVICES / PYTORCH_CUDA_ALLOC_CONF -> MUSA equivalents
    "env_mirror": ("torch",),
    # torch.utils.cpp_extension: CUDAExtension / BuildExtension on MUSA
    "cpp_extension": ("torch.utils.cpp_extension",),
}
