"""CPU references for ops the CPU has no kernel for, so verify can still judge them.

mm / bmm with ``out_dtype=`` exist for CUDA only (torch >= 2.9): their reference is the
product computed in ``out_dtype`` from the operands converted to it, which is what the
device kernels promise (accumulate wider, write ``out_dtype``). Other ops without a CPU
kernel use torch's own decomposition where it has one (``torch._decomp``), else they are
skipped as ``no CPU kernel``."""


def _matmul_in(op):
    def reference(self, mat2, out_dtype):
        return op(self.to(out_dtype), mat2.to(out_dtype))

    return reference


def reference(torch, name, func):
    """A callable computing ``func``'s result on CPU tensors, or None."""
    if name == "aten::mm.dtype":
        return _matmul_in(torch.ops.aten.mm.default)
    if name == "aten::bmm.dtype":
        return _matmul_in(torch.ops.aten.bmm.default)
    try:
        from torch._decomp import decomposition_table
    except ImportError:
        return None
    return decomposition_table.get(func)
