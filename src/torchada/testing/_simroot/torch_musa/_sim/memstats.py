"""Memory statistics of the simulated devices, in the caching allocator's dict format."""
import torch

from torchada.testing._simconfig import config

_ops = torch.ops.musa_sim
_observers = []
_fractions = {}  # device -> the fraction last set; 1.0 until set (the allocator's default)


# Order of the flat export of caching_model.h (DeviceCache::export_stats).
_STATS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
          "active_bytes", "inactive_split_bytes", "requested_bytes")
_POOLS = ("all", "small_pool", "large_pool")
_FIELDS = ("current", "peak", "allocated", "freed")
_COUNTERS = ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free")


def _parse(flat):
    """The flat dict of c10::CachingDeviceAllocator::DeviceStats, keyed as
    torch/csrc/cuda/Module.cpp (memoryStats) keys it: '<stat>.<pool>' -> {current, peak,
    allocated, freed}, plus the counters.  The export ends with the limit and the total."""
    stats = {}
    i = 0
    for name in _STATS:
        for pool in _POOLS:
            stats[f"{name}.{pool}"] = dict(zip(_FIELDS, flat[i:i + 4]))
            i += 4
    for name in _COUNTERS:
        stats[name] = flat[i]
        i += 1
    stats["num_sync_all_streams"] = 0
    stats["max_split_size"] = -1
    stats["oversize_allocations"] = dict(zip(_FIELDS, (0, 0, 0, 0)))
    stats["oversize_segments"] = dict(zip(_FIELDS, (0, 0, 0, 0)))
    return stats


def memory_stats(device):
    return _parse(_ops.stats(int(device)))


def empty_cache():
    _ops.empty_cache()


def reset_accumulated(device):
    _ops.reset_accumulated(int(device))


def reset_peak(device):
    _ops.reset_peak(int(device))


_STATES = ("inactive", "active_allocated", "active_pending_free")


def _segments(device):
    flat = _ops.segments(int(device))
    out, i = [], 0
    while i < len(flat):
        addr, total, stream, small, n = flat[i:i + 5]
        i += 5
        blocks = []
        for _ in range(n):
            baddr, size, requested, state = flat[i:i + 4]
            i += 4
            blocks.append({"address": baddr, "size": size, "requested_size": requested,
                           "state": _STATES[state], "frames": []})
        allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        active = sum(b["size"] for b in blocks if b["state"] != "inactive")
        out.append({"device": int(device), "address": addr, "total_size": total, "stream": stream,
                    "segment_type": "small" if small else "large", "segment_pool_id": (0, 0),
                    "allocated_size": allocated, "active_size": active,
                    "requested_size": sum(b["requested_size"] for b in blocks),
                    "is_expandable": False, "frames": [], "blocks": blocks})
    return out


def snapshot():
    """Layout of torch.cuda.memory._snapshot() (segments, device_traces, allocator_settings).
    History recording is not simulated, so device_traces stay empty."""
    n = config().device_count
    segs = [s for d in range(n) for s in _segments(d)]
    return {"segments": segs, "device_traces": [[] for _ in range(n)],
            "allocator_settings": {"PYTORCH_MUSA_ALLOC_CONF": ""}}


def set_fraction(fraction, device):
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    total = config().total_memory
    _ops.set_memory(int(device), total, int(total * fraction))
    _fractions[int(device)] = float(fraction)


def fraction(device):
    return _fractions.get(int(device), 1.0)


def mem_get_info(device):
    # musaMemGetInfo reports the driver's view: what the process has reserved is used.
    flat = _ops.stats(int(device))
    total = flat[-1]
    return (max(0, total - _parse(flat)["reserved_bytes.all"]["current"]), total)


def attach_oom_observer(callback):
    _observers.append(callback)
