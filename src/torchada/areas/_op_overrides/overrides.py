"""One fix unit's compiled ops: a Python kernel per op until the compiled kernels are swapped
in; the extension is built off the hot path (``shared.extension``) and swapped in at a call
boundary.

Each op gets a kernel (its own library, so ops come and go alone) that answers with the
interim route (``interim``: torch_musa's kernel or torchada's Python fallback). The first
call starts the shared build on a daemon thread and takes that route at once; that thread
also runs the generator check and the dtype probes (``checks.verdicts``: explicit device,
private stream). Once the build is done, the next call made outside graph capture does the
swap on its own thread, before the op runs, with no device work: the device comparison,
the probes' verdicts read, ``install`` of the C++ kernels that passed (which shadow the
Python ones from then on; the Python library stays registered underneath, so nothing being
dispatched is freed), and the status line; the call itself then goes to the compiled
kernel. A call inside a capture keeps the interim route and
leaves the swap to the next call outside it. An op whose check fails stands aside (its
kernel dropped: torch_musa's answers again, or the unit's Python fallback); a failed build
does the same for every op, after one warning from the build thread.
"""
import threading

from torchada.areas._kit import kernels
from torchada.areas._op_overrides import checks, interim, shared

DISABLE_PREFIX = "TORCHADA_DISABLE_OP_OVERRIDE_"
# Dispatch keys each op's kernel sits at. isfinite is CompositeImplicitAutograd: the
# autograd key is reached first, PrivateUse1 itself when autograd is off (inference_mode).
KEYS = {"isfinite": ("AutogradPrivateUse1", "PrivateUse1")}
# The ops a unit's ``fallback`` (its Python kernel) stands in for: cpp_overrides' is the
# float64 log_ kernel of log_f64_inplace, isfinite_async's its Python isfinite.
FALLBACK_OPS = frozenset(("log_", "isfinite"))


class CompiledOverrides:
    """``ops`` of one unit; ``fallback()`` installs the unit's Python kernel, called when
    an op of FALLBACK_OPS is given back (a failed build, a failed check). The area may set
    ``fallback`` and extend ``fallback_text`` after construction."""

    def __init__(self, torch, ops, fallback, fallback_text):
        self.torch = torch
        self.ops = tuple(ops)
        self.fallback = fallback
        self.fallback_text = fallback_text
        self.silence = " or ".join(DISABLE_PREFIX + op + "=1" for op in self.ops)
        self.module = None
        self.installed = ()
        self.stood_aside = {}        # op -> why it keeps torch_musa's kernel
        self.swap_deferred = 0       # calls that found the build done but a capture running
        self._libraries = {}         # op -> the library of its Python kernel
        self._lock = threading.Lock()
        self._pending = True         # until the swap (or the give-back) is done
        # a torch_musa without it cannot tell: swap at the first call after the build
        self._capturing = getattr(getattr(torch, "musa", None), "is_current_stream_capturing",
                                  lambda: False)

    # -- activation and revert -------------------------------------------------------------
    def install(self):
        for op in self.ops:
            library = self.torch.library.Library("aten", "IMPL")
            self._libraries[op] = library
            for key in KEYS.get(op, ("PrivateUse1",)):
                kernels.register(library, op, self._kernel(op), key, with_keyset=True)
        shared.UNITS.append(self)

    def revert(self):
        self._pending = False
        if self in shared.UNITS:
            shared.UNITS.remove(self)
        for op in list(self._libraries):
            self._libraries.pop(op)._destroy()
        if self.module is not None and self.installed:
            self.module.uninstall(list(self.installed))
        self.module, self.installed = None, ()

    # -- the per-op kernel -----------------------------------------------------------------
    def _kernel(self, op):
        overload = getattr(self.torch.ops.aten, op).default
        route = interim.kernel(self.torch, op)
        build = shared.background()

        def kernel(keyset, *args, **kwargs):
            if self._pending:
                if not build.done:
                    if not build.started and not shared.DEVICE:
                        shared.DEVICE.append(args[0].device)   # where the probes run
                    build.start()              # cheap once started
                elif not self._tracing(args[0]) and self._settle(args[0].device) \
                        and op in self.installed:
                    return overload(*args, **kwargs)   # now the compiled kernel
            return route(keyset, *args, **kwargs)

        return kernel

    def _tracing(self, tensor):
        """A compile is tracing this call (a fake or functional tensor, or a compile in
        progress): the swap's device probes must not run inside the trace, where their host
        reads become unbacked symbols (issue 20: aot_eager broke on isfinite). The next eager
        call swaps."""
        if type(tensor) is not self.torch.Tensor:
            return True
        context = getattr(getattr(self.torch, "_guards", None), "TracingContext", None)
        return context is not None and context.try_get() is not None

    def _settle(self, device):
        """The build is done: swap in (or give back) unless a capture is running. True once
        the compiled kernels answer."""
        if self._capturing():
            self.swap_deferred += 1
            return False
        with self._lock:
            if self._pending:
                build = shared.background()
                if build.error is not None:
                    self._give_back(self.ops)
                else:
                    try:
                        self._swap(build.result.module, build.result.problems, device)
                    except Exception as exc:  # never the user's call: the fallbacks stay
                        self._stand_aside_all("swapping in failed: %s: %s"
                                              % (type(exc).__name__, exc))
                self._pending = False
        return bool(self.installed)

    def _swap(self, module, problems, device):
        """Install the kernels the build thread's probes passed (``problems``: op -> None or
        why not); nothing here touches the device."""
        problem = checks.device_problem(self.torch, device)
        for op in self.ops:
            why = problem or problems.get(op, "not probed (the build's probes ran before "
                                                  "this op was enabled)")
            if why is not None:
                self.stood_aside[op] = why
        wanted = [op for op in self.ops if op not in self.stood_aside]
        installed = list(module.install(wanted, shared.debug_enabled())) if wanted else []
        self.module, self.installed = module, tuple(installed)
        self._give_back([op for op in self.ops if op not in self.installed])

    def _stand_aside_all(self, why):
        if self.module is not None and self.installed:
            try:
                self.module.uninstall(list(self.installed))
            except Exception:  # a half-installed op keeps what it has; the status says why
                pass
        self.installed = ()
        for op in self.ops:
            self.stood_aside.setdefault(op, why)
        self._give_back([op for op in self.ops if op in self._libraries])

    def _give_back(self, ops):
        """These ops keep torch_musa's kernel, or the unit's Python fallback for them."""
        for op in ops:
            library = self._libraries.pop(op, None)
            if library is not None:
                library._destroy()
        if FALLBACK_OPS.intersection(ops) and self.fallback is not None:
            self.fallback()

    # -- status ----------------------------------------------------------------------------
    @property
    def state(self):
        build = shared.background()
        if self.installed or self.stood_aside:
            text = "compiled: %s (%s)" % (", ".join(self.installed) or "none",
                                          shared.build_text(build))
            for op, why in sorted(self.stood_aside.items()):
                text += "; %s left to torch_musa: %s" % (op, why)
            return text
        if build.done and build.error is not None:
            return "not built: %s" % build.error
        if build.done:
            return ("built (%s); swapped in at the next call outside graph capture%s"
                    % (shared.build_text(build), " (%d calls in capture so far)"
                       % self.swap_deferred if self.swap_deferred else ""))
        if build.started:
            return "building in the background; %s meanwhile" % self.fallback_text
        return "not built yet (the first call starts the build in the background)"
