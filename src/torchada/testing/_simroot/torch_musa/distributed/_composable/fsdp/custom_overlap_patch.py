"""torch_musa's FSDP2 overlap settings, simulated from
torch_musa/distributed/_composable/fsdp/custom_overlap_patch.py (v2.7.1, 0bc05bf).

What the simulator keeps, because programs can observe it: the overlap level read from
``TORCH_MUSA_FSDP2_OVERLAP_LEVEL`` (:202-236), and the communication context set up on MUSA
streams for every FSDP2 mesh, whatever its device type (:239-305: ``lazy_init`` takes no
device, raises without MUSA, and uses ``torch.musa`` streams), so ``fully_shard`` on a CPU
mesh meets MUSA streams in its root pre-forward as on a real machine. Not simulated: ce_comm
(an optional package the simulator lacks: :46-149 fall back to PyTorch's collectives without
it, as here); ``_pre_forward`` (:349-370) is PyTorch's plus ``_maybe_set_mccl_collectives``,
a no-op without ce_comm, so PyTorch's own runs under torch_musa's name.
"""
import os
import warnings
from enum import Enum

import torch


class FSDP2OverlapLevel(Enum):
    # custom_overlap_patch.py:177-199
    NO_OVERLAP = 0
    OVERLAP_FSDP_COMM_ONLY = 1
    OVERLAP_FSDP_COMM_COPY_IN_WITH_COPY_OUT = 2
    OVERLAP_FSDP_COMM_COPY_IN_WITH_COMM = 3
    OVERLAP_HSDP_COMM = 4
    END = 5


def _get_fsdp2_overlap_level():
    # custom_overlap_patch.py:202-233 (no ce_comm: NO_OVERLAP unless asked)
    if "TORCH_MUSA_FSDP2_OVERLAP_LEVEL" in os.environ:
        level = int(os.environ["TORCH_MUSA_FSDP2_OVERLAP_LEVEL"])
        assert level < FSDP2OverlapLevel.END.value
        if level == 1:
            warnings.warn("users should set prefetch order manually if "
                          "using FSDP2OverlapLevel.OVERLAP_FSDP_COMM_ONLY")
        return FSDP2OverlapLevel(min(level, 4))
    if os.environ.get("TORCH_MUSA_FSDP2_DISABLE_OVERLAP", "1") == "0":
        warnings.warn("TORCH_MUSA_FSDP2_DISABLE_OVERLAP env will be deprecated in the future, "
                      "use TORCH_MUSA_FSDP2_OVERLAP_LEVEL instead")
        return FSDP2OverlapLevel.OVERLAP_HSDP_COMM
    return FSDP2OverlapLevel.NO_OVERLAP


_FSDP2_OVERLAP_LEVEL = _get_fsdp2_overlap_level()
_PYTORCH = {}  # PyTorch's methods as the patch found them (the simulator builds on them)


def comm_context_lazy_init(self):
    """FSDPCommContext.lazy_init as torch_musa replaces it (:239-305): no device argument,
    MUSA streams for every mesh."""
    if not torch.musa.is_available():
        raise RuntimeError("FSDP requires MUSA for streams")
    # The attributes this torch's FSDP2 expects (torch 2.9+ added some that torch_musa 2.7.1,
    # built for torch 2.7, never sets) come from PyTorch's own lazy_init on the musa device;
    # torch_musa's sets no device_handle, so whatever was there before is put back.
    had = "device_handle" in vars(self)
    handle = vars(self).get("device_handle")
    _PYTORCH["lazy_init"](self, torch.device("musa", torch.musa.current_device()))
    if had:
        self.device_handle = handle
    else:
        del self.device_handle
    current = torch.musa.current_stream()
    level, high = _FSDP2_OVERLAP_LEVEL, -1
    if level == FSDP2OverlapLevel.NO_OVERLAP:
        self.all_gather_copy_in_stream = self.all_gather_stream = current
        self.reduce_scatter_stream = self.all_reduce_stream = current
    elif level == FSDP2OverlapLevel.OVERLAP_FSDP_COMM_ONLY:
        self.all_gather_copy_in_stream = current
        self.all_gather_stream = self.reduce_scatter_stream = torch.musa.Stream(priority=high)
        self.all_reduce_stream = current
    elif level == FSDP2OverlapLevel.OVERLAP_FSDP_COMM_COPY_IN_WITH_COPY_OUT:
        self.all_gather_copy_in_stream = torch.musa.Stream(priority=high)
        self.all_gather_stream = self.reduce_scatter_stream = self.all_gather_copy_in_stream
        self.all_reduce_stream = current
    elif level == FSDP2OverlapLevel.OVERLAP_FSDP_COMM_COPY_IN_WITH_COMM:
        self.all_gather_copy_in_stream = torch.musa.Stream(priority=high)
        self.all_gather_stream = self.reduce_scatter_stream = torch.musa.Stream(priority=high)
        self.all_reduce_stream = current
    else:
        self.all_gather_copy_in_stream = torch.musa.Stream(priority=high)
        self.all_gather_stream = torch.musa.Stream(priority=high)
        self.reduce_scatter_stream = torch.musa.Stream(priority=high)
        self.all_reduce_stream = torch.musa.Stream()
    self._num_layer_collective_sets = 0


def _fsdp_state_init_shared_state(self):
    """FSDPState._init_shared_state as torch_musa replaces it (:333-346): the context's
    lazy_init called without the device, then the states share it. The sharing is this
    torch's own body (2.9+ shares per param group), run with lazy_init already done."""
    ctx = self._comm_ctx
    ctx.lazy_init()
    ctx.lazy_init = lambda *args, **kwargs: None  # shadows the class's for the next call
    try:
        _PYTORCH["_init_shared_state"](self)
    finally:
        del ctx.lazy_init


def _pre_forward(self, *args, **kwargs):
    # :349-370, PyTorch's body plus a ce_comm-only step (see the module docstring)
    return _PYTORCH["_pre_forward"](self, *args, **kwargs)


def _apply_custom_overlap_patch():
    # custom_overlap_patch.py:373-376
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPCommContext
    from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState

    _PYTORCH.setdefault("lazy_init", FSDPCommContext.lazy_init)
    _PYTORCH.setdefault("_init_shared_state", FSDPState._init_shared_state)
    _PYTORCH.setdefault("_pre_forward", FSDPState._pre_forward)
    FSDPState._init_shared_state = _fsdp_state_init_shared_state
    FSDPState._pre_forward = _pre_forward
    FSDPCommContext.lazy_init = comm_context_lazy_init
