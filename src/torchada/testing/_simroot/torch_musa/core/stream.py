"""Streams and events.  Simulated kernels run synchronously on the host, so a stream is an
ordering token and an event records the host time at which it was recorded."""
import ctypes
from typing import Any, Optional

import torch

import torch_musa
from torch_musa import _MUSAC
from torch_musa.core._lazy_init import _lazy_init
from torch_musa.core._utils import _dummy_type, _get_musa_device_index
from torch_musa.core.device import Device, current_device
# manifest (torch_musa/core/stream.py): also binds ``from ...device import Device as device``
from torch_musa.core.device import Device as device  # noqa: F401

_device_t = Any


class Stream(_MUSAC._MusaStreamBase):
    """Wrapper around a MUSA stream."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if device is None or ("stream_id" in kwargs and "device_index" in kwargs):
            return super().__new__(cls, priority=priority, **kwargs)
        with Device(device):
            idx = current_device()
            return super().__new__(cls, priority=priority, device_index=idx, **kwargs)

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records an event."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def query(self):
        return super().query()

    def synchronize(self):
        super().synchronize()

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.musa_stream)

    def __eq__(self, o):
        if isinstance(o, Stream):
            return super().__eq__(o)
        return False

    def __hash__(self):
        return hash((self.musa_stream, self.device))

    def __repr__(self):
        return f"<torch_musa.Stream device={self.device} musa_stream={self.musa_stream:#x}>"


class ExternalStream(Stream):
    def __new__(cls, stream_ptr, device=None, **kwargs):
        with Device(device):
            return super().__new__(cls, stream_ptr=stream_ptr, device_index=current_device(), **kwargs)


class Event(_MUSAC._MusaEventBase):
    """Wrapper around a MUSA event."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        return super().__new__(cls, enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)

    @classmethod
    def from_ipc_handle(cls, device, handle):
        """Reconstruct an event from an IPC handle on the given device."""
        return super().from_ipc_handle(device, handle)

    def record(self, stream=None):
        """Records the event in a given stream."""
        if stream is None:
            stream = current_stream()
        super().record(stream)

    def wait(self, stream=None):
        """Makes all future work submitted to the given stream wait for this event."""
        if stream is None:
            stream = current_stream()
        super().wait(stream)

    def query(self):
        """Checks if all work currently captured by event has completed."""
        return super().query()

    def elapsed_time(self, end_event):
        """Returns the time elapsed in milliseconds after the event was recorded."""
        return super().elapsed_time(end_event)

    def synchronize(self):
        """Waits for the event to complete."""
        super().synchronize()

    def ipc_handle(self):
        """Returns an IPC handle of this event."""
        return super().ipc_handle()

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.musa_event)

    def __repr__(self):
        return f"<torch_musa.Event {self._as_parameter_.value:#x}>" if self._t else "<torch_musa.Event uninitialized>"


def _set_stream_by_id(stream_id, device_index, device_type):
    _MUSAC._musa_setStream(stream_id=stream_id, device_index=device_index, device_type=device_type)


def set_stream(stream: Stream):
    if stream is None:
        return
    _set_stream_by_id(stream.stream_id, stream.device_index, stream.device_type)


def current_stream(device: Optional[_device_t] = None) -> Stream:
    _lazy_init()
    idx = _get_musa_device_index(device, optional=True)
    sid, dev, dtype = _MUSAC._musa_getCurrentStream(idx)
    return Stream(stream_id=sid, device_index=dev, device_type=dtype)


def default_stream(device: Optional[_device_t] = None) -> Stream:
    _lazy_init()
    idx = _get_musa_device_index(device, optional=True)
    sid, dev, dtype = _MUSAC._musa_getDefaultStream(idx)
    return Stream(stream_id=sid, device_index=dev, device_type=dtype)


class StreamContext:
    """Context-manager that selects a given stream."""

    cur_stream: Optional["torch_musa.Stream"]

    def __init__(self, stream: Optional["torch_musa.Stream"]):
        self.stream = stream
        self.idx = _get_musa_device_index(None, True)
        if self.idx is None:
            self.idx = -1
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        cur_stream = self.stream
        if cur_stream is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device != cur_stream.device:
            with Device(cur_stream.device):
                self.dst_prev_stream = current_stream(cur_stream.device)
        set_stream(cur_stream)

    def __exit__(self, type: Any, value: Any, traceback: Any):
        cur_stream = self.stream
        if cur_stream is None or self.idx == -1:
            return
        if self.src_prev_stream.device != cur_stream.device:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)


def stream(stream: Optional["torch_musa.Stream"]) -> StreamContext:
    return StreamContext(stream)


# torch_musa 2.9.1.post1 (torch_musa/__init__.py at 5e25af7: `from .core.stream import
# (..., get_stream_from_external, ...)`). core/stream.py is not stored at that commit, so its
# body is unknown: modelled as torch.cuda's (a Stream over an external handle).
from torch_musa._sim import releases as _releases  # noqa: E402

if _releases.has("get_stream_from_external"):
    def get_stream_from_external(data_ptr: int, device=None) -> Stream:
        """A Stream wrapping a stream made outside torch (its handle ``data_ptr``)."""
        return ExternalStream(data_ptr, device=device)

    # the package binds it by name, as the real __init__.py's import does
    import sys as _sys  # noqa: E402

    _sys.modules["torch_musa"].get_stream_from_external = get_stream_from_external
