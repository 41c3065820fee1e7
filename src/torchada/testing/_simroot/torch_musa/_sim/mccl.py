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
)


def _cpu(x):
    if isinstance(x, torch.Tensor):
        return torch.ops.musa_sim.cpu_view(x) if x.device.type == "musa" else x
    if isinstance(x, (list, tuple)):
        return type(x)(_cpu(v) for v in x)
    return x


def _forward(name):
    def method(self, *args, **kwargs):
        return getattr(self._gloo, name)(*[_cpu(a) for a in args], **{k: _cpu(v) for k, v in kwargs.items()})

    method.__name__ = name
    return method


class _SimProcessGroupMCCL(dist.ProcessGroup):
    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._gloo = dist.ProcessGroupGloo(dist.PrefixStore("mccl_sim/", store), rank, size, timeout)

    def getBackendName(self):
        return "mccl"

    @property
    def options(self):
        return self._gloo.options


for _name in _METHODS:
    setattr(_SimProcessGroupMCCL, _name, _forward(_name))


def _create(store, rank, world_size, timeout):
    return _SimProcessGroupMCCL(store, rank, world_size, timeout)


def register():
    if not dist.is_available() or "mccl" in dist.Backend.backend_list:
        return
    # Stock torch needs a list here; the real code passes the string "musa".
    dist.Backend.register_backend("mccl", _create, extended_api=False, devices=["musa"])
    dist.ProcessGroupMCCL = _SimProcessGroupMCCL
