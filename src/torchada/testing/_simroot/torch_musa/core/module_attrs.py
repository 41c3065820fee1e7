from typing import Optional, TypeVar, Union

import torch
from torch.types import _device

T = TypeVar("T", bound="torch.nn.Module")


def _musa(self: T, device: Optional[Union[int, _device]] = None) -> T:
    """Moves all model parameters and buffers to the GPU."""
    return self._apply(lambda t: t.musa(device))


def set_module_attributes():
    torch.nn.Module.musa = _musa
    # The real code sets torch.distributed.is_mccl_available from the *patched* torch; on
    # stock torch that attribute does not exist (guess: simulated as always True).
    if torch.distributed.is_available():
        torch.distributed.is_mccl_available = lambda: True
