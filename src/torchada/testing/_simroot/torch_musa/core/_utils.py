from typing import Any, Optional, Union

import torch

DeviceUnion = Union[torch.device, str, int, None]


def _get_musa_device_index(device: Any, optional: bool = False, allow_cpu: bool = False) -> int:
    """Gets the device index from :attr:`device`, which can be a torch.device, a string or an int."""
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if allow_cpu:
            if device.type not in ["musa", "cpu"]:
                raise ValueError(f"Expected a musa or cpu device, but got: {device}")
        elif device.type != "musa":
            raise ValueError(f"Expected a musa device, but got: {device}")
    if not torch.jit.is_scripting():
        if isinstance(device, torch.musa.device):
            return device.idx
    return torch._utils._get_device_index(device, optional, allow_cpu)


def _dummy_type(name: str) -> type:
    """Define dummy class named 'name'.The class can't instantiate."""

    def get_err_fn(is_init: bool):
        def err_fn(obj, *args, **kwargs):
            class_name = obj.__class__.__name__ if is_init else obj.__name__
            raise RuntimeError(f"Tried to instantiate dummy base class {class_name}")

        return err_fn

    return type(name, (object,), {"__init__": get_err_fn(True), "__new__": get_err_fn(False)})


def _get_musa_arch() -> int:
    """torch_musa/core/_utils.py:61-96 (v2.7.1): ``TORCH_MUSA_ARCH`` if set (21, 22, 31), else
    the first device's major * 10 + minor (22 when its properties cannot be read)."""
    import os

    import torch_musa

    user_defined = os.getenv("TORCH_MUSA_ARCH", None)
    if user_defined is None:
        try:
            properties = torch_musa.get_device_properties(0)
            return int(properties.major * 10 + properties.minor)
        except Exception as err:  # noqa: BLE001 - the real one prints and falls back
            print("get_devie_properties failed, reason:")
            print(err)
            return 22
    arch = int(user_defined)
    print(f"Using pre-defined musa arch: {arch}")
    assert arch in [21, 22, 31]
    return arch
