"""Tensor and module methods that take a device: Tensor.to / .cuda / .pin_memory /
.is_pinned, Module.to, UntypedStorage.cuda, and Tensor.is_cuda (True for musa tensors)."""
from torchada.areas._devices.wrappers import (method_wrapper, module_to, storage_cuda,
                                              tensor_cuda)


def install(ctx, fast, dmap, types):
    torch = ctx.torch
    Tensor = torch.Tensor
    to = fast(Tensor.to, method_wrapper(Tensor.to, dmap, types, torch._C.TensorBase.to),
              dmap, types, positional=True, translated=torch._C.TensorBase.to)
    # torch_musa's Tensor.to is a Python function named "_to"; Dynamo treats a bound method
    # as the tensor's own method (one graph node) only when the tensor has an attribute of
    # the method's __name__, so the replacement carries the name it is installed under.
    _name_as(to, "to", "Tensor.to")
    ctx.setattr(Tensor, "to", to)
    for name in ("pin_memory", "is_pinned"):
        ctx.setattr(Tensor, name, method_wrapper(getattr(Tensor, name), dmap, types))
    ctx.setattr(torch.nn.Module, "to", module_to(
        torch.nn.Module.to, torch._C._get_privateuse1_backend_name(), torch.device))
    ctx.setattr(Tensor, "cuda", tensor_cuda(
        torch, torch._C.TensorBase.to, dmap, types, _index_device(torch), _current_index(torch)))
    storage_musa = getattr(torch.UntypedStorage, "musa", None)
    if storage_musa is not None:
        ctx.setattr(torch.UntypedStorage, "cuda", storage_cuda(torch, storage_musa, dmap, types))

    get_device = torch._C.TensorBase.get_device

    def is_cuda(self):
        """True for CUDA tensors and, under torchada on MUSA, for MUSA tensors."""
        return get_device(self) >= 0

    ctx.setattr(Tensor, "is_cuda", property(is_cuda))


def _name_as(fn, name, qualname):
    for obj in (fn, getattr(fn, "__torchada_slow__", None)):
        if obj is not None:
            obj.__name__, obj.__qualname__ = name, qualname


def _index_device(torch):
    """musa device objects by index, made once each (``x.cuda(1)``)."""
    T, index_cache = torch.device, {}

    def index_device(i):
        dev = index_cache.get(i)
        if dev is None:
            dev = index_cache[i] = T("musa", i)
        return dev

    return index_device


def _current_index(torch):
    getter = getattr(torch._C, "_accelerator_getDeviceIndex", None)
    return getter if getter is not None else torch.musa.current_device
