"""torchada: run unmodified PyTorch CUDA programs on Moore Threads GPUs (torch_musa).

Installing torchada is enough: a start-up hook activates it on MUSA machines. Importing it
explicitly is cheap, idempotent with the hook, and never imports torch by itself.
"""

import contextlib

import torchada_boot
from torchada.detection import (Platform, detect_platform, is_cuda_platform, is_gpu_device,
                               is_musa_platform)

__version__ = "0.2.0"
__all__ = [
    "Platform", "detect_platform", "is_musa_platform", "is_cuda_platform", "is_gpu_device",
    "CUDA_HOME", "cuda_to_musa_name", "nccl_to_mccl_name", "cublas_to_mublas_name",
    "curand_to_murand_name", "status", "revert", "reapply", "disabled",
]

torchada_boot.activate()  # no-op when the start-up hook already ran


def status():
    """A Report of every area: applied / skipped (reason) / failed (error) / pending."""
    from torchada._core.report import build_report

    return build_report()


def revert(*names):
    """Undo applied areas (all, or those named)."""
    from torchada._core import activation

    if activation.registry is not None:
        activation.registry.revert(set(names) or None)


def reapply(*names):
    from torchada._core import activation

    if activation.registry is not None:
        activation.registry.reapply(set(names) or None)


@contextlib.contextmanager
def disabled(*names):
    """Scope with areas (all, or those named) reverted; re-applied on exit. For tests."""
    revert(*names)
    try:
        yield
    finally:
        reapply(*names)


_NAMING = ("cuda_to_musa_name", "nccl_to_mccl_name", "cublas_to_mublas_name",
           "curand_to_murand_name")


def __getattr__(name):  # lazy: keeps `import torchada` cheap
    if name == "CUDA_HOME":
        from torchada.detection import cuda_home

        return cuda_home()
    if name in _NAMING:
        from torchada import naming

        return getattr(naming, name)
    raise AttributeError("module 'torchada' has no attribute %r" % name)
