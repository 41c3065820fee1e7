"""core/memory.py names that 2.9.1.post1 adds to torch.musa beside the new allocator surfaces
(torch_musa/core/memory.py at 5e25af7, also in e205050's __all__): the deprecated
memory_cached / max_memory_cached aliases and list_gpu_processes."""
import shutil
import subprocess
import warnings

import torch


def memory_cached(device=None) -> int:
    # @deprecated(..., category=FutureWarning) around memory_reserved
    warnings.warn("`torch.musa.memory_cached` has been renamed to `torch.musa.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return torch.musa.memory_reserved(device=device)


def max_memory_cached(device=None) -> int:
    warnings.warn("`torch.musa.max_memory_cached` has been renamed to "
                  "`torch.musa.max_memory_reserved`", FutureWarning, stacklevel=2)
    return torch.musa.max_memory_reserved(device=device)


def list_gpu_processes(device=None) -> str:
    """The real function runs ``mthreads-gmi --id <device>`` (then plain ``mthreads-gmi``) and
    returns its output, or a fixed sentence when the tool is missing or fails."""
    from torch_musa.core._utils import _get_musa_device_index

    if device is None:
        device = torch.musa.current_device()
    device = _get_musa_device_index(device, optional=True)
    tool = shutil.which("mthreads-gmi")
    if tool is None:
        return "mthreads-gmi not found, please install mthreads-gmi"
    for argv in ([tool, "--id", str(device)], [tool]):
        try:
            return subprocess.check_output(argv, stderr=subprocess.STDOUT, text=True).strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            continue
    return "musa driver can't be loaded, is musa enabled?"
