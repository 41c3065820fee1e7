"""The device map every wrapper reads: a CUDA spelling (a string, and a cuda torch.device
where the constructor slot could not be patched) -> its musa device object, built once."""


def device_map(torch):
    """(DeviceMap, the argument classes it maps, the type-layout problem or None)."""
    from torchada.areas import _typeslots
    from torchada.areas._devmap import DeviceMap, musa_name

    T = torch.device
    problem = _typeslots.layout_problem(T) or _typeslots.layout_problem(torch.Generator)
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

    return DeviceMap(build, types), types, problem
