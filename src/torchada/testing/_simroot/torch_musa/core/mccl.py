import torch

__all__ = ["version"]


def version():
    """Returns the version of the MCCL."""
    from torch_musa import _MUSAC

    ver = _MUSAC._mccl_version()
    major, minor, patch = ver >> 32, (ver >> 16) & 65535, ver & 65535
    suffix = _MUSAC._mccl_version_suffix().decode("utf-8")
    return (major, minor, patch) if suffix == "" else (major, minor, patch, suffix)
