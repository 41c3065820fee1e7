import torch
from torch._dynamo.device_interface import (DeviceInterface, get_registered_device_interfaces,
                                            register_interface_for_device)

from torch_musa._MUSAC import _musa_getCurrentRawStream as get_musa_stream


class MusaInterface(DeviceInterface):
    """class of MusaInterface"""

    device = torch.musa.device
    Event = torch.musa.Event
    Stream = torch.musa.Stream

    class Worker:
        @staticmethod
        def set_device(device: int):
            torch.musa.set_device(device)

        @staticmethod
        def current_device() -> int:
            return torch.musa.current_device()

        @staticmethod
        def get_device_properties(device=None):
            return torch.musa.get_device_properties(device if device is not None else torch.musa.current_device())

    current_device = staticmethod(torch.musa.current_device)
    set_device = staticmethod(torch.musa.set_device)
    device_count = staticmethod(torch.musa.device_count)
    stream = staticmethod(torch.musa.stream)
    current_stream = staticmethod(torch.musa.current_stream)
    set_stream = staticmethod(torch.musa.set_stream)
    _set_stream_by_id = staticmethod(torch.musa._set_stream_by_id)
    synchronize = staticmethod(torch.musa.synchronize)
    get_raw_stream = staticmethod(get_musa_stream)

    @staticmethod
    def is_available() -> bool:
        return torch.musa.is_available()

    @staticmethod
    def get_compute_capability(device=None):
        major, minor = torch.musa.get_device_capability(device)
        return major * 10 + minor

    @staticmethod
    def is_bf16_supported(including_emulation: bool = False):
        return torch.musa.is_bf16_supported(including_emulation)


register_interface_for_device("musa", MusaInterface)
for i in range(torch.musa.device_count()):
    register_interface_for_device(f"musa:{i}", MusaInterface)
