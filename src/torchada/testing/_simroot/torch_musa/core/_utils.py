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
