"""Building MUSA extensions.  The simulator has no mcc compiler: MUSAExtension builds a plain
C++ extension (.mu sources are rejected).  Unlike the real module, importing this does NOT
set os.environ['MAX_JOBS'] (the simulator must not write environment variables)."""
import os

from torch.utils.cpp_extension import BuildExtension as _BuildExtension
from torch.utils.cpp_extension import CppExtension


def _find_musa_home():
    return os.environ.get("MUSA_HOME") or os.environ.get("MUSA_PATH") or "/usr/local/musa"


MUSA_HOME = _find_musa_home()


class BuildExtension(_BuildExtension):
    @classmethod
    def with_options(cls, **options):
        class cls_with_options(cls):
            def __init__(self, *args, **kwargs):
                kwargs.update(options)
                super().__init__(*args, **kwargs)

        return cls_with_options

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)

    def _add_gnu_cpp_abi_flag(self, extension):
        parent = getattr(super(), "_add_gnu_cpp_abi_flag", None)
        if parent is not None:
            return parent(extension)
        import torch

        self._add_compile_flag(extension, "-D_GLIBCXX_USE_CXX11_ABI=" + str(int(torch._C._GLIBCXX_USE_CXX11_ABI)))


def MUSAExtension(name, sources, *args, **kwargs):
    bad = [s for s in sources if str(s).endswith(".mu")]
    if bad:
        raise RuntimeError(f"MUSAExtension: .mu sources need the mcc compiler, which the torchada simulator "
                           f"does not provide: {bad}")
    return CppExtension(name, sources, *args, **kwargs)
