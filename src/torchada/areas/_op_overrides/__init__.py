"""The compiled operator overrides (fix units ``operator_fixes.cpp_overrides`` and
``operator_fixes.isfinite_async``).

torch_musa releases before 2.11.0.post2 lack working ``log`` / ``log_`` / ``multinomial``
kernels (seed fix table); a small C++ extension registers PrivateUse1 kernels for them
(``csrc/``: shared registration in op_overrides.cpp, device bodies in kernels_musa.mu, and
kernels_sim.cpp for the simulated device). The same extension carries ``isfinite`` for the
``isfinite_async`` unit (every release), whose Python kernel is then only the fallback.
Building costs seconds once per machine and loading costs milliseconds, so activation
registers a Python trampoline per op instead;
the first call builds (under the shared lock, through the kit's native builder) and loads
the extension, whose C++ kernels then replace the trampolines: later calls go straight
from the dispatcher to C++. If the build fails, the trampolines go away (torch_musa's own
kernels answer again), the fallback runs (the Python ``log_f64_inplace`` unit where its
gate passed), one warning names the reason, and the call proceeds.

Switches: ``TORCHADA_DISABLE_OP_OVERRIDE_<op>=1`` leaves that op to torch_musa,
``TORCHADA_DEBUG_CPP_OPS=1`` logs every call of a compiled kernel to stderr,
``TORCHADA_CPP_OPS_VERBOSE=1`` prints the build log.
"""
import logging
import os
import threading
import time

from torchada._core import settings
from torchada.areas._kit import kernels, native

OPS = ("log", "log_", "multinomial", "isfinite")
# Dispatch keys each op's kernel sits at. isfinite is CompositeImplicitAutograd: the
# autograd key is reached first, PrivateUse1 itself when autograd is off (inference_mode).
KEYS = {"isfinite": ("AutogradPrivateUse1", "PrivateUse1")}
DISABLE_PREFIX = "TORCHADA_DISABLE_OP_OVERRIDE_"
DEBUG_VAR = "TORCHADA_DEBUG_CPP_OPS"
CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")

logger = logging.getLogger("torchada")


def enabled_ops(environ=None):
    off = settings.family(DISABLE_PREFIX + "<op>", OPS, environ)
    return tuple(op for op in OPS if not off[op])


def debug_enabled():
    return settings.read(DEBUG_VAR)


def sources():
    body = "kernels_sim.cpp" if native.simulated() else "kernels_musa.mu"
    return ([os.path.join(CSRC, "op_overrides.cpp"), os.path.join(CSRC, body)],
            [os.path.join(CSRC, "kernels.h")])


_extension = []
_extension_lock = threading.Lock()


def extension():
    """The built and loaded extension, shared by every unit that uses it (one build)."""
    with _extension_lock:
        if not _extension:
            srcs, headers = sources()
            _extension.append(native.build("torchada_op_overrides", srcs,
                                           "the compiled operator overrides", headers=headers))
        return _extension[0]


class CompiledOverrides:
    """Trampolines until the first call, then the extension's kernels (or the fallback)."""

    def __init__(self, torch, ops, fallback, fallback_text):
        self.torch = torch
        self.ops = ops
        self.fallback = fallback          # called once if the build fails
        self.fallback_text = fallback_text
        self.silence = " or ".join(DISABLE_PREFIX + op + "=1" for op in ops)
        self.state = "not built (builds at the first call)"
        self.module = None
        self._libraries = []
        self._lock = threading.Lock()
        self._done = False

    def install(self):
        library = self.torch.library.Library("aten", "IMPL")
        self._libraries.append(library)
        for op in self.ops:
            for key in KEYS.get(op, ("PrivateUse1",)):
                kernels.register(library, op, self._trampoline(op), key)

    def revert(self):
        self._drop_trampolines()
        if self.module is not None:
            self.module.uninstall(list(self.ops))
            self.module = None

    def _drop_trampolines(self):
        while self._libraries:
            self._libraries.pop()._destroy()

    def _trampoline(self, op):
        overload = getattr(self.torch.ops.aten, op).default

        def first_call(*args, **kwargs):
            self._load()
            return overload(*args, **kwargs)  # now dispatched to the compiled kernel

        return first_call

    def _load(self):
        with self._lock:
            if self._done:
                return
            self._done = True
            started = time.perf_counter()
            try:
                module = extension()
                registered = module.install(list(self.ops), debug_enabled())
            except Exception as exc:  # no compiler, a header, a loader error
                self._drop_trampolines()
                self.state = "not built: %s" % exc
                logger.warning("torchada: %s; %s. Fix the build, or silence this with %s",
                               exc, self.fallback_text, self.silence)
                self.fallback()
                return
            self.module = module
            self._drop_trampolines()
            self.state = "compiled: %s (loaded in %.1f s)" % (
                ", ".join(registered), time.perf_counter() - started)
