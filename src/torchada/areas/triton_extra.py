"""Triton's ``tl.extra.cuda`` namespace on MUSA.

CUDA API made to work: Triton kernels written for NVIDIA that call ``tl.extra.cuda.libdevice.*``
(or ``from triton.language.extra.cuda import libdevice``), ``tl.extra.cuda.num_warps()`` and
friends, and ``tl.extra.cuda.gdc_wait()`` / ``gdc_launch_dependents()`` (programmatic
dependent launch, which MUSA has not: they raise NotImplementedError naming themselves).

The MUSA Triton fork ships its device namespace as ``triton.language.extra.musa`` (loaded by
extra/__init__.py's subpackage scan, as upstream loads cuda and hip; the peer torchada 0.1.103
looks for the same attribute). Which names it has is unknown to us, so the area decides at
run time: when the MUSA namespace has every public name of the CUDA one, ``tl.extra.cuda`` *is*
the MUSA module; otherwise it is a namespace with the MUSA names, and a stub raising
NotImplementedError for each CUDA name the MUSA one lacks. Submodules already loaded
(``...musa.libdevice``) are aliased under the cuda name in ``sys.modules``. An upstream
Triton with no MUSA namespace is left as it is (it cannot compile for MUSA; status says so).

extra became a package of backends in triton 3.0 (the manifest's gate). torch_musa APIs
relied on: none.
"""
import sys
import types


PREFIX = "triton.language.extra."
# Upstream triton 3.9.0's triton/language/extra/cuda/__init__.py __all__: the names to cover
# when the fork has no CUDA namespace of its own to read them from.
UPSTREAM_CUDA_NAMES = ("libdevice", "globaltimer", "num_threads", "num_warps", "smid",
                       "convert_custom_float8_sm70", "convert_custom_float8_sm80",
                       "gdc_launch_dependents", "gdc_wait")
NO_PDL = ("programmatic dependent launch has no MUSA equivalent; on MUSA launch the "
          "dependent kernel after this one instead of overlapping them")


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return set(names)


def unsupported(name, why):
    def stub(*args, **kwargs):
        raise NotImplementedError("tl.extra.cuda.%s is not available on MUSA: %s" % (name, why))

    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = PREFIX + "cuda"
    return stub


def build_namespace(musa, cuda_names):
    """``musa`` itself when it has every CUDA name, else a namespace filling the gaps."""
    missing = sorted(set(cuda_names) - public_names(musa))
    if not missing:
        return musa, missing
    ns = types.ModuleType(PREFIX + "cuda", "tl.extra.cuda on MUSA: %s's names, and stubs "
                          "for the CUDA names it lacks (%s)" % (musa.__name__, ", ".join(missing)))
    for name in public_names(musa):
        setattr(ns, name, getattr(musa, name))
    for name in missing:
        why = NO_PDL if name.startswith("gdc_") else "%s has no %s" % (musa.__name__, name)
        setattr(ns, name, unsupported(name, why))
    ns.__all__ = sorted(public_names(musa) | set(missing))
    ns.__path__ = list(getattr(musa, "__path__", ()))
    ns.__getattr__ = lambda name: getattr(musa, name)  # private helpers kernels may reach
    return ns, missing


def apply(ctx):
    import triton.language as tl

    extra = getattr(tl, "extra", None)
    musa = getattr(extra, "musa", None) or sys.modules.get(PREFIX + "musa")
    if musa is None:
        ctx.note("this triton has no triton.language.extra.musa (not the MUSA Triton); "
                 "tl.extra.cuda left as it is")
        return
    cuda = getattr(extra, "cuda", None)
    cuda_names = (public_names(cuda) if cuda is not None else set(UPSTREAM_CUDA_NAMES))
    cuda_names |= {"gdc_wait", "gdc_launch_dependents"}
    namespace, missing = build_namespace(musa, cuda_names)
    ctx.setattr(extra, "cuda", namespace)
    ctx.setitem(sys.modules, PREFIX + "cuda", namespace)
    for name, module in list(sys.modules.items()):
        if name.startswith(PREFIX + "musa."):
            ctx.setitem(sys.modules, PREFIX + "cuda." + name[len(PREFIX + "musa."):], module)
    ctx.note("tl.extra.cuda -> %s%s" % (musa.__name__, " (stubs: %s)" % ", ".join(missing)
                                         if missing else ""))
