"""The "mccl" distributed backend, simulated over gloo.

Musa tensors are handed to gloo as CPU tensors over the same bytes (musa_sim::cpu_view),
so collectives work in place, as they would on device memory.
"""
import torch
import torch.distributed as dist

_METHODS = (
    "allreduce", "allreduce_coalesced", "broadcast", "allgather", "_allgather_base",
    "allgather_coalesced", "allgather_into_tensor_coalesced", "reduce_scatter",
    "_reduce_scatter_base", "reduce_scatter_tensor_coalesced", "reduce", "gather", "scatter",
    "alltoall_base", "alltoall", "barrier", "send", "recv", "recv_anysource", "monitored_barrier",
    # torch >= 2.13 names of the single-tensor collectives
    "all_gather_single", "all_gather_single_coalesced", "reduce_scatter_single",
    "reduce_scatter_single_coalesced", "all_to_all_single",
)
# When gloo lacks a newer name, the older binding with the same arguments does the work.
_OLDER = {"all_gather_single": "_allgather_base", "reduce_scatter_single": "_reduce_scatter_base",
          "all_to_all_single": "alltoall_base",
          "all_gather_single_coalesced": "allgather_into_tensor_coalesced",
          "reduce_scatter_single_coalesced": "reduce_scatter_tensor_coalesced"}
# Coalesced forms gloo lacks run as one single-tensor call per pair (same results).
_PAIRWISE = {"all_gather_single_coalesced": ("all_gather_single", "_allgather_base"),
             "allgather_into_tensor_coalesced": ("all_gather_single", "_allgather_base"),
             "reduce_scatter_single_coalesced": ("reduce_scatter_single", "_reduce_scatter_base"),
             "reduce_scatter_tensor_coalesced": ("reduce_scatter_single", "_reduce_scatter_base")}


def _gloo_name(name):
    """The ProcessGroupGloo binding that serves ``name`` on this torch, or None."""
    gloo = getattr(dist, "ProcessGroupGloo", None)
    for candidate in (name, _OLDER.get(name)):
        if candidate and gloo is not None and hasattr(gloo, candidate):
            return candidate
    return None


def _cpu(x):
    if isinstance(x, torch.Tensor):
        return torch.ops.musa_sim.cpu_view(x) if x.device.type == "musa" else x
    if isinstance(x, (list, tuple)):
        return type(x)(_cpu(v) for v in x)
    return x


# Single-tensor gathers are byte-wise on a device library (MCCL, as NCCL: any shapes whose
# sizes match); gloo splits the output along its first dimension instead, so SyncBatchNorm's
# (1, world * n) output (torch/nn/modules/_functions.py) is refused.  Flat views of both
# tensors (the same bytes) give gloo the layout it splits correctly.
_FLAT = ("all_gather_single", "_allgather_base")


def _flat_pair(output, input):
    if isinstance(output, torch.Tensor) and output.is_contiguous() and input.is_contiguous():
        return output.view(-1), input.view(-1)
    return output, input


def _forward(name):
    # Which gloo binding serves the name is decided once, here, not on every call.
    direct = _gloo_name(name)
    single = None if direct else next((n for n in _PAIRWISE.get(name, ()) if _gloo_name(n)), None)
    if single:
        single = _gloo_name(single)

    def method(self, *args, **kwargs):
        if not (direct or single):
            raise RuntimeError(f"mccl (simulated over gloo): no gloo operation for {name}")
        self._mccl._communicator(_musa_device(args))
        args = [_cpu(a) for a in args]
        kwargs = {k: _cpu(v) for k, v in kwargs.items()}
        if name in _FLAT:
            args[:2] = _flat_pair(*args[:2])
        if direct:
            return getattr(self._gloo, direct)(*args, **kwargs)
        run, work = getattr(self._gloo, single), None
        outputs, inputs, *rest = args
        for out, inp in zip(outputs, inputs):
            if work is not None:
                work.wait()
            work = run(out, inp, *rest, **kwargs)
        return work

    method.__name__ = name
    return method


_BackendOptions = getattr(getattr(torch._C._distributed_c10d, "Backend", None), "Options", None)


class _MCCLOptions(_BackendOptions or object):
    """ProcessGroupMCCL.Options(is_high_priority_stream=False), base Backend.Options, fields
    is_high_priority_stream, split_from, split_color, global_ranks_in_group, group_name
    (torch_musa/csrc/distributed/Register.cpp per the 2.7.1 manifest). The simulator's
    group (gloo underneath) reads none of them."""

    def __init__(self, is_high_priority_stream=False):
        if _BackendOptions is not None:
            super().__init__("mccl")
        self.is_high_priority_stream = is_high_priority_stream
        self.split_from = None
        self.split_color = 0
        self.global_ranks_in_group = []
        self.group_name = ""


def _musa_device(args):
    """The device of a collective's first musa tensor (None: none, e.g. barrier)."""
    for a in args:
        if isinstance(a, (list, tuple)):
            found = _musa_device(a)
            if found is not None:
                return found
        elif isinstance(a, torch.Tensor) and a.device.type == "musa":
            return a.device
    return None


class ProcessGroupMCCL:
    """The MCCL c10d Backend (torch.distributed.ProcessGroupMCCL): gloo does the work; what
    is modelled is when a communicator exists. Other attributes are gloo's."""

    Options = _MCCLOptions

    def __init__(self, store, rank, size, timeout):
        self._gloo = dist.ProcessGroupGloo(dist.PrefixStore("mccl_sim/", store), rank, size, timeout)
        self._comms = []  # devMCCLCommMap_'s device keys, creation order

    def __getattr__(self, name):
        return getattr(self.__dict__["_gloo"], name)

    # ProcessGroupMCCL.h:555-557 (v2.7.1): false, so stock torch skips the eager connect.
    @property
    def supports_splitting(self):
        return False

    def _communicator(self, device):
        """A collective's communicator: created on first use for its device
        (ProcessGroupMCCL.cpp:2614-2618, v2.7.1). Without a tensor (barrier) the device is
        guessed: a used one, else global rank % device count (ProcessGroupMCCL.cpp:3932-3952;
        the bound device, its 2nd choice, is not modelled: the simulated group has none)."""
        if device is None and not self._comms:
            count = torch.musa.device_count()
            if not count:
                return  # no device to guess (the real call fails later, in MCCL)
            device = torch.device("musa", dist.get_rank() % count)
        if device is None:
            device = self._comms[0]
        if device not in self._comms:
            self._comms.append(device)

    def eager_connect_single_device(self, device):
        # ProcessGroupMCCL.cpp:821-826 (v2.7.1): initMCCLComm unconditionally, so a second
        # call makes a second communicator (emplace keeps the first, cpp:2215); counted.
        self._comms.append(torch.device(device))

    def _is_initialized(self):
        # Register.cpp `_is_initialized` -> isInitialized, ProcessGroupMCCL.cpp:851-863
        # (v2.7.1): false while devMCCLCommMap_ is empty (blocking comms: ready once made).
        return bool(self._comms)

    def _sim_communicators(self):
        """Test hook, not torch_musa API: communicators made, in order (duplicates kept)."""
        return list(self._comms)


class _SimProcessGroupMCCL(dist.ProcessGroup):
    Options = _MCCLOptions

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._mccl = ProcessGroupMCCL(store, rank, size, timeout)
        self._gloo = self._mccl._gloo

    def getBackendName(self):
        return "mccl"

    # torch wraps the real C++ Backend in a ProcessGroup registered for the musa device, so
    # pg._get_backend(torch.device("musa")) answers (init_process_group(device_id=...) asks
    # it). This Python group answers with the MCCL backend object above (gloo underneath);
    # registering gloo in the C++ group instead made process exit abort now and then (a
    # joinable thread).
    def _get_backend(self, device):
        return self._mccl

    # The real ProcessGroupMCCL is a c10d Backend (torch_musa/csrc/distributed/Register.cpp) that
    # torch wraps in a ProcessGroup, which keeps the group name in its backends.  This Python
    # ProcessGroup has no C++ backends, so it keeps the name itself (DeviceMesh reads it).
    def _set_group_name(self, name):
        self._sim_group_name = name

    @property
    def group_name(self):
        return getattr(self, "_sim_group_name", "")

    def _set_group_desc(self, desc):
        self._sim_group_desc = desc

    @property
    def group_desc(self):
        return getattr(self, "_sim_group_desc", "")

    @property
    def options(self):
        return self._gloo.options


for _name in _METHODS:
    if not hasattr(dist.ProcessGroup, _name):
        continue  # this torch does not call it
    setattr(_SimProcessGroupMCCL, _name, _forward(_name))


def _create(store, rank, world_size, timeout):
    return _SimProcessGroupMCCL(store, rank, world_size, timeout)


_libs = []


def _functional_collectives_autograd():
    """Functional collectives (DTensor, DeviceMesh) reach the backend through the autograd key.
    Stock torch 2.7 registers it for CPU/CUDA only; torch_musa's distributed patches make
    DTensor work on musa (side effect 20 of the manifest; how exactly: unknown), so the
    simulator lets the musa autograd key fall through to the PrivateUse1 kernels, as
    torch >= 2.9 does by itself."""
    names = [n for n in torch._C._dispatch_get_all_op_names() if n.startswith("_c10d_functional::")]
    missing = [n for n in names if not torch._C._dispatch_has_kernel_for_dispatch_key(n, "AutogradPrivateUse1")]
    if not missing:
        return
    lib = torch.library.Library("_c10d_functional", "IMPL")
    _libs.append(lib)
    for name in missing:
        lib.impl(name.split("::", 1)[1], torch.library.fallthrough_kernel, "AutogradPrivateUse1")


def register():
    if not dist.is_available() or "mccl" in dist.Backend.backend_list:
        return
    _functional_collectives_autograd()
    # Stock torch needs a list here; the real code passes the string "musa".
    dist.Backend.register_backend("mccl", _create, extended_api=False, devices=["musa"])
    dist.ProcessGroupMCCL = ProcessGroupMCCL
    _patched_eager_connect()


def _patched_eager_connect():
    """Moore Threads' torch connects a group's backend at creation whenever a device_id is
    known, not only when it supports splitting: v2.7.1
    torch_patches/torch_distributed_distributed_c10d.py.patch, hunk @@ -2069,7 +2076,7 @@
    (_new_process_group_helper, `if device_id:`). Modelled after the helper returns (the
    same call torch would make); later releases' patch set: unknown, 2.7.1's is assumed."""
    import functools
    import inspect
    import torch.distributed.distributed_c10d as c10d

    helper = c10d._new_process_group_helper
    signature = inspect.signature(helper)

    @functools.wraps(helper)
    def _new_process_group_helper(*args, **kwargs):
        result = helper(*args, **kwargs)
        device_id = signature.bind(*args, **kwargs).arguments.get("device_id")
        pg = result[0] if isinstance(result, tuple) else result
        if device_id and isinstance(pg, _SimProcessGroupMCCL):
            pg._get_backend(device_id).eager_connect_single_device(device_id)
        return result

    c10d._new_process_group_helper = _new_process_group_helper
