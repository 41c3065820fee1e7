"""The Python wrappers that translate a CUDA device argument (built inside apply; nothing
runs at import). Each does one dict get and one class test when no cuda name is passed."""
import functools


def _raise_cuda_words(exc):
    from torchada.areas._devices.names import as_cuda_error

    clone = as_cuda_error(exc)
    if clone is None:
        raise exc
    raise clone from None


def kw_wrapper(orig, dmap, types):
    """``device=`` keyword only: one dict get + one class test when no cuda name is passed."""
    if types == (str,):
        _str = str

        def wrapper(*args, **kwargs):
            d = kwargs.get("device")
            if d.__class__ is _str:
                m = dmap[d]
                if m is not d:
                    kwargs["device"] = m
                    try:
                        return orig(*args, **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
            return orig(*args, **kwargs)

        return _picklable(functools.update_wrapper(wrapper, orig))

    def wrapper(*args, **kwargs):
        d = kwargs.get("device")
        if d.__class__ in types:
            m = dmap[d]
            if m is not d:
                kwargs["device"] = m
                try:
                    return orig(*args, **kwargs)
                except Exception as exc:
                    _raise_cuda_words(exc)
        return orig(*args, **kwargs)

    return _picklable(functools.update_wrapper(wrapper, orig))


def _picklable(wrapper):
    """torch.zeros & co. pickle by name; their qualname (_VariableFunctionsClass.zeros) is
    not reachable from ``torch``, so the wrapper takes the plain name (torch.zeros)."""
    if wrapper.__qualname__.startswith("_VariableFunctionsClass."):
        wrapper.__qualname__ = wrapper.__name__
    return wrapper


def method_wrapper(orig, dmap, types, translated=None):
    """``self`` then the device positionally or as ``device=`` (to, pin_memory, is_pinned).

    ``translated`` (default ``orig``) is called when a cuda name was swapped for a musa
    device: for ``Tensor.to`` that is the C method itself, skipping torch_musa's Python
    wrapper, which only rewrites integer ordinals.
    """
    fast = orig if translated is None else translated

    def wrapper(self, *args, **kwargs):
        if args:
            d = args[0]
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    try:
                        return fast(self, m, *args[1:], **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
        elif kwargs:
            d = kwargs.get("device")
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    kwargs["device"] = m
                    try:
                        return fast(self, *args, **kwargs)
                    except Exception as exc:
                        _raise_cuda_words(exc)
        return orig(self, *args, **kwargs)

    return functools.update_wrapper(wrapper, orig)


def module_to(orig, musa_type, device_cls):
    """``Module.to``: its device argument, positional or ``device=``, with CUDA names.

    Written with only what Dynamo traces without a source (``musa_name``'s string tests,
    ``torch.device``), not the device map: a module built inside a compiled function has its
    ``to`` inlined with no source for the closure, and the map (a dict subclass) would break
    the graph where torch's own ``Module.to`` does not. Not a hot path (a model moves once).
    """
    from torchada.areas._devices.names import musa_name

    def translate(d):
        if d.__class__ is str:
            name = musa_name(d)
            return d if name is None else name
        if d.__class__ is device_cls and d.type == "cuda":
            return device_cls(musa_type, d.index)
        return d

    def to(self, *args, **kwargs):
        if args:
            args = (translate(args[0]),) + args[1:]
        elif "device" in kwargs:
            kwargs["device"] = translate(kwargs["device"])
        try:
            return orig(self, *args, **kwargs)
        except Exception as exc:
            _raise_cuda_words(exc)

    return functools.update_wrapper(to, orig)


def tensor_cuda(torch, to, dmap, types, index_device, current_index):
    preserve = torch.preserve_format

    def cuda(self, device=None, non_blocking=False, memory_format=preserve):
        if device is None:
            device = index_device(current_index())
        elif device.__class__ is int:
            device = index_device(device)
        else:
            if device.__class__ in types:
                device = dmap[device]
            device = torch.device(device)
            if device.type != "musa":
                raise RuntimeError("Invalid device, must be cuda device")
        try:
            return to(self, device, non_blocking=non_blocking, memory_format=memory_format)
        except Exception as exc:
            _raise_cuda_words(exc)

    functools.update_wrapper(cuda, torch._C.TensorBase.cuda)
    return cuda


def storage_cuda(torch, orig_musa, dmap, types):
    def cuda(self, device=None, non_blocking=False, **kwargs):
        if device is not None and device.__class__ is not int:
            if device.__class__ in types:
                device = dmap[device]
            device = torch.device(device)
            if device.type != "musa":
                raise RuntimeError("Invalid device, must be cuda device")
            device = device.index
        return orig_musa(self, device, non_blocking, **kwargs)

    cuda.__doc__ = "Returns a copy of this storage in CUDA (on MUSA: MUSA) memory."
    return cuda
