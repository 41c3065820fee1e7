"""AMP helpers; at import, torch.is_autocast_enabled / set_autocast_enabled with no device
argument are made to mean the musa autocast state (as the real package does)."""
import torch

__all__ = ["amp_definitely_not_available", "get_amp_supported_dtype"]


def amp_definitely_not_available():
    return not torch.musa.is_available()


_musa_device = torch._C._get_privateuse1_backend_name()
_torch_is_autocast_enabled = torch.is_autocast_enabled
_torch_set_autocast_enabled = torch.set_autocast_enabled


def get_amp_supported_dtype():
    return [torch.float16, torch.bfloat16]


def _is_autocast_enabled(*args, **kwargs):
    if not args and not kwargs:
        return _torch_is_autocast_enabled(_musa_device)
    return _torch_is_autocast_enabled(*args, **kwargs)


def _set_autocast_enabled(*args, **kwargs):
    if len(args) == 1 and not kwargs:
        return _torch_set_autocast_enabled(_musa_device, args[0])
    return _torch_set_autocast_enabled(*args, **kwargs)


def _hook_autocast_common():
    torch.is_autocast_enabled = _is_autocast_enabled
    torch.set_autocast_enabled = _set_autocast_enabled
