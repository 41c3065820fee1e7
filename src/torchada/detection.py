"""Which platform this process runs on, and helpers that answer platform questions."""

import enum
import os
import sys


class Platform(str, enum.Enum):
    CUDA = "cuda"
    MUSA = "musa"
    CPU = "cpu"

    def __str__(self):
        return self.value


_detected = None


def _boot_decision():
    import torchada_boot

    return torchada_boot.activate()


def detect_platform():
    """MUSA when torchada activated for MUSA (or TORCHADA_PLATFORM says so), CUDA when torch
    sees a CUDA device, else CPU. Cached; may import torch when not forced."""
    global _detected
    if _detected is None:
        platform = _boot_decision()[0]
        if platform in ("musa", "cuda", "cpu"):
            _detected = Platform(platform)
        else:
            _detected = _probe_torch()
    return _detected


def _probe_torch():
    try:
        import torch
    except Exception:
        return Platform.CPU
    if getattr(torch, "musa", None) is not None and sys.modules.get("torch_musa") is not None:
        return Platform.MUSA
    try:
        if torch.version.cuda is not None and torch.cuda.is_available():
            return Platform.CUDA
    except Exception:
        pass
    return Platform.CPU


def is_musa_platform():
    return detect_platform() is Platform.MUSA


def is_cuda_platform():
    return detect_platform() is Platform.CUDA


_GPU_TYPES = ("cuda", "musa")


def is_gpu_device(device):
    """True for a CUDA or MUSA device given as str ("cuda:1"), torch.device or int ordinal.

    Use this instead of ``device.type == "cuda"``: on MUSA, torch.device("cuda") has type "musa".
    """
    if isinstance(device, bool):
        raise TypeError("is_gpu_device() takes a str, torch.device or int, not bool")
    if isinstance(device, int):
        return device >= 0
    if isinstance(device, str):
        return device.split(":", 1)[0].strip().lower() in _GPU_TYPES
    device_type = getattr(device, "type", None)
    if isinstance(device_type, str):
        return device_type in _GPU_TYPES
    raise TypeError("is_gpu_device() takes a str, torch.device or int, not %s"
                    % type(device).__name__)


def musa_home():
    """MUSA toolkit root: MUSA_HOME, MUSA_PATH, /usr/local/musa, or where ``mcc`` lives.
    The one definition: torchada.CUDA_HOME and the build integration both read it."""
    for var in ("MUSA_HOME", "MUSA_PATH"):
        value = os.environ.get(var)
        if value:
            return value
    if os.path.isdir("/usr/local/musa"):
        return "/usr/local/musa"
    import shutil

    mcc = shutil.which("mcc")
    if mcc:
        return os.path.dirname(os.path.dirname(os.path.realpath(mcc)))
    return None


def cuda_home():
    """CUDA_HOME as build scripts expect it: the MUSA toolkit's home on MUSA."""
    if detect_platform() is Platform.MUSA:
        return musa_home()
    from torch.utils import cpp_extension

    return cpp_extension.CUDA_HOME
