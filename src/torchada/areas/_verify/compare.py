"""The rule by which a device result equals the CPU's.

* bool and integer results: exactly equal.
* floating and complex results: ``|device - cpu| <= atol + rtol * |cpu|`` element by element
  (NaN where the CPU has NaN, the same infinities), with (rtol, atol) by dtype below: a few
  units in the last place of the dtype, looser for the 16-bit types, whose kernels may
  accumulate in another order than the CPU's.
* shapes and dtypes: equal.
Random ops are never compared (``mode.py``): their draws come from the device generator's
stream, which the CPU does not replay.
"""

TOLERANCES = {  # dtype name -> (rtol, atol)
    "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7),
    "float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3), "complex32": (1e-2, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}
_OTHER_FLOAT = (0.25, 1e-2)  # float8 kinds: a quarter, their mantissa is 2-3 bits


def tolerance(dtype):
    return TOLERANCES.get(str(dtype).replace("torch.", ""), _OTHER_FLOAT)


def _describe(tensor):
    return "%s%s" % (str(tensor.dtype).replace("torch.", ""), list(tensor.shape))


def difference(torch, got, want):
    """None when ``got`` (the device's result, on the CPU) equals ``want`` by the rule, else
    a dict: what differs, the largest error and where."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return {"what": "shape or dtype", "device": _describe(got), "cpu": _describe(want)}
    if got.numel() == 0:
        return None
    if not (got.is_floating_point() or got.is_complex()):
        wrong = got != want
        if not bool(wrong.any()):
            return None
        g, w = got.to(torch.float64), want.to(torch.float64)
        err = (g - w).abs()
        index = int(err.reshape(-1).argmax())
        return {"what": "values (exact)", "max_abs_error": float(err.max()),
                "mismatched": int(wrong.sum()), "numel": got.numel(),
                "largest_at": _unravel(index, got.shape),
                "device_value": g.reshape(-1)[index].item(), "cpu_value": w.reshape(-1)[index].item()}
    rtol, atol = tolerance(got.dtype)
    wide = torch.complex128 if got.is_complex() else torch.float64
    g, w = got.to(wide), want.to(wide)
    close = torch.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return None
    err = (g - w).abs()
    err = torch.where(close, torch.zeros_like(err), err.nan_to_num(float("inf")))
    index = int(err.reshape(-1).argmax())
    return {"what": "values (rtol %g, atol %g)" % (rtol, atol),
            "max_abs_error": float(err.reshape(-1)[index]),
            "mismatched": int((~close).sum()), "numel": got.numel(),
            "largest_at": _unravel(index, got.shape),
            "device_value": _plain(g.reshape(-1)[index]), "cpu_value": _plain(w.reshape(-1)[index])}


def _plain(value):
    value = value.item()
    return value if not isinstance(value, complex) else str(value)


def _unravel(index, shape):
    out = []
    for size in reversed(tuple(shape)):
        out.append(index % size if size else 0)
        index //= size if size else 1
    return list(reversed(out))
