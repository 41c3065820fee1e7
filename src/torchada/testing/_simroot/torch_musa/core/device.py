"""Device management (torch.musa.set_device, device_count, ...)."""
import functools
from typing import Any, List, Optional, Tuple, Union

import torch

import torch_musa
from torch_musa import _MUSAC
from torch_musa.core._lazy_init import _lazy_init
from torch_musa.core._utils import _get_musa_device_index

_device_t = Union[torch.device, str, int, None]
# torch_musa/core/device.py:18 (the 2.7.1 API record: a c-binding, torch.musa.
# _MusaDeviceProperties is torch_musa._MUSAC._MusaDeviceProperties)
_MusaDeviceProperties = _MUSAC._MusaDeviceProperties


# torch_musa/core/device.py (manifest lineno of DeviceOf: 44): the classes keep their own
# names; torch.musa binds them as ``device`` and ``device_of``.
class Device:
    """Context-manager that changes the selected device."""

    def __init__(self, device: Any):
        self.idx = _get_musa_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _MUSAC._musa_exchangeDevice(self.idx)

    def __exit__(self, *args):
        self.idx = _MUSAC._musa_maybeExchangeDevice(self.prev_idx)
        return False


class DeviceOf(Device):
    """Context-manager that changes the current device to that of given object."""

    def __init__(self, obj):
        idx = obj.get_device() if obj.is_musa else -1
        super().__init__(idx)


_exchange_device = _MUSAC._musa_exchangeDevice
_maybe_exchange_device = _MUSAC._musa_maybeExchangeDevice


class _DeviceGuard:
    def __init__(self, index: int):
        self.idx = index
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _MUSAC._musa_exchangeDevice(self.idx)

    def __exit__(self, type: Any, value: Any, traceback: Any):
        self.idx = _MUSAC._musa_maybeExchangeDevice(self.prev_idx)
        return False


def set_device(device: _device_t) -> None:
    """Sets the current device (MUSA_VISIBLE_DEVICES is the preferred way to pick one)."""
    device = _get_musa_device_index(device)
    if device >= 0:
        _MUSAC._musa_setDevice(device)


def current_device() -> int:
    """Returns the index of a currently selected device."""
    _lazy_init()
    return _MUSAC._musa_getDevice()


def is_available() -> bool:
    """Returns a bool indicating if MUSA is currently available."""
    return device_count() > 0


@functools.lru_cache(maxsize=1)
def device_count() -> int:
    """Returns the number of MUSA devices available (cached on first call: a real quirk)."""
    return _MUSAC._musa_getDeviceCount()


def synchronize(device: _device_t = None) -> None:
    """Waits for all kernels in all streams on a MUSA device to complete."""
    _lazy_init()
    with Device(device):
        return _MUSAC._musa_synchronize()


def get_device_name(device: Optional[_device_t] = None) -> str:
    return get_device_properties(device).name


def get_device_capability(device: Optional[_device_t] = None) -> Tuple[int, int]:
    prop = get_device_properties(device)
    return prop.major, prop.minor


def get_device_properties(device: _device_t):
    """Gets the properties of a device (no default argument: a real quirk)."""
    _lazy_init()
    device = _get_musa_device_index(device, optional=True)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    return torch_musa._get_device_properties(device)


def can_device_access_peer(device: _device_t, peer_device: _device_t) -> bool:
    _lazy_init()
    device = _get_musa_device_index(device, optional=True)
    peer_device = _get_musa_device_index(peer_device)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= device_count():
        raise AssertionError("Invalid peer device id")
    return _MUSAC._musa_canDeviceAccessPeer(device, peer_device)


def register_musa_hook():
    _MUSAC._musa_register_device_hook()


def get_arch_list() -> List[str]:
    # torch_musa/core/device.py:167 (manifest): [] when unavailable, else the compiled arch
    # flags split on whitespace (bare numbers such as "31": _MUSAC._musa_getArchFlags).
    # Which flags a release is built for: unknown (we give one).
    if not is_available():
        return []
    return _MUSAC._musa_getArchFlags().split()


def is_bf16_supported(including_emulation: bool = True):
    # guess: the real check reads the arch; mp_21 (S80/S3000) lacks bf16.
    return get_device_capability(current_device()) >= (2, 2) or including_emulation


def is_tf32_supported() -> bool:
    return get_device_capability(current_device()) >= (2, 2)
