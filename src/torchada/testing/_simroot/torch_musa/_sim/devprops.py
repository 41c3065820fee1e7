"""Device properties of the simulated inventory (see torchada.testing._simconfig)."""
from torchada.testing._simconfig import config
from torch_musa._sim import releases


class _MusaDeviceProperties:
    """Read-only fields as in the real pybind class over musaDeviceProp."""

    __slots__ = ("_f",)

    def __init__(self, **fields):
        object.__setattr__(self, "_f", fields)

    def __getattr__(self, name):
        try:
            return object.__getattribute__(self, "_f")[name]
        except KeyError:
            raise AttributeError(f"'_MusaDeviceProperties' object has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"readonly attribute '{name}'")

    def __repr__(self):
        f = self._f
        # The real repr has an unbalanced quote after major=; reproduced.
        return (f"_MusaDeviceProperties(name='{f['name']}', major='{f['major']}, minor={f['minor']}, "
                f"total_memory={f['total_memory'] // (1024 * 1024)}MB, "
                f"multi_processor_count={f['multi_processor_count']})")


def _device_uuid(device: int) -> str:
    """The same for a device in every process of the machine, different across devices.
    Which type and format MUSA's ``uuid`` field has: unknown (a UUID string here)."""
    import uuid

    c = config()
    return str(uuid.uuid5(uuid.NAMESPACE_OID, "torchada-sim/%s/%d" % (c.name, device)))


def _get_device_properties(device: int) -> _MusaDeviceProperties:
    c = config()
    if not 0 <= device < c.device_count:
        raise RuntimeError("MUSA error: invalid device ordinal")
    # torch_musa 2.7.1's properties have no uuid (recorded API: missing_vs_torch_cuda);
    # 2.11.0.post2's core/ipc.py (e205050) reads get_device_properties(device).uuid, so it
    # has one there (from which release between them: unknown).
    extra = {"uuid": _device_uuid(device)} if releases.has("ipc_uuid") else {}
    return _MusaDeviceProperties(
        name=c.name, major=c.capability[0], minor=c.capability[1], is_multi_gpu_board=False,
        is_integrated=False, multi_processor_count=c.multi_processor_count,
        total_memory=c.total_memory, **extra)
