"""Raw caching-allocator calls and the memory-fraction getter of torch_musa 2.9.1.post1 and
later: torch_musa/core/memory.py (caching_allocator_alloc / _delete / _enable,
get_per_process_memory_fraction) at 5e25af7 (2.9.1.post1) and e205050 (2.11.0.post2), the
same code in both. Absent at v2.7.1. core/memory.py re-exports these on those releases."""
from typing import Union

from torch.types import Device

import torch_musa
from torch_musa import _MUSAC
from torch_musa.core._lazy_init import _lazy_init, is_initialized
from torch_musa.core._utils import _get_musa_device_index

__all__ = ["caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_enable",
           "get_per_process_memory_fraction"]


def caching_allocator_alloc(size, device: Union[Device, int] = None, stream=None):
    if device is None:
        device = torch_musa.current_device()
    device = _get_musa_device_index(device)
    if stream is None:
        stream = torch_musa.current_stream(device)
    if isinstance(stream, torch_musa.Stream):
        stream = stream.musa_stream
    if not isinstance(stream, int):
        raise TypeError(
            "Invalid type for stream argument, must be `torch_musa.Stream` or `int` "
            "representing a pointer to a existing stream")
    with torch_musa.device(device):
        return _MUSAC._musa_musaCachingAllocator_raw_alloc(size, stream)


def caching_allocator_delete(mem_ptr):
    _MUSAC._musa_musaCachingAllocator_raw_delete(mem_ptr)


def caching_allocator_enable(value: bool = True) -> None:
    if is_initialized():
        _MUSAC._musa_musaCachingAllocator_enable(value)


def get_per_process_memory_fraction(device: Union[Device, int] = None) -> float:
    _lazy_init()
    if device is None:
        device = torch_musa.current_device()
    device = _get_musa_device_index(device)
    return _MUSAC._musa_getMemoryFraction(device)
