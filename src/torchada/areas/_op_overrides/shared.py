"""The one extension both units use, prepared once per process on a background thread (the
compile itself in a detached builder that outlives the process; the probes of the ops on
that thread), and the one warning a failed build gives (naming every unit's fallback)."""
import logging
import os
import threading

from torchada.areas._kit import background as _background
from torchada.areas._kit import extension_builder

DEBUG_VAR = "TORCHADA_DEBUG_CPP_OPS"
CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")
WHAT = "the compiled operator overrides"

logger = logging.getLogger("torchada")
UNITS = []   # the CompiledOverrides installed in this process (their fallbacks, for the warning)
DEVICE = []  # the device of the first call that started the build (where the probes run)
_BUILD = []
_LOCK = threading.Lock()


def debug_enabled():
    from torchada._core.settings import read

    return read(DEBUG_VAR)


def sources():
    body = "kernels_sim.cpp" if extension_builder.simulated() else "kernels_musa.mu"
    return ([os.path.join(CSRC, "op_overrides.cpp"), os.path.join(CSRC, body)],
            [os.path.join(CSRC, "kernels.h"), os.path.join(CSRC, "sampling.h")])


def build_extension(force=False, detach="op_overrides"):
    """Build (or load from the cache) and return the extension; raises NativeUnavailable.
    The compile runs in the detached builder (``_kit.detached``); a failed build is not
    retried with the same key until ``force`` (``torchada build``)."""
    srcs, headers = sources()
    return extension_builder.build("torchada_op_overrides", srcs, WHAT, headers=headers,
                        detach=None if force else detach, remember_failure=True, force=force)


def build_in_builder():
    """The detached builder's work (``python -m torchada.areas._kit.detached op_overrides``):
    compile here, under the build lock; what it did."""
    import torch

    try:
        import torch_musa  # noqa: F401  (the build's key and sources depend on it)
    except ImportError:
        pass
    if not hasattr(torch, "musa"):
        raise extension_builder.NativeUnavailable("the builder found no musa device module "
                                                  "(torch_musa did not load)")
    before = set(extension_builder.COMPILED)
    build_extension(detach=None)
    return "built" if set(extension_builder.COMPILED) - before else "already built"


class Ready:
    """A finished build: the extension and what each op's probe found (``checks.verdicts``:
    op -> None or why the op stands aside), worked out on the build thread."""

    def __init__(self, module, problems):
        self.module = module
        self.problems = problems


def _prepare():
    """The background thread's work: the extension (waiting for its detached builder when
    the cache is cold), then the probes of every op the installed units asked for, here, on
    an explicit device and a private stream: never inside a user's call."""
    import torch

    from torchada.areas._op_overrides import checks

    module = build_extension()
    ops = sorted({op for unit in list(UNITS) for op in unit.ops})
    device = DEVICE[0] if DEVICE else None
    with _background.torch_work():  # interpreter exit waits for the probes, never cuts them
        return Ready(module, checks.verdicts(torch, module, ops, device))


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
                _BUILD.append(_background.Background(WHAT, _prepare,
                                                     on_done=_warn_if_failed))
    return _BUILD[0]


def build_text(build):
    if build.seconds is None:
        return "building"
    return "ready in %.1f s, off the calling thread" % build.seconds
