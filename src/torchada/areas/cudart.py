"""``torch.cuda.cudart()`` answering with CUDA runtime names on the MUSA runtime.

CUDA APIs made to work: ``torch.cuda.cudart()`` returns one object whose ``cudaXxx`` names
are the ``musaXxx`` functions of ``torch.musa.musart()`` (cudaError -> musaError,
cudaGetErrorString, cudaMemGetInfo, cudaHostRegister / cudaHostUnregister,
cudaStreamCreate / cudaStreamDestroy, and any other ``cudaXxx`` whose ``musaXxx`` exists).
``cudaProfilerStart`` / ``cudaProfilerStop``, which torch_musa 2.7.1's musart() lacks, are
provided: they call ``musaProfilerStart`` / ``musaProfilerStop`` of the MUSA runtime library
already loaded in the process (ctypes, looked up once on first use); when no such entry
point can be found they do nothing, say so in one RuntimeWarning per process, and answer
``cudaError.success`` (CUDA's own answer when no profiler is attached). ``torch.cuda.profiler.start / stop / profile`` work through them (their module
globals ``cudart`` / ``check_error`` are rebound). A ``cudaXxx`` name with no MUSA
counterpart raises an error that is both ``NotImplementedError`` and ``AttributeError``
(so ``hasattr`` answers False), naming the API and the torch_musa version.

torch_musa APIs relied on: torch.musa.musart() (the _MUSAC._musart binding: musaError,
musaGetErrorString, musaMemGetInfo, musaHostRegister, musaHostUnregister,
musaStreamCreate, musaStreamDestroy), torch.musa.check_error.
"""
from torchada._core.warn_once import warn_once
from torchada.areas import _kit

# CUDA runtime names with their MUSA names; anything else "cudaX" is looked up as "musaX".
NAMES = {
    "cudaError": "musaError",
    "cudaGetErrorString": "musaGetErrorString",
    "cudaMemGetInfo": "musaMemGetInfo",
    "cudaHostRegister": "musaHostRegister",
    "cudaHostUnregister": "musaHostUnregister",
    "cudaStreamCreate": "musaStreamCreate",
    "cudaStreamDestroy": "musaStreamDestroy",
    "cudaProfilerStart": "musaProfilerStart",
    "cudaProfilerStop": "musaProfilerStop",
}
RUNTIME_LIBRARIES = ("libmusart.so", "libmusart.so.4", "libmusart.so.3")


def _warn_no_profiler(label, symbol):
    warn_once("cudart.profiler", "torch.cuda.profiler.start/stop: %s has no %s in a loaded MUSA "
              "runtime library; nothing was started or stopped (use torch.profiler)",
              label, symbol, category=RuntimeWarning, stacklevel=4)


class UnsupportedRuntimeName(NotImplementedError, AttributeError):
    """A cudaXxx name with no MUSA counterpart (hasattr() answers False)."""


class CudaRuntime:
    """What ``torch.cuda.cudart()`` returns on MUSA: CUDA names over ``torch.musa.musart()``."""

    def __init__(self, musart, musa_label):
        self._musart = musart
        self._label = musa_label
        self._profiler_lib = None
        for cuda_name, musa_name in NAMES.items():
            if hasattr(musart, musa_name):
                setattr(self, cuda_name, getattr(musart, musa_name))
        if not hasattr(self, "cudaProfilerStart"):
            self.cudaProfilerStart = self._profiler_call("musaProfilerStart")
        if not hasattr(self, "cudaProfilerStop"):
            self.cudaProfilerStop = self._profiler_call("musaProfilerStop")

    def _success(self, code=0):
        error = getattr(self, "cudaError", None)
        if error is None:
            return code
        if code == 0:
            return getattr(error, "success", 0)
        try:
            return error(code)
        except Exception:
            return code

    def _library(self):
        if self._profiler_lib is None:
            import ctypes

            self._profiler_lib = False
            for name in RUNTIME_LIBRARIES:
                try:
                    self._profiler_lib = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
        return self._profiler_lib or None

    def _profiler_call(self, symbol):
        def call():
            lib = self._library()
            func = getattr(lib, symbol, None) if lib is not None else None
            if func is None:
                # No MUSA profiler entry point: say so once, do nothing; the CUDA answer
                # when no profiler is attached (success) keeps check_error quiet.
                _warn_no_profiler(self._label, symbol)
                return self._success(0)
            return self._success(int(func()))

        call.__name__ = "cuda" + symbol[4:]
        call.__doc__ = "%s on the MUSA runtime (torchada)." % call.__name__
        return call

    def __getattr__(self, name):
        if name.startswith("cuda"):
            musa_name = "musa" + name[4:]
            if hasattr(self._musart, musa_name):
                return getattr(self._musart, musa_name)
            raise UnsupportedRuntimeName(
                "torch.cuda.cudart().%s is not supported on MUSA (%s musart() has no %s)"
                % (name, self._label, musa_name))
        return getattr(self._musart, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(NAMES))


def _cudart(ctx):
    musa, label, made = ctx.musa, ctx.musa_label, []

    def cudart():
        """torch.cuda.cudart() on MUSA: CUDA runtime names over torch.musa.musart()."""
        if made:
            return made[0]
        runtime = CudaRuntime(musa.musart(), label)
        made.append(runtime)
        return runtime

    cudart.__module__ = "torch.cuda"
    return cudart


EMULATIONS = {"cudart": _cudart}


def apply(ctx):
    import sys

    import torch.cuda  # noqa: F401

    _kit.apply_rows(ctx, EMULATIONS)
    profiler = sys.modules.get("torch.cuda.profiler")
    if profiler is not None:
        if "cudart" in profiler.__dict__:
            ctx.setattr(profiler, "cudart", ctx.torch.cuda.cudart)
        if "check_error" in profiler.__dict__ and ctx.has("check_error"):
            ctx.setattr(profiler, "check_error", ctx.musa.check_error)
