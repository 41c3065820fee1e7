"""The C prefilter in front of the devices area's Python wrappers (issue 14, part 1).

A call that names no CUDA device (``torch.zeros(4)``, ``x.new_zeros(3)``, ``x.to(torch.half)``,
``device="cpu"``) goes from the prefilter straight to torch's own callable; one that may
name one goes to the Python wrapper, which translates exactly as without the prefilter.
The first process on a machine (per Python and torch) runs on the Python wrappers and
builds the prefilter as it exits (about a second; nothing is written at import); later
starts load the built file directly (a fraction of a millisecond). Where it cannot be
built (no compiler) the failure is remembered for a day (``RETRY_FAILED_AFTER_S``), and
``torchada status`` names the route.
``TORCHADA_DEVICE_ROUTE=python`` keeps the Python wrappers (tests run both routes).
"""
import importlib.machinery
import importlib.util
import os
import sys
import time

from torchada.areas._kit import native

ROUTE_VAR = "TORCHADA_DEVICE_ROUTE"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefilter.cpp")


def requested():
    """The route asked for: "c" (default) or "python"."""
    return "python" if os.environ.get(ROUTE_VAR, "").strip().lower() == "python" else "c"


def _paths():
    import torch

    from torchada._core.files import private_dir

    name = native.build_name("torchada_prefilter", [SOURCE], "%s-py%d.%d" % (
        torch.__version__, sys.version_info[0], sys.version_info[1]))
    directory = private_dir("build", name)
    return name, directory, os.path.join(directory, name + ".so"), \
        os.path.join(directory, "FAILED")


# A failed build is not retried at every exit (each try costs a compiler run), but not
# forever either: a compiler installed later is found the next day.
RETRY_FAILED_AFTER_S = 24 * 3600


def _failed_recently(failed):
    try:
        age = time.time() - os.stat(failed).st_mtime
    except OSError:
        return False
    if age < RETRY_FAILED_AFTER_S:
        return True
    try:
        os.unlink(failed)
    except OSError:
        return True  # cannot clear it (read-only cache): keep the Python route
    return False


def build_at_exit(name, directory, built, failed):
    """Build the prefilter when this interpreter exits: nothing is written while a program
    imports torch (a test keeps a fresh home untouched at import), and the next start on
    this machine finds it built. A failure is remembered in ``failed``."""
    if os.path.exists(built) or os.path.exists(failed):
        return
    try:
        native.build("torchada_prefilter", [SOURCE], "the device prefilter", name=name,
                     musa=False)
    except native.NativeUnavailable as exc:
        try:
            os.makedirs(directory, exist_ok=True)
            with open(failed, "w") as f:
                f.write("%s\n" % exc)
        except OSError:  # a read-only cache: the next start tries again
            pass
    except Exception:  # never fail an exiting program over a cache
        pass


def load():
    """(Prefilter class, None) or (None, the reason the Python route is used)."""
    if requested() == "python":
        return None, "%s=python" % ROUTE_VAR
    try:
        name, directory, built, failed = _paths()
        if _failed_recently(failed):
            return None, ("the prefilter did not build on this machine before (%s; retried a "
                          "day after, or now if you delete it)" % failed)
        if not os.path.exists(built):
            import atexit

            atexit.register(build_at_exit, name, directory, built, failed)
            return None, "first start on this machine: the prefilter is built when it exits"
        loader = importlib.machinery.ExtensionFileLoader(name, built)
        spec = importlib.util.spec_from_file_location(name, built, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module.Prefilter, None
    except Exception as exc:  # never let the fast path take the program down
        return None, "the prefilter did not load: %s: %s" % (type(exc).__name__, exc)
