"""Replacing a PrivateUse1 kernel of an aten operator, through the area's journal.

A kernel registered for PrivateUse1 only runs for musa tensors: CPU (and CUDA) calls never
see it, so an operator fix costs nothing off the device. ``native_kernel`` keeps the kernel
being replaced callable (``torch.library.get_kernel``, torch >= 2.9; None before), so a fix
can forward the cases that work. Reverting the area destroys the library, which restores the
kernel it replaced.
"""
import re
import warnings

# torch warns when a kernel replaces another for the same key: the replacement is the point.
_OVERRIDE_WARNING = re.compile(r"(?s).*Overriding a previously registered kernel")


def has_kernel(qualname, key="PrivateUse1"):
    """Whether ``aten::op.overload`` has a kernel for ``key`` (builds without it keep raising)."""
    import torch

    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(qualname, key))
    except RuntimeError:  # no such operator or overload on this torch
        return False


def has_overload(op, overload):
    import torch

    return any(s.overload_name == overload
               for s in torch._C._jit_get_schemas_for_operator("aten::" + op))


def native_kernel(qualname, key="PrivateUse1"):
    import torch

    get_kernel = getattr(torch.library, "get_kernel", None)
    if get_kernel is None:
        return None
    try:
        return get_kernel(qualname, key)
    except RuntimeError:
        return None


def override(ctx, op_name, kernel, key="PrivateUse1", with_keyset=False):
    """Register ``kernel`` for ``aten::op_name`` at ``key``; undone when the area reverts."""
    import torch

    library = torch.library.Library("aten", "IMPL")
    ctx.on_revert(library._destroy, write=True)
    register(library, op_name, kernel, key, with_keyset)
    return library


def register(library, op_name, kernel, key="PrivateUse1", with_keyset=False):
    """``library.impl`` without torch's warning that a kernel replaces another."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_OVERRIDE_WARNING.pattern, category=UserWarning)
        library.impl(op_name, kernel, key, with_keyset=with_keyset)


def register_all(library, kernels, key="PrivateUse1"):
    """``register`` for many ``(op_name, kernel)`` pairs under one warning filter (a filter per
    kernel was most of the cost of hundreds of registrations); the names of those this torch
    refused, with the exception's type."""
    refused = []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_OVERRIDE_WARNING.pattern, category=UserWarning)
        for op_name, kernel in kernels:
            try:
                library.impl(op_name, kernel, key)
            except Exception as exc:  # an overload this torch cannot take a Python kernel for
                refused.append("%s (%s)" % (op_name, type(exc).__name__))
    return refused
