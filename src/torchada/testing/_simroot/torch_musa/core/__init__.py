import os

from . import _utils, musa, _lazy_init
from ._lazy_init import _lazy_init as _lazy_init_musa

__all__ = ["cmake_prefix_path", "current_blas_handle", "current_blaslt_handle"]

cmake_prefix_path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "share", "cmake")


def current_blas_handle():
    """Return mublasHandle_t pointer to current muBLAS handle."""
    from torch_musa import _MUSAC

    _lazy_init_musa()
    return _MUSAC._musa_getCurrentBlasHandle()


def current_blaslt_handle():
    """Return mublasLtHandle_t pointer to current muBLASLt handle."""
    from torch_musa import _MUSAC

    _lazy_init_musa()
    return _MUSAC._musa_getCurrentBlasLtHandle()
