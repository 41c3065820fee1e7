"""Device memory shared between processes on the simulated device, against torch_musa's
storage-sharing protocol (v2.7.1 csrc/core/StorageSharing.cpp, MusaIPCTypes.cpp, the patched
torch/multiprocessing/reductions.py) and 2.11.0.post2's UUID-keyed ``core/ipc.py``.

What a CUDA program sees end to end (a queue of cuda tensors between spawned processes) is
tests/programs/p26_ipc_workers.py; here: the 8-tuple, reference counts and the limbo, every
refusal, and the 2.11.0.post2 module.
"""
import pytest

from tests._fresh import bare_sim_env, last_json, run_argv, run_python
from tests._releases import importable_or_skip

SAME_PROCESS = r'''
import json, pickle, torch, torch_musa
from multiprocessing.reduction import ForkingPickler
from torch.multiprocessing.reductions import reduce_tensor
from torch_musa._sim import ipc

out = {}
t = torch.arange(12., device="musa").view(3, 4)
base = torch.musa.memory_allocated()
fn, args = reduce_tensor(t[1])
info = t.untyped_storage()._share_musa_()
out["tuple"] = [type(v).__name__ for v in info]
out["handle_len"] = len(info[1])
out["size"], out["offset"] = info[2], info[3]
u = fn(*args)
out["u"] = u.tolist()
u.add_(100)                       # the receiver writes the sender's memory
out["t_row1"] = t[1].tolist()
t[1, 0] = -1.0                    # and the other way round
out["u0"] = u[0].item()
try:
    u.untyped_storage()._share_musa_()
except RuntimeError as e:
    out["resend"] = str(e)
try:
    ForkingPickler.dumps(t.untyped_storage())
except RuntimeError as e:
    out["bare_storage"] = str(e)
del t
out["limbo_after_sender_free"] = ipc.limbo_size()
out["still_counted"] = torch.musa.memory_allocated() - base
del u, fn, args
# `info` was a send nobody opened: its count comes back only by release (as on a card)
out["limbo_before_release"] = ipc.limbo_size()
torch.musa.ipc_collect()
out["limbo_before_release_collected"] = ipc.limbo_size()
torch.UntypedStorage._release_ipc_counter_cuda(info[4], info[5], device=0)
torch.musa.ipc_collect()
out["limbo_after_collect"] = ipc.limbo_size()
out["freed"] = torch.musa.memory_allocated() - base

# the same tensor sent twice: the receiver's cache opens once and returns the second count
s = torch.ones(8, device="musa")
a1, a2 = reduce_tensor(s), reduce_tensor(s)
r1 = a1[0](*a1[1])
r2 = a2[0](*a2[1])
out["cached"] = r1.untyped_storage().data_ptr() == r2.untyped_storage().data_ptr()
del r1, r2, a1, a2
del s
out["limbo_twice"] = ipc.limbo_size()
print(json.dumps(out))
'''


def test_a_storage_is_shared_by_torchs_cuda_protocol():
    out = last_json(run_python(SAME_PROCESS, env=bare_sim_env()))
    # StorageSharing.cpp:123-140: (device, handle, size, offset, ref counter, its offset,
    # event handle, event sync required)
    assert out["tuple"] == ["int", "bytes", "int", "int", "bytes", "int", "bytes", "bool"]
    assert out["handle_len"] == 2 + 64  # version, kind 'c', the 64-byte memory handle
    assert (out["size"], out["offset"]) == (48, 0)
    assert out["u"] == [4.0, 5.0, 6.0, 7.0]
    assert out["t_row1"] == [104.0, 105.0, 106.0, 107.0]
    assert out["u0"] == -1.0
    assert out["resend"].startswith("Attempted to send MUSA tensor received from another process")
    # torch_musa makes UntypedStorage.is_cuda true for musa storages (core/storage.py), so
    # reduce_storage's CUDA branch refuses first
    assert out["bare_storage"] == "Cannot pickle CUDA storage; try pickling a CUDA tensor instead"
    # MusaIPCSentDataDelete: freed while a receiver holds it -> limbo, still allocated
    assert out["limbo_after_sender_free"] == 1
    assert out["still_counted"] == 0  # the sender's block stays allocated while in limbo
    assert out["limbo_before_release"] == 1 and out["limbo_before_release_collected"] == 1
    # then its 48 bytes leave the allocator (one 512-byte unit, the allocator's rounding)
    assert out["limbo_after_collect"] == 0 and out["freed"] == -512
    assert out["cached"] is True
    # the second send's count came back through _release_ipc_counter: nothing waits
    assert out["limbo_twice"] == 0


BAD = r'''
import json, os, subprocess, sys, torch, torch_musa
out = {}
S = torch.UntypedStorage
t = torch.ones(4, device="musa")
info = list(t.untyped_storage()._share_musa_())

def err(f):
    try:
        f()
    except (RuntimeError, TypeError) as e:
        return [type(e).__name__, str(e)]
    return None

out["types"] = err(lambda: S._new_shared_musa(0, "not bytes", *info[2:]))
out["future"] = err(lambda: S._new_shared_musa(0, bytes([9]) + info[1][1:], *info[2:]))
out["kind"] = err(lambda: S._new_shared_musa(0, bytes([1, ord("x")]) + info[1][2:], *info[2:]))
out["foreign"] = err(lambda: S._new_shared_musa(0, b"\x01c" + b"\x07" * 64, *info[2:]))
out["event"] = err(lambda: S._new_shared_musa(0, *info[1:6], b"short", True))
out["cpu"] = err(lambda: torch.ones(2).untyped_storage()._share_musa_())
# a sender that has exited: its memory is gone
code = ("import torch, torch_musa, sys, pickle; t = torch.ones(4, device='musa'); "
        "sys.stdout.buffer.write(pickle.dumps(t.untyped_storage()._share_musa_()))")
import pickle
gone = pickle.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                   check=True).stdout)
out["gone"] = err(lambda: S._new_shared_musa(*gone))
S._release_ipc_counter_musa(gone[4], gone[5])  # best effort: no error
out["released_quietly"] = True
print(json.dumps(out))
'''


def test_bad_handles_are_refused_by_name():
    out = last_json(run_python(BAD, env=bare_sim_env()))
    assert out["types"][0] == "TypeError" and "_new_shared in MUSA mode" in out["types"][1]
    assert out["future"] == ["RuntimeError", "received sharable handle from a future version of "
                             "torch that this version does not know how to handle"]
    assert out["kind"] == ["RuntimeError", "unexpected or illformed shareable handle type"]
    assert "not made by the simulated MUSA device" in out["foreign"][1]
    assert out["event"] == ["RuntimeError", "incorrect handle size"]
    assert out["cpu"] == ["RuntimeError", "_share_musa_: only available on MUSA, but now cpu"]
    assert out["gone"][0] == "RuntimeError"
    assert "no longer held by process" in out["gone"][1]
    assert out["released_quietly"] is True


UUID = r'''
import json, sys, torch, torch_musa
import torch.multiprocessing as mp
from torch_musa.core import ipc

def child(q, back):
    handle = ipc.MUSAIPCTensorHandle.from_dict(json.loads(q.get()))
    with ipc.open_tensor(handle) as owner:
        view = owner.tensor
        back.put([view.tolist(), str(view.device), view.dtype == torch.float16])
        view.mul_(2)
    try:
        owner.tensor
    except RuntimeError as e:
        back.put(str(e))

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q, back = ctx.Queue(), ctx.Queue()
    with torch.musa.device(1):
        t = torch.arange(10, dtype=torch.float16, device="musa").view(2, 5)
    h = ipc.export_tensor(t[:, 1:3])
    d = h.to_dict()
    p = ctx.Process(target=child, args=(q, back))
    p.start()
    q.put(json.dumps(d))
    seen, closed = back.get(timeout=300), back.get(timeout=300)
    p.join(300)
    out = {"seen": seen, "closed": closed, "after": t.tolist(), "exit": p.exitcode,
           "uuid_differs": torch_musa.get_device_properties(0).uuid != d["device_uuid"],
           "dict_keys": sorted(d), "repr_has_fields": "storage_handle=" in repr(h)}
    wrong = ipc.MUSAIPCTensorHandle.from_dict(dict(d, device_uuid="no-such-uuid"))
    try:
        ipc.open_tensor(wrong)
    except RuntimeError as e:
        out["unknown_uuid"] = str(e)
    for bad in (lambda: ipc.export_tensor([1]), lambda: ipc.export_tensor(torch.ones(2))):
        try:
            bad()
        except (TypeError, RuntimeError) as e:
            out.setdefault("export_errors", []).append([type(e).__name__, str(e)])
    print(json.dumps(out))
'''


def test_uuid_keyed_handles_of_2_11_0_post2(tmp_path):
    release = importable_or_skip("2.11.0.post2")
    script = tmp_path / "uuid_ipc.py"
    script.write_text(UUID)
    out = last_json(run_argv([script], env=bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=release)))
    # the receiver sees the exported view (columns 1-2 of each row) on the device whose UUID
    # the handle names (the sender's device 1), and its writes reach the sender
    assert out["seen"] == [[[1.0, 2.0], [6.0, 7.0]], "musa:1", True]
    assert out["closed"] == "MUSA IPC tensor owner is closed"
    assert out["after"] == [[0.0, 2.0, 4.0, 3.0, 4.0], [5.0, 12.0, 14.0, 8.0, 9.0]]
    assert out["exit"] == 0 and out["uuid_differs"] is True
    assert out["dict_keys"] == ["device_uuid", "dtype", "requires_grad", "shared_storage_info",
                                "size", "storage_offset", "stride"]
    assert out["repr_has_fields"] is True
    assert out["unknown_uuid"].startswith("Could not resolve MUSA IPC handle device UUID "
                                          "'no-such-uuid'. visible receiver UUIDs are {0: ")
    assert out["export_errors"] == [["TypeError", "tensor must be a torch.Tensor"],
                                    ["RuntimeError", "MUSA IPC tensor export requires a MUSA tensor"]]


OLDER = r'''
import json, torch, torch_musa
out = {}
try:
    import torch_musa.core.ipc
except ModuleNotFoundError as e:
    out["module"] = str(e)
out["uuid"] = hasattr(torch_musa.get_device_properties(0), "uuid")
print(json.dumps(out))
'''


@pytest.mark.parametrize("release", ["2.7.1", "2.9.1.post1"])
def test_older_releases_have_no_uuid_module(release):
    env = bare_sim_env(TORCHADA_SIM_TORCH_MUSA_VERSION=importable_or_skip(release))
    out = last_json(run_python(OLDER, env=env))
    assert out == {"module": "No module named 'torch_musa.core.ipc'", "uuid": False}
