"""Where the MUSA toolkit lives: mcc, torch_musa's package directory, include and library
paths (evidence: torch_musa/utils/musa_extension.py). Nothing here imports torch or
torch_musa; ``musa_home`` has one definition, in torchada.detection."""
import os
import shlex
import shutil

from torchada.detection import musa_home

__all__ = ["musa_home", "find_mcc", "torch_musa_dir", "musa_include_paths", "musa_library_paths"]


def find_mcc():
    """The MUSA compiler command (a list: PYTORCH_MCC may hold a launcher such as ccache)."""
    if os.environ.get("PYTORCH_MCC"):
        return shlex.split(os.environ["PYTORCH_MCC"])
    home = musa_home()
    if home and os.path.isfile(os.path.join(home, "bin", "mcc")):
        return [os.path.join(home, "bin", "mcc")]
    found = shutil.which("mcc")
    if found:
        return [found]
    raise RuntimeError("the MUSA compiler mcc was not found: install the MUSA toolkit and set "
                       "MUSA_HOME (or put mcc on PATH, or set PYTORCH_MCC)")


def torch_musa_dir():
    """Directory of the torch_musa package (without importing it), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch_musa")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def musa_include_paths():
    paths = []
    tm = torch_musa_dir()
    if tm:
        share = os.path.join(tm, "share", "generated_cuda_compatible")
        for sub in ("aten/src", "include", "include/torch/csrc/api/include"):
            if os.path.isdir(os.path.join(share, sub)):
                paths.append(os.path.join(share, sub))
        paths.append(os.path.dirname(tm))  # so "torch_musa/csrc/..." resolves
    home = musa_home()
    if home:
        paths.append(os.path.join(home, "include"))
    mudnn = os.environ.get("MUDNN_HOME") or os.environ.get("MUDNN_PATH")
    if mudnn:
        paths.append(os.path.join(mudnn, "include"))
    return paths


def musa_library_paths():
    paths = []
    tm = torch_musa_dir()
    if tm:
        paths.append(os.path.join(tm, "lib"))
    home = musa_home()
    if home:
        lib = os.path.join(home, "lib64")
        paths.append(lib if os.path.isdir(lib) else os.path.join(home, "lib"))
    mudnn = os.environ.get("MUDNN_HOME") or os.environ.get("MUDNN_PATH")
    if mudnn:
        paths.append(os.path.join(mudnn, "lib"))
    return paths
