"""Raw caching-allocator entry points (torch_musa._MUSAC._musa_musaCachingAllocator_raw_*).

A raw allocation is a block of the same caching allocator tensors use (memory_stats count
it), kept alive here until raw_delete, as the real allocator keeps the block until
raw_delete (torch_musa/core/memory.py:caching_allocator_alloc at 5e25af7 / e205050)."""
import threading

import torch

_lock = threading.Lock()
_blocks = {}  # data_ptr -> the uint8 tensor owning the block


def raw_alloc(size, stream):
    # through torch.musa, not torch_musa.core.stream: that module imports _MUSAC, which binds
    # this one (a raw call comes long after both are imported)
    musa = torch.musa
    device = musa.current_device()
    if musa.current_stream(device).musa_stream == stream:
        block = torch.empty(int(size), dtype=torch.uint8, device=torch.device("musa", device))
    else:
        with musa.stream(musa.ExternalStream(stream, device=device)):
            block = torch.empty(int(size), dtype=torch.uint8, device=torch.device("musa", device))
    ptr = block.data_ptr()
    with _lock:
        _blocks[ptr] = block
    return ptr


def raw_delete(ptr):
    with _lock:
        block = _blocks.pop(int(ptr), None)
    if block is None:
        # c10's raw_delete: "invalid device pointer" (CUDACachingAllocator.cpp free path)
        raise RuntimeError(f"invalid device pointer: {hex(int(ptr))}")
    del block


def allocator_enable(value):
    """Not simulated beyond accepting the call: the simulator's allocator always caches."""
    return None


def get_fraction(device):
    from torch_musa._sim import memstats

    return memstats.fraction(device)
