"""Memory statistics of the simulated devices, in the caching allocator's dict format."""
import torch

from torchada.testing._simconfig import config

_ops = torch.ops.musa_sim
_observers = []


def _stat(current, peak, allocated=0, freed=0):
    return {"current": current, "peak": peak, "allocated": allocated, "freed": freed}


def memory_stats(device):
    alloc, peak, reserved, peak_res, n_alloc, n_free, limit, total, ooms = _ops.stats(int(device))
    stats = {}
    for pool in ("all", "large_pool", "small_pool"):
        z = pool != "all"
        stats[f"allocated_bytes.{pool}"] = _stat(0 if z else alloc, 0 if z else peak)
        stats[f"reserved_bytes.{pool}"] = _stat(0 if z else reserved, 0 if z else peak_res)
        stats[f"active_bytes.{pool}"] = _stat(0 if z else alloc, 0 if z else peak)
        stats[f"requested_bytes.{pool}"] = _stat(0 if z else alloc, 0 if z else peak)
        stats[f"allocation.{pool}"] = _stat(0 if z else n_alloc - n_free, 0, 0 if z else n_alloc, 0 if z else n_free)
        stats[f"segment.{pool}"] = _stat(0, 0)
        stats[f"active.{pool}"] = _stat(0 if z else n_alloc - n_free, 0)
        stats[f"inactive_split.{pool}"] = _stat(0, 0)
        stats[f"inactive_split_bytes.{pool}"] = _stat(0, 0)
    stats["num_alloc_retries"] = 0
    stats["num_ooms"] = ooms
    stats["num_sync_all_streams"] = 0
    stats["num_device_alloc"] = n_alloc
    stats["num_device_free"] = n_free
    stats["max_split_size"] = -1
    stats["oversize_allocations"] = _stat(0, 0)
    stats["oversize_segments"] = _stat(0, 0)
    return stats


def empty_cache():
    _ops.empty_cache()


def reset_accumulated(device):
    _ops.reset_accumulated(int(device))


def reset_peak(device):
    _ops.reset_peak(int(device))


def snapshot():
    return {"segments": [], "device_traces": [[] for _ in range(config().device_count)],
            "allocator_settings": {"PYTORCH_MUSA_ALLOC_CONF": ""}}


def set_fraction(fraction, device):
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    total = config().total_memory
    _ops.set_memory(int(device), total, int(total * fraction))


def mem_get_info(device):
    alloc, peak, reserved, peak_res, n_alloc, n_free, limit, total, ooms = _ops.stats(int(device))
    return (max(0, limit - reserved), total)


def attach_oom_observer(callback):
    _observers.append(callback)
