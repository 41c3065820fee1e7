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


class _SimProcessGroupMCCL(dist.ProcessGroup):
    Options = _MCCLOptions

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._gloo = dist.ProcessGroupGloo(dist.PrefixStore("mccl_sim/", store), rank, size, timeout)

    def getBackendName(self):
        return "mccl"

    # torch wraps the real C++ Backend in a ProcessGroup registered for the musa device, so
    # pg._get_backend(torch.device("musa")) answers (init_process_group(device_id=...) asks
    # it). This Python group answers with the gloo backend it forwards to; registering gloo
    # in the C++ group instead made process exit abort now and then (a joinable thread).
    def _get_backend(self, device):
        return self._gloo

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
    dist.ProcessGroupMCCL = _SimProcessGroupMCCL
