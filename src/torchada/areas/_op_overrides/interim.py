"""What answers an overridden op until the compiled kernels are swapped in (or for good,
where they stand aside): torch_musa's own kernel, or torchada's Python fallback.

torch_musa's kernel is reached through ``torch.library.get_kernel`` (torch >= 2.9); before
that through the op's ``out=`` overload, which torch_musa registers for PrivateUse1 itself
(``log.out`` -> LogOut, ``multinomial.out`` -> MultinomialOut:
torch_musa/csrc/aten/ops/musa_functions.yaml:798 and :2623 at 2.7.1) and which no unit
overrides. ``log_`` and ``isfinite`` take the Python kernels of ``log_f64_inplace`` and
``isfinite_async`` (same numbers as the compiled ones).
"""
from torchada.areas._kit import kernels


def _log(torch):
    native = kernels.native_kernel("aten::log", "PrivateUse1")
    log_out = torch.ops.aten.log.out
    floating = frozenset((torch.float16, torch.bfloat16, torch.float32, torch.float64))

    def log(keyset, self):
        if native is not None:
            return native.call_boxed(keyset, self)
        # torch's result type: floating and complex keep theirs, others the default dtype
        dtype = self.dtype if self.dtype in floating or self.is_complex() else \
            torch.get_default_dtype()
        return log_out(self, out=torch.empty(0, dtype=dtype, device=self.device))

    return log


def _multinomial(torch):
    native = kernels.native_kernel("aten::multinomial", "PrivateUse1")
    multinomial_out = torch.ops.aten.multinomial.out
    long = torch.long

    def multinomial(keyset, self, num_samples, replacement=False, generator=None):
        if native is not None:
            return native.call_boxed(keyset, self, num_samples, replacement, generator=generator)
        out = torch.empty(0, dtype=long, device=self.device)
        return multinomial_out(self, num_samples, replacement, generator=generator, out=out)

    return multinomial


def _log_(torch):
    from torchada.areas._op_overrides.python_kernels import log_inplace_kernel

    return log_inplace_kernel(torch, kernels.native_kernel("aten::log_", "PrivateUse1"))


def _isfinite(torch):
    from torchada.areas._op_overrides.python_kernels import isfinite_kernel as python_isfinite

    kernel = python_isfinite(torch)
    return lambda keyset, self: kernel(self)


BUILDERS = {"log": _log, "log_": _log_, "multinomial": _multinomial, "isfinite": _isfinite}


def kernel(torch, op):
    """``kernel(keyset, *args, **kwargs)`` computing ``op`` without the compiled extension."""
    return BUILDERS[op](torch)
