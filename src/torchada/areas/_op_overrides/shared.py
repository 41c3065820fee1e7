"""The one extension both units use, built once per process on a background thread, and the
one warning a failed build gives (naming every unit's fallback)."""
import logging
import os
import threading

from torchada.areas._kit import background as _background
from torchada.areas._kit import native

DEBUG_VAR = "TORCHADA_DEBUG_CPP_OPS"
CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")
WHAT = "the compiled operator overrides"

logger = logging.getLogger("torchada")
UNITS = []   # the CompiledOverrides installed in this process (their fallbacks, for the warning)
_BUILD = []
_LOCK = threading.Lock()


def debug_enabled():
    from torchada._core.settings import read

    return read(DEBUG_VAR)


def sources():
    body = "kernels_sim.cpp" if native.simulated() else "kernels_musa.mu"
    return ([os.path.join(CSRC, "op_overrides.cpp"), os.path.join(CSRC, body)],
            [os.path.join(CSRC, "kernels.h"), os.path.join(CSRC, "sampling.h")])


def build_extension():
    """Build (or load from the cache) and return the extension; raises NativeUnavailable."""
    srcs, headers = sources()
    return native.build("torchada_op_overrides", srcs, WHAT, headers=headers)


def _warn_if_failed(build):
    if build.error is None:
        return
    units = list(UNITS)
    logger.warning("torchada: %s; %s. Fix the build (`torchada build` says what failed), or "
                   "silence this with %s", build.error,
                   "; ".join(unit.fallback_text for unit in units) or "the ops keep "
                   "torch_musa's kernels",
                   " or ".join(unit.silence for unit in units) or "TORCHADA_DISABLE_AREAS="
                   "operator_fixes")


def background():
    """The process's build of the extension (started by the first call that needs it)."""
    if not _BUILD:
        with _LOCK:
            if not _BUILD:
                _BUILD.append(_background.Background(WHAT, build_extension,
                                                     on_done=_warn_if_failed))
    return _BUILD[0]


def build_text(build):
    if build.seconds is None:
        return "building"
    return "ready in %.1f s, off the calling thread" % build.seconds
