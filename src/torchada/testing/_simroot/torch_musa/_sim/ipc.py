"""``_MUSAC._share_musa_`` / ``_new_shared_musa`` / ``_release_ipc_counter_musa``: musa
storages shared between processes, the tuple protocol of torch_musa v2.7.1
``csrc/core/StorageSharing.cpp`` (THMPStorageShareMusa, lines 63-142; THMPStorageNewSharedMusa,
144-271; THMPStorageReleaseIPCCounter, 25-61), over the simulator's memory
(``_backend/musa_sim_ipc.cpp``).

The 8-tuple is torch's CUDA one: (device, storage handle, size in bytes, offset in bytes,
ref-counter handle, ref-counter offset, event handle, event sync required).

* Storage handle: ``MUSACachingAllocator::shareIpcHandle`` (MUSACachingAllocator.cpp:1283)
  writes a version byte (1), the kind (``'c'``, a musaMalloc segment) and the 64-byte
  musaIpcMemHandle. Here the 64 bytes name the exporting process's memfd (pid, descriptor,
  mapped size, token); the size of MUSA's handle is unknown (runtime header) and taken to be
  CUDA's 64. Expandable segments (``'e'``) are not simulated.
* Ref-counter handle: torch's is the name of a shared-memory file of counters; here the count
  lives in the memfd itself, and the handle is an ASCII name of the same memfd (offset 0).
* Event: real sends an interprocess event recorded on the sender's stream and the receiver's
  stream waits for it; simulated work has finished when the call returns, so the 64 bytes
  are a placeholder the receiver checks for size only (``event_sync_required`` is True, as
  for the first 1,000 live exports on a card).
"""
import os
import re
import struct

import torch

_ops = torch.ops.musa_sim
HANDLE_SIZE = 64  # CUDA_IPC_HANDLE_SIZE; MUSA_IPC_HANDLE_SIZE: unknown (runtime header)
_VERSION = 1  # SHAREABLE_HANDLE_VERSION (MUSACachingAllocator.cpp:59)
_MALLOC, _EXPANDABLE = ord("c"), ord("e")
_MAGIC = b"TASIMIPC"
_FIELDS = struct.Struct("<qqqq")  # pid, fd, map_bytes, token
_EVENT = b"TASIMEVT".ljust(HANDLE_SIZE, b"\0")
_REF_NAME = re.compile(rb"^/torchada_sim_ipc_(\d+)_(\d+)_(\d+)_(-?\d+)$")


def _holder(storage):
    """A tensor over `storage` (the backend reaches the StorageImpl through it)."""
    return torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)


def _share_musa_(storage):
    if storage.device.type != "musa":
        raise RuntimeError("_share_musa_: only available on MUSA, but now %s" % storage.device)
    device = storage.device.index
    size = storage.nbytes()
    info = list(_ops.ipc_export(_holder(storage)))
    if not info:  # no data: nothing to map (the real tuple carries None there)
        return (device, None, size, 0, None, 0, None, None)
    pid, fd, map_bytes, token, offset = info
    payload = (_MAGIC + _FIELDS.pack(pid, fd, map_bytes, token)).ljust(HANDLE_SIZE, b"\0")
    handle = bytes([_VERSION, _MALLOC]) + payload
    ref_counter = b"/torchada_sim_ipc_%d_%d_%d_%d" % (pid, fd, map_bytes, token)
    return (device, handle, size, offset, ref_counter, 0, _EVENT, True)


def _memfd_of(handle):
    """(pid, fd, map_bytes, token) named by a storage handle; RuntimeError when it is not one
    this simulated device made."""
    payload = handle
    if len(handle) != HANDLE_SIZE:
        if handle[0] > _VERSION:
            raise RuntimeError("received sharable handle from a future version of torch that "
                               "this version does not know how to handle")
        if handle[1] == _EXPANDABLE:
            raise RuntimeError("sharing memory of expandable segments between processes is not "
                               "simulated by torchada.testing")
        if handle[1] != _MALLOC:
            raise RuntimeError("unexpected or illformed shareable handle type")
        payload = handle[2:2 + HANDLE_SIZE]
    if len(payload) != HANDLE_SIZE or not payload.startswith(_MAGIC):
        raise RuntimeError("this MUSA IPC handle was not made by the simulated MUSA device "
                           "(torchada.testing); a real card's handle cannot be opened here")
    return _FIELDS.unpack_from(payload, len(_MAGIC))


def _new_shared_musa(device, handle, size_bytes, offset_bytes, ref_counter,
                     ref_counter_offset, event_handle, event_sync_required):
    ints = (device, size_bytes, offset_bytes, ref_counter_offset)
    if not (all(isinstance(v, int) for v in ints) and isinstance(handle, bytes)
            and isinstance(ref_counter, bytes) and isinstance(event_handle, bytes)
            and isinstance(event_sync_required, bool)):
        raise TypeError(
            "_new_shared in MUSA mode received an invalid combination of arguments - expected "
            "(int device, bytes handle, int storage_size_bytes, int storage_offset_bytes, "
            "bytes _ref_counter, int _ref_counter_offset, bytes event_handle, "
            "bool event_sync_required)")
    if event_sync_required and len(event_handle) != HANDLE_SIZE:
        raise RuntimeError("incorrect handle size")
    pid, fd, map_bytes, token = _memfd_of(handle)
    opened = _ops.ipc_open(device, pid, fd, map_bytes, token, offset_bytes, size_bytes)
    return opened.untyped_storage()


def _release_ipc_counter_musa(ref_counter, ref_counter_offset):
    if not (isinstance(ref_counter, bytes) and isinstance(ref_counter_offset, int)):
        raise TypeError("_release_ipc_counter in MUSA mode received an invalid combination of "
                        "arguments - expected (bytes _ref_counter, int _ref_counter_offset)")
    named = _REF_NAME.match(ref_counter)
    if named:  # best effort, as on a card: a gone exporter or a foreign name is no error
        _ops.ipc_release(*(int(v) for v in named.groups()))


def limbo_size():
    """Exported memory freed by this process that a receiver still holds (for tests)."""
    return int(_ops.ipc_limbo_size())
