"""The device map every wrapper reads: a CUDA spelling (a string, and a cuda torch.device
where the constructor slot could not be patched) -> its musa device object, built once."""

CACHE_LIMIT = 4096


class DeviceMap(dict):
    """Maps what users pass as a device to what to pass on: hits are one C dict lookup.

    A miss calls ``build(key)``, which returns the replacement or the key itself; only keys of
    the given types are remembered, and only up to CACHE_LIMIT of them.
    """

    __slots__ = ("build", "types")

    def __init__(self, build, types=(str,)):
        super().__init__()
        self.build = build
        self.types = tuple(types)

    def __missing__(self, key):
        value = self.build(key)
        if key.__class__ in self.types and len(self) < CACHE_LIMIT:
            self[key] = value
        return value


def device_map(torch, problem):
    """(DeviceMap, the argument classes it maps). ``problem``: why the constructor slots
    cannot be patched (``type_slots.layout_problems``), or None; then cuda torch.device
    objects are mapped too."""
    from torchada.areas._devices.names import musa_name

    T = torch.device
    types = (str,) if problem is None else (str, T)

    def build(key):
        if key.__class__ is str:
            name = musa_name(key)
            if name is None:
                return key
            try:
                return T(name)
            except Exception:
                return key  # torch reports the user's own string
        if key.__class__ is T and key.type == "cuda":
            return T("musa", key.index)
        return key

    return DeviceMap(build, types), types
