"""The Python kernels of the operator fixes: the units' own kernels (operator_fixes), and
what a compiled override falls back to while it builds or where it cannot (interim)."""


def log_inplace_kernel(torch, native):
    """log_ on musa: float64 as the out-of-place log written back (the in-place contract:
    same tensor, same storage); other dtypes go to the native kernel when it is reachable."""
    float64, log = torch.float64, torch.log

    def log_(keyset, self):
        if native is None or self.dtype == float64:
            return self.copy_(log(self))
        return native.call_boxed(keyset, self)

    return log_


def isfinite_kernel(torch):
    """isfinite on musa floating tensors as one comparison, ``abs() < inf`` (NaN compares
    False), instead of ATen's composite, whose bool ``mul`` waits for the device. Other
    dtypes run ATen's composite itself (``decompose``), exactly as without the fix."""
    floats = frozenset((torch.float16, torch.bfloat16, torch.float32, torch.float64))
    composite = torch.ops.aten.isfinite.default.decompose
    inf = float("inf")

    def isfinite(self):
        if self.dtype in floats:
            return self.abs() < inf
        return composite(self)

    return isfinite
