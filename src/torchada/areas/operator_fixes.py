"""Operator fixes: torch_musa releases with broken kernels, each fixed by its own unit.

CUDA APIs made to work (on the releases each unit's gate names; manifest rows):
``Tensor.log_`` / ``torch.log_`` on float64 musa tensors (``log_f64_inplace``), and
``torch.mm`` / ``torch.bmm`` with ``out_dtype=`` (``mm_out_dtype``), ``torch.isfinite`` /
``Tensor.isfinite`` without a host wait (``isfinite_async``), and ``log`` / ``log_`` /
``multinomial`` as compiled kernels (``cpp_overrides``, torchada/areas/_op_overrides). Each
unit replaces the
PrivateUse1 kernel only (``_kit.kernels``): CPU and other devices never reach it, and a
release outside the unit's range installs nothing.

torch_musa APIs relied on: its PrivateUse1 kernels for aten::log_, aten::log,
aten::mm.dtype, aten::bmm.dtype, aten::abs, aten::lt; torch.musa.is_current_stream_capturing.
"""
import threading

from torchada.areas import _kit


class OutDtypeMatmul:
    """mm / bmm(out_dtype=) on musa: the native kernel if a probe finds it healthy, else
    float32 accumulation cast to out_dtype (what CUDA's kernels compute).

    The probe runs once per process, on the first call made outside graph capture, with
    exact-integer operands (so any right kernel gives the same bits); calls before it, and
    inside a capture, are emulated. ``healthy`` is None until decided; once the native
    kernels are found right the override is removed, and they are called directly."""

    def __init__(self, torch, native_mm, native_bmm):
        self.torch = torch
        self.native = {"mm": native_mm, "bmm": native_bmm}
        self.healthy = None if native_mm is not None and native_bmm is not None else False
        self._lock = threading.Lock()
        self.on_healthy = None  # called once when the probe finds the native kernels right

    def _capturing(self):
        return bool(self.torch.musa.is_current_stream_capturing())

    def _probe(self, keyset, device):
        torch = self.torch
        a = torch.arange(1, 13, dtype=torch.float32).reshape(2, 2, 3) - 6
        b = torch.arange(1, 19, dtype=torch.float32).reshape(2, 3, 3) - 9
        ok = True
        for dtype in (torch.bfloat16, torch.float16):
            da, db = a.to(device=device, dtype=dtype), b.to(device=device, dtype=dtype)
            got_mm = self.native["mm"].call_boxed(keyset, da[1], db[1], torch.float32)
            got_bmm = self.native["bmm"].call_boxed(keyset, da, db, torch.float32)
            ok = ok and torch.equal(got_mm.cpu(), a[1] @ b[1]) and torch.equal(got_bmm.cpu(), a @ b)
        return ok

    def _decide(self, keyset, device):
        if self.healthy is not None or self._capturing():
            return self.healthy
        with self._lock:
            if self.healthy is None:
                self.healthy = self._probe(keyset, device)
                if self.healthy and self.on_healthy is not None:
                    self.on_healthy()
        return self.healthy

    def kernel(self, name):
        torch = self.torch
        emulate = torch.mm if name == "mm" else torch.bmm

        def matmul(keyset, self_, mat2, out_dtype):
            if self._decide(keyset, self_.device):
                return self.native[name].call_boxed(keyset, self_, mat2, out_dtype)
            return emulate(self_.float(), mat2.float()).to(out_dtype)

        return matmul


def _install_log_f64(ctx):
    from torchada.areas._op_overrides.python_kernels import log_inplace_kernel

    kernels = _kit.kernels
    native = kernels.native_kernel("aten::log_", "PrivateUse1")
    kernels.override(ctx, "log_", log_inplace_kernel(ctx.torch, native), with_keyset=True)
    ctx.note("log_f64_inplace: float64 log_ as out-of-place log written back"
             + ("" if native is not None else "; every dtype (torch < 2.9 has no "
                "torch.library.get_kernel to reach the native kernel)"))


def _compile(ctx, unit, ops, fallback, fallback_text):
    """``ops`` (those not switched off by TORCHADA_DISABLE_OP_OVERRIDE_<op>) as compiled
    kernels from the first call on; None when every op is switched off."""
    from torchada.areas import _op_overrides

    ops = tuple(op for op in ops if op in _op_overrides.enabled_ops())
    if not ops:
        return None
    cpp = _op_overrides.CompiledOverrides(ctx.torch, ops, fallback, fallback_text)
    cpp.install()
    ctx.on_revert(cpp.revert, write=True)
    ctx.note(lambda: "%s: %s" % (unit, cpp.state))  # built or not, asked when status is
    return cpp


def _install_isfinite(ctx):
    from torchada.areas._op_overrides import KEYS
    from torchada.areas._op_overrides.python_kernels import isfinite_kernel

    kernel = isfinite_kernel(ctx.torch)
    for key in KEYS["isfinite"]:
        _kit.kernels.override(ctx, "isfinite", kernel, key=key)


# The units run in the manifest row's order: cpp_overrides first, so log_f64_inplace can
# become its fallback for log_.

@_kit.fix("cpp_overrides")
def cpp_overrides(ctx):
    cpp = _compile(ctx, "cpp_overrides", ("log", "log_", "multinomial"), lambda: None,
                   "log / log_ / multinomial use torch_musa's kernels")
    if cpp is None:
        ctx.note("cpp_overrides: every op left to torch_musa")
    ctx.shared["cpp_overrides"] = cpp


@_kit.fix("log_f64_inplace")
def log_f64_inplace(ctx):
    cpp = ctx.shared.get("cpp_overrides")
    if cpp is not None and "log_" in cpp.ops:
        # compiled by cpp_overrides; this unit's Python kernel is its fallback
        cpp.fallback = lambda: _install_log_f64(ctx)
        cpp.fallback_text += " (float64 log_: the Python log_f64_inplace kernel)"
        ctx.note("log_f64_inplace: log_ is compiled by cpp_overrides (this unit is its "
                 "fallback if the build fails)")
    else:
        _install_log_f64(ctx)


@_kit.fix("isfinite_async")
def isfinite_async(ctx):
    # Compiled from the first call on (a Python kernel costs microseconds a call); the
    # Python kernel where the build fails or TORCHADA_DISABLE_OP_OVERRIDE_isfinite=1.
    if _compile(ctx, "isfinite_async", ("isfinite",), lambda: _install_isfinite(ctx),
                "isfinite uses torchada's Python kernel") is None:
        _install_isfinite(ctx)
        ctx.note("isfinite_async: Python kernel (float16/bfloat16/float32/float64 as "
                 "abs() < inf)")


_MM_STATES = {None: "probe at the first call outside capture",
              True: "native kernels healthy (override removed)",
              False: "native kernels wrong or unreachable (emulated in float32)"}


@_kit.fix("mm_out_dtype")
def mm_out_dtype(ctx):
    kernels = _kit.kernels
    if not kernels.has_overload("mm", "dtype"):
        ctx.note("mm_out_dtype: nothing to fix (this torch has no mm(out_dtype=))")
        return
    if not (kernels.has_kernel("aten::mm.dtype") and kernels.has_kernel("aten::bmm.dtype")):
        ctx.note("mm_out_dtype: nothing to fix (this torch_musa has no mm/bmm(out_dtype=) "
                 "kernels; calls keep raising as they do)")
        return
    fix = OutDtypeMatmul(ctx.torch, kernels.native_kernel("aten::mm.dtype"),
                         kernels.native_kernel("aten::bmm.dtype"))
    libraries = [kernels.override(ctx, "mm.dtype", fix.kernel("mm"), with_keyset=True),
                 kernels.override(ctx, "bmm.dtype", fix.kernel("bmm"), with_keyset=True)]
    # Healthy kernels: step out of the way, so later calls cost nothing extra.
    fix.on_healthy = lambda: [library._destroy() for library in libraries]
    ctx.note(lambda: "mm_out_dtype: %s" % _MM_STATES[fix.healthy])
