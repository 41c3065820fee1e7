"""The compiled operator overrides (fix units ``operator_fixes.cpp_overrides`` and
``operator_fixes.isfinite_async``).

torch_musa releases before 2.11.0.post2 lack working ``log`` / ``log_`` / ``multinomial``
kernels (seed fix table); a small C++ extension registers PrivateUse1 kernels for them
(``csrc/``: shared registration in op_overrides.cpp, device bodies in kernels_musa.mu, and
kernels_sim.cpp for the simulated device). The same extension carries ``isfinite`` for the
``isfinite_async`` unit (every release), whose Python kernel is then only the fallback.

No call waits on a compiler: activation registers a Python kernel per op that answers
with torch_musa's kernel or torchada's Python fallback (``interim``); the first call starts
the build (or, on a warm cache, the load) on a daemon thread (``shared``, the kit's
``background``); once it is done the next call made outside graph capture checks what the
kernels rely on (``checks``) and swaps them in on its own thread (``overrides``). If the
build fails, one warning names the reason and the fallbacks stay; an op whose check fails
stands aside with a status line. ``torchada build`` builds ahead of time.

Switches: ``TORCHADA_DISABLE_OP_OVERRIDE_<op>=1`` leaves that op to torch_musa,
``TORCHADA_DEBUG_CPP_OPS=1`` logs every call of a compiled kernel to stderr,
``TORCHADA_CPP_OPS_VERBOSE=1`` prints the build log.
"""
from torchada.areas._op_overrides.overrides import DISABLE_PREFIX, KEYS, CompiledOverrides
from torchada.areas._op_overrides.shared import (DEBUG_VAR, background, build_extension,
                                                 debug_enabled, sources)

OPS = ("log", "log_", "multinomial", "isfinite")

__all__ = ["OPS", "KEYS", "DISABLE_PREFIX", "DEBUG_VAR", "CompiledOverrides", "background",
           "build_extension", "debug_enabled", "enabled_ops", "sources"]


def enabled_ops(environ=None):
    """OPS less those TORCHADA_DISABLE_OP_OVERRIDE_<op> switches off (read through the
    settings table: a malformed value, or an op name not in OPS, gets one warning)."""
    from torchada._core.settings import family

    off = family(DISABLE_PREFIX + "<op>", OPS, environ)
    return tuple(op for op in OPS if not off[op])
