"""The tensor factories and ``Tensor.new_*``: their ``device=`` keyword takes CUDA names."""
from torchada.areas._devices.wrappers import kw_wrapper

FACTORIES = (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray", "empty_strided",
    "empty_permuted", "scalar_tensor", "tril_indices", "triu_indices", "normal", "from_file",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
    "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
    "sparse_bsc_tensor", "sparse_compressed_tensor",
    "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    "randint_like",
)


def factory_wrappers(torch):
    """The factories on ``torch`` this area replaced (C prefilters or Python wrappers):
    what compile-time areas must make Dynamo and AOT autograd accept."""
    import types

    found = []
    for name in FACTORIES:
        fn = getattr(torch, name, None)
        if fn is not None and not isinstance(fn, types.BuiltinFunctionType) \
                and getattr(fn, "__wrapped__", None) is not None:
            found.append(fn)
    return found




def install(ctx, fast, dmap, types):
    """torch.<factory> and Tensor.new_* wrapped (through the route's ``fast``); returns
    {factory name: installed wrapper}."""
    torch = ctx.torch
    wrapped = {}
    for name in FACTORIES:
        orig = getattr(torch, name, None)
        if orig is not None:
            wrapped[name] = fast(orig, kw_wrapper(orig, dmap, types), dmap, types)
            ctx.setattr(torch, name, wrapped[name])
    for name in TENSOR_NEW:
        orig = getattr(torch.Tensor, name, None)
        if orig is not None:
            ctx.setattr(torch.Tensor, name, fast(orig, kw_wrapper(orig, dmap, types), dmap, types))
    return wrapped


TENSOR_NEW = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided")


def register_default_device_constructors(ctx, wrapped):
    """The default-device mode (``torch.set_default_device``, ``with torch.device(...)``)
    recognises factories by identity in a cached set: it must hold the originals (what its
    __torch_function__ sees) whether it was built before or after the wrappers."""
    import torch.utils._device as device_mode

    constructors = device_mode._device_constructors()
    if not isinstance(constructors, set):
        return
    added = [fn.__wrapped__ for name, fn in wrapped.items()
             if name in _DEFAULT_DEVICE_FACTORIES and fn.__wrapped__ not in constructors]
    constructors.update(added)
    ctx.on_revert(lambda: constructors.difference_update(added))


_DEFAULT_DEVICE_FACTORIES = frozenset((
    "empty", "empty_permuted", "empty_strided", "ones", "arange", "bartlett_window",
    "blackman_window", "eye", "full", "hamming_window", "hann_window", "kaiser_window",
    "linspace", "logspace", "rand", "randn", "randint", "randperm", "range",
    "sparse_coo_tensor", "sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
    "sparse_bsr_tensor", "sparse_bsc_tensor", "tril_indices", "triu_indices", "zeros",
    "asarray", "tensor", "as_tensor", "scalar_tensor", "from_file", "normal",
))
