"""The C prefilter in front of the devices area's Python wrappers (issue 14, part 1).

A call that names no CUDA device (``torch.zeros(4)``, ``x.new_zeros(3)``, ``x.to(torch.half)``,
``device="cpu"``) goes from the prefilter straight to torch's own callable; one that may
name one goes to the Python wrapper, which translates exactly as without the prefilter.

The prefilter (``prefilter.cpp``, only ``Python.h``) is compiled when the package is built
(setup.py) and installed beside this file like any extension module: nothing is compiled
or written at run time, and it is trusted as the package's own Python files are. Where it
was not built (an sdist installed without a C++ compiler, an unusual platform) the Python
wrappers serve every call, and ``torchada status`` names the route and why in one line.
``TORCHADA_DEVICE_ROUTE=python`` keeps the Python wrappers (tests run both routes).
"""
import importlib
import os

ROUTE_VAR = "TORCHADA_DEVICE_ROUTE"
NOT_BUILT = ("the compiled prefilter is not installed (this torchada was installed without "
             "a C++ compiler, or for another platform); reinstall from a wheel, or with a "
             "compiler, for the faster route")


def requested():
    """The route asked for: "c" (default) or "python"."""
    from torchada._core.settings import read

    return read(ROUTE_VAR)


def load():
    """(Prefilter class, None) or (None, the reason the Python route is used)."""
    if requested() == "python":
        return None, "%s=python" % ROUTE_VAR
    try:
        _prefilter = importlib.import_module(__name__ + "._prefilter")
    except ImportError as exc:
        if getattr(exc, "name", None) == __name__ + "._prefilter":  # not there at all
            return None, NOT_BUILT
        return None, "the compiled prefilter did not load: %s" % exc
    except Exception as exc:  # never let the fast path take the program down
        return None, "the compiled prefilter did not load: %s: %s" % (type(exc).__name__, exc)
    return _prefilter.Prefilter, None
