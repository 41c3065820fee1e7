"""CUDA libraries loaded through ctypes load their MUSA twins, with CUDA symbol names.

CUDA APIs made to work: ``ctypes.CDLL("libcudart.so.12")`` (and ``ctypes.cdll.LoadLibrary``,
absolute toolkit paths, ``libnccl``, ``libcublas`` / ``libcublasLt``, ``libcurand``,
``libcufft``, ``libcusparse``, ``libcusolver``, ``libcudnn``, ``libcuda``) loads
``libmusart.so`` / ``libmccl.so`` / ``libmublas.so`` / ...; on such a library a CUDA symbol
(``lib.cudaMalloc``, ``lib["ncclAllReduce"]``, ``lib.cublasSgemm_v2``) resolves to its MUSA
twin (``musaMalloc``, ``mcclAllReduce``, ``mublasSgemm_v2``). The object stays a plain
``ctypes.CDLL`` (``isinstance`` holds), and attribute access caches the function on the
instance as ctypes always does, so a second lookup costs nothing extra; setting
``restype`` / ``argtypes`` works on the function as usual.
``ctypes.util.find_library("cudart")`` answers with the MUSA runtime (or, when the
search finds none, the one already loaded in this process, e.g. by torch_musa).

Bad input: a symbol with no MUSA twin raises AttributeError naming both names; a library
whose MUSA twin cannot be loaded raises OSError naming both. Libraries that are not CUDA's
and non-CUDA symbols are untouched.

torch_musa APIs relied on: none; the MUSA toolkit's libraries (cuda_vs_musa.md: libcudart
-> libmusart, libcublas -> libmublas, libnccl -> the MCCL library; FindMUSAToolkits.cmake).
"""
import re

from torchada.areas import _kit

# CUDA library stem -> MUSA stem (longest first: cublasLt before cublas, cudart before cuda).
STEMS = (("cudart", "musart"), ("cublasLt", "mublasLt"), ("cublas", "mublas"),
         ("curand", "murand"), ("cufft", "mufft"), ("cusparse", "musparse"),
         ("cusolver", "musolver"), ("cudnn", "mudnn"), ("nccl", "mccl"), ("cuda", "musa"))
_LIB = re.compile(r"^(?:.*[/\\])?lib(%s)(?:\.so(?:\.[0-9.]+)?)?$" % "|".join(c for c, _ in STEMS))
# Symbol prefixes of those libraries -> MUSA prefixes (longest first).
PREFIXES = (("cudnn", "mudnn"), ("cublas", "mublas"), ("curand", "murand"), ("cufft", "mufft"),
            ("cusparse", "musparse"), ("cusolver", "musolver"), ("nccl", "mccl"),
            ("cuda", "musa"), ("cu", "mu"))
_TWIN = "_torchada_cuda_twin"  # set on a CDLL that stands for a CUDA library


def musa_library(name):
    """The MUSA library for a CUDA library name or path, or None when it is not CUDA's."""
    match = _LIB.match(name) if isinstance(name, str) else None
    if match is None:
        return None
    return "lib%s.so" % dict(STEMS)[match.group(1)]


def musa_symbol(name):
    """``cudaMalloc`` -> ``musaMalloc``, ``ncclAllReduce`` -> ``mcclAllReduce``, ..."""
    for cuda, musa in PREFIXES:
        if name.startswith(cuda):
            return musa + name[len(cuda):]
    return name


def _init(original):
    @_kit.wraps(original)
    def __init__(self, name, *args, **kwargs):
        twin = musa_library(name)
        if twin is None:
            return original(self, name, *args, **kwargs)
        try:
            original(self, twin, *args, **kwargs)
        except OSError as exc:
            raise OSError("%s is a CUDA library; on MUSA its twin %s could not be loaded (%s). "
                          "Install the MUSA toolkit and put its lib directory on the loader "
                          "path" % (name, twin, exc)) from None
        object.__setattr__(self, _TWIN, name)

    return __init__


def _getitem(original):
    @_kit.wraps(original)
    def __getitem__(self, name_or_ordinal):
        cuda_name = self.__dict__.get(_TWIN)
        if cuda_name is None or not isinstance(name_or_ordinal, str):
            return original(self, name_or_ordinal)
        twin = musa_symbol(name_or_ordinal)
        try:
            return original(self, twin)
        except AttributeError:
            raise AttributeError("%s (loaded for %s) has no %s, the MUSA twin of %s"
                                 % (self._name, cuda_name, twin, name_or_ordinal)) from None

    return __getitem__


def _find_library(original):
    @_kit.wraps(original)
    def find_library(name):
        stems = dict(STEMS)
        if name not in stems:
            return original(name)
        return original(stems[name]) or _loaded("lib%s.so" % stems[name])

    return find_library


def _loaded(soname):
    """Path of ``soname`` if this process already has it mapped (Linux), else None."""
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rsplit(None, 1)[-1]
                if path.rsplit("/", 1)[-1].startswith(soname):
                    return path
    except OSError:
        pass
    return None


def apply(ctx):
    import ctypes
    import ctypes.util

    ctx.setattr(ctypes.CDLL, "__init__", _init(ctypes.CDLL.__init__))
    ctx.setattr(ctypes.CDLL, "__getitem__", _getitem(ctypes.CDLL.__getitem__))
    ctx.setattr(ctypes.util, "find_library", _find_library(ctypes.util.find_library))
