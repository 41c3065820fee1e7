"""CUDA-API areas, one module each (contract: docs/internals.md). Applied in this order.

A name listed here whose module is missing or broken is reported as failed; the other
areas still apply.
"""

AREA_MODULES = (
    "devices",          # device strings and ordinals: torch.device, factories, .cuda(), .to(), load ...
    "cuda_namespace",   # torch.cuda.* (device mgmt, memory, streams, events, RNG, graphs) -> torch.musa
    "amp",              # torch.cuda.amp, torch.autocast("cuda"), GradScaler("cuda")
    "cudart",           # torch.cuda.cudart() with CUDA names on the MUSA runtime
    "backends",         # torch.backends.cuda / cudnn where they have a MUSA meaning
    "accelerator",      # torch.accelerator fallbacks to torch.musa
    "env_mirror",       # CUDA_VISIBLE_DEVICES / PYTORCH_CUDA_ALLOC_CONF -> MUSA equivalents
    "cpp_extension",    # torch.utils.cpp_extension: CUDAExtension / BuildExtension on MUSA
)
