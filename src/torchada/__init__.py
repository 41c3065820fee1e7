"""torchada: run unmodified PyTorch CUDA programs on Moore Threads GPUs (torch_musa).

Installing torchada is enough: a start-up hook activates it on MUSA machines. Importing it
explicitly is cheap, idempotent with the hook, and never imports torch by itself.
"""

import torchada_boot

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


class disabled:
    """``with torchada.disabled("devices"):`` areas (all, or those named) reverted inside the
    block and re-applied on exit. For tests. (A class, so importing torchada needs no contextlib.)"""

    def __init__(self, *names):
        self.names = names

    def __enter__(self):
        revert(*self.names)
        return self

    def __exit__(self, *exc_info):
        reapply(*self.names)
        return False


_NAMING = ("cuda_to_musa_name", "nccl_to_mccl_name", "cublas_to_mublas_name",
           "curand_to_murand_name")
_DETECTION = ("Platform", "detect_platform", "is_musa_platform", "is_cuda_platform",
              "is_gpu_device")


def __getattr__(name):  # lazy: keeps `import torchada` cheap (no enum, no torch)
    if name in _DETECTION:
        from torchada import detection

        return getattr(detection, name)
    if name == "CUDA_HOME":
        from torchada.detection import cuda_home

        return cuda_home()
    if name in _NAMING:
        from torchada import naming

        return getattr(naming, name)
    raise AttributeError("module 'torchada' has no attribute %r" % name)
