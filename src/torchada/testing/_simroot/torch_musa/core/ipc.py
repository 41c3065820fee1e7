"""``torch_musa.core.ipc`` of 2.11.0.post2 (torch_musa e205050 torch_musa/core/ipc.py): a
tensor exported as a handle keyed by the device's UUID, opened in another process on
whichever local device has that UUID. Written from that file's behaviour:

* ``export_tensor(t)``: TypeError for a non-tensor, RuntimeError for a non-musa tensor; the
  handle holds the storage's 8-tuple (``UntypedStorage._share_musa_``), dtype, size, stride,
  storage offset, requires_grad and the device UUID.
* ``MUSAIPCTensorHandle.to_dict`` / ``from_dict``: JSON-able; the tuple's bytes fields
  (1, 4, 6) base64-encoded, dtype as ``str(dtype)``.
* ``open_tensor(handle)``: resolves the UUID among the visible devices (RuntimeError naming
  the UUID and the visible ones), opens the storage on that local index through
  ``UntypedStorage._new_shared_musa`` and returns an owner (``MUSAIPCTensor``) whose
  ``tensor`` raises once ``close()``d.

Older profiles have no such module (it is absent at 5e25af7).
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, Dict, Optional, Tuple

import torch

from torch_musa._sim import releases as _releases

if not _releases.has("ipc_uuid"):
    raise ModuleNotFoundError("No module named 'torch_musa.core.ipc'", name="torch_musa.core.ipc")

import torch_musa  # noqa: E402

__all__ = ["MUSAIPCTensorHandle", "MUSAIPCTensor", "export_tensor", "open_tensor"]

_BACKEND = torch._C._get_privateuse1_backend_name()
_BYTES_AT = (1, 4, 6)  # storage handle, ref-counter handle, event handle
_STORAGE_FIELDS = ("device_index", "storage_handle", "storage_size", "storage_offset",
                   "ref_counter_handle", "ref_counter_offset", "event_handle",
                   "event_sync_required")


def _show(value):
    if isinstance(value, bytes):
        return repr("len=%d, hex=%s" % (len(value), value.hex()))
    return repr(value)


@dataclass(frozen=True, repr=False)
class MUSAIPCTensorHandle:
    """What a receiver needs to open an exported musa tensor."""

    shared_storage_info: Tuple[Any, ...]
    dtype: torch.dtype
    size: Tuple[int, ...]
    stride: Tuple[int, ...]
    storage_offset: int
    requires_grad: bool
    device_uuid: str

    def to_dict(self) -> Dict[str, Any]:
        info = [base64.b64encode(v).decode("ascii") if i in _BYTES_AT else v
                for i, v in enumerate(self.shared_storage_info)]
        return {"shared_storage_info": info, "dtype": str(self.dtype), "size": list(self.size),
                "stride": list(self.stride), "storage_offset": self.storage_offset,
                "requires_grad": self.requires_grad, "device_uuid": self.device_uuid}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "MUSAIPCTensorHandle":
        info = tuple(base64.b64decode(v) if i in _BYTES_AT else v
                     for i, v in enumerate(data["shared_storage_info"]))
        return cls(shared_storage_info=info,
                   dtype=getattr(torch, data["dtype"].split(".", 1)[1]),
                   size=tuple(data["size"]), stride=tuple(data["stride"]),
                   storage_offset=data["storage_offset"],
                   requires_grad=data["requires_grad"], device_uuid=data["device_uuid"])

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "shared_storage_info" and len(value) == len(_STORAGE_FIELDS):
                shown = "(%s)" % ", ".join("%s=%s" % (n, _show(v))
                                           for n, v in zip(_STORAGE_FIELDS, value))
            else:
                shown = repr(value)
            parts.append("%s=%s" % (f.name, shown))
        return "%s(%s)" % (type(self).__qualname__, ", ".join(parts))

    __str__ = __repr__


class MUSAIPCTensor:
    """The receiver's owner of an opened tensor."""

    def __init__(self, tensor: torch.Tensor):
        self._tensor: Optional[torch.Tensor] = tensor

    @property
    def tensor(self) -> torch.Tensor:
        if self._tensor is None:
            raise RuntimeError("MUSA IPC tensor owner is closed")
        return self._tensor

    @property
    def closed(self) -> bool:
        return self._tensor is None

    def close(self) -> None:
        self._tensor = None

    def __del__(self) -> None:
        self._tensor = None

    def __enter__(self) -> "MUSAIPCTensor":
        if self.closed:
            raise RuntimeError("MUSA IPC tensor owner is closed")
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def _get_device_uuid(device=None) -> str:
    return str(torch_musa.get_device_properties(device).uuid)


@lru_cache(maxsize=1)
def _visible_device_uuids() -> Dict[int, str]:
    if not torch_musa.is_available():
        raise RuntimeError("Cannot open MUSA IPC handle: MUSA is not available")
    return {i: _get_device_uuid(i) for i in range(torch_musa.device_count())}


@lru_cache(maxsize=None)
def _resolve_device(device_uuid: str) -> int:
    visible = _visible_device_uuids()
    for index, uuid in visible.items():
        if uuid == device_uuid:
            return index
    raise RuntimeError("Could not resolve MUSA IPC handle device UUID %r. visible receiver "
                       "UUIDs are %s" % (device_uuid, visible))


def export_tensor(tensor: torch.Tensor) -> MUSAIPCTensorHandle:
    """A handle for a musa tensor (its view: size, stride, offset)."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError("tensor must be a torch.Tensor")
    if tensor.device.type != _BACKEND:
        raise RuntimeError("MUSA IPC tensor export requires a MUSA tensor")
    return MUSAIPCTensorHandle(
        shared_storage_info=tensor.untyped_storage()._share_musa_(), dtype=tensor.dtype,
        size=tuple(tensor.size()), stride=tuple(tensor.stride()),
        storage_offset=tensor.storage_offset(), requires_grad=tensor.requires_grad,
        device_uuid=_get_device_uuid(tensor.device))


def open_tensor(handle: MUSAIPCTensorHandle) -> MUSAIPCTensor:
    """Open a handle in this process; the tensor lives as long as the returned owner."""
    info = handle.shared_storage_info
    if len(info) != len(_STORAGE_FIELDS):
        raise ValueError("MUSA shared storage metadata must contain 8 items")
    local = _resolve_device(handle.device_uuid)  # the sender's index may not be ours
    storage = torch.UntypedStorage._new_shared_musa(local, *info[1:])
    tensor = torch.empty(0, device=storage.device, dtype=handle.dtype).set_(
        storage, handle.storage_offset, handle.size, handle.stride)
    return MUSAIPCTensor(tensor.requires_grad_(handle.requires_grad))
