"""Tensor attributes added by torch_musa (is_musa, musa(), pin_memory/is_pinned/to defaults)."""
from typing import Optional, Union

import torch
from torch import Tensor
from torch.types import _device

from torch_musa import _MUSAC


def _musa(self, *args, **kwargs):
    """Returns a copy of this object in MUSA memory"""
    return _MUSAC._musa(self, *args, **kwargs)


def _pin_memory(self, device: Optional[Union[_device, str, None]] = "musa"):
    """Copies the tensor to pinned memory, if it's not already pinned."""
    return self.orig_pin_memory()


def _is_pinned(self, device: Optional[Union[_device, str, None]] = "musa"):
    return self.orig_is_pinned()


def _to(self, *args, **kwargs) -> Tensor:
    if args and isinstance(args[0], int) and not isinstance(args[0], bool):
        args = (torch.device(f"musa:{args[0]}"),) + args[1:]
    elif "device" in kwargs and isinstance(kwargs["device"], int) and not isinstance(kwargs["device"], bool):
        kwargs["device"] = torch.device(f"musa:{kwargs['device']}")
    return self.orig_to(*args, **kwargs)


def _is_musa(self):
    return _MUSAC._is_musa(self)


def set_torch_attributes():
    torch.Tensor.is_musa = property(_is_musa)
    torch.Tensor.musa = _musa
    torch.Tensor.orig_pin_memory = torch.Tensor.pin_memory
    torch.Tensor.orig_is_pinned = torch.Tensor.is_pinned
    torch.Tensor.orig_to = torch.Tensor.to
    torch.Tensor.pin_memory = _pin_memory
    torch.Tensor.is_pinned = _is_pinned
    torch.Tensor.to = _to
