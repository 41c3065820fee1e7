import functools

import torch

from torch_musa.core.amp.common import _musa_device

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


class autocast(torch.amp.autocast_mode.autocast):
    """See :class:`torch.autocast`."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True):
        super().__init__(_musa_device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def _cast(value, dtype):
    if isinstance(value, torch.Tensor):
        is_eligible = value.is_floating_point() and value.device.type == _musa_device and value.dtype is not torch.float64
        return value.to(dtype) if is_eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, dtype): _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, cast_inputs=None):
    return torch.amp.custom_fwd(fwd, device_type=_musa_device, cast_inputs=cast_inputs) if fwd is not None \
        else functools.partial(custom_fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    return torch.amp.custom_bwd(bwd, device_type=_musa_device)
