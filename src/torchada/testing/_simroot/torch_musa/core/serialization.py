"""torch.save/torch.load support for musa tensors.  Like the real package, this also replaces
torch's CUDA deserializer with one that raises for 'cuda*' locations."""
from typing import Any

import torch

_REGISTRATION_KEY = 999


def _validate_musa_device(location: str) -> None:
    """Validate the musa device location."""
    device = torch.musa._utils._get_device_index(location, True) if hasattr(torch.musa, "_utils") else \
        torch._utils._get_device_index(location, True)
    if not torch.musa.is_available():
        raise RuntimeError("Attempting to deserialize object on a MUSA device but torch.musa.is_available() is "
                           "False. If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    device_count = torch.musa.device_count()
    if device >= device_count:
        raise RuntimeError(f"Attempting to deserialize object on MUSA device {device} but "
                           f"torch.musa.device_count() is {device_count}. Please use torch.load with "
                           "map_location to map your storages to an existing device.")
    return device


def _musa_tag(obj: Any) -> Any:
    if obj.device.type == "musa":
        return "musa:" + str(obj.device.index)
    return None


def _musa_deserialize(obj: Any, location: str) -> Any:
    if location.startswith("musa"):
        device = _validate_musa_device(location)
        if getattr(obj, "_torch_load_uninitialized", False):
            with torch.musa.device(device):
                return torch.UntypedStorage(obj.nbytes(), device=torch.device("musa", device))
        return obj.musa(device)
    return None


def _cuda_deserialize(_: Any, location: str) -> Any:
    if location.startswith("cuda"):
        raise RuntimeError("Attempting to deserialize object on a CUDA device, which is not supported in "
                           "torch_musa. Please use torch.load with map_location to map your storages to an "
                           "existing device.")
    return None


def register_deserialization() -> None:
    torch.serialization.register_package(_REGISTRATION_KEY, _musa_tag, _musa_deserialize)
    # Like the real code: entry 1 of the registry (CUDA's) gets a deserializer that raises.
    registry = torch.serialization._package_registry
    entry = registry[1]
    registry[1] = (entry[0], entry[1], _cuda_deserialize)
