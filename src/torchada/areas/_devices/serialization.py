"""torch.load of storages tagged ``cuda:N``, whatever the ``map_location``; and a
``map_location`` dict keyed by ``cuda:N`` also matches the ``musa:N`` tags a program saved
under torchada (its tensors were on musa:N), so ``{"cuda:0": "cpu"}`` moves them as on CUDA."""
import functools


def install(ctx):
    """The cuda entry of torch.serialization's package registry (torch_musa's raises) loads
    cuda:N storages onto musa:N, checking the index as CUDA does."""
    import torch.serialization as ser

    torch = ctx.torch
    registry = ser._package_registry

    def _cuda_as_musa_deserialize(obj, location):
        if not location.startswith("cuda"):
            return None
        target = "musa" + location[4:]
        try:
            index = torch.device(target).index
        except Exception:
            index = None
        count = torch.musa.device_count()
        if index is not None and index >= count:
            raise RuntimeError(
                "Attempting to deserialize object on CUDA device %d but torch.cuda."
                "device_count() is %d. Please use torch.load with map_location to map your "
                "storages to an existing device." % (index, count))
        return ser.default_restore_location(obj, target)

    def is_cuda_entry(entry):
        tagger, deserializer = entry[1], entry[2]
        for fn in (tagger, deserializer):
            if isinstance(fn, functools.partial) and fn.args[:1] == ("cuda",):
                return True
        return getattr(deserializer, "__name__", "") == "_cuda_deserialize"

    index = next((i for i, e in enumerate(registry) if is_cuda_entry(e)), None)
    if index is None:
        entry, old = (19, lambda obj: None, _cuda_as_musa_deserialize), None
        registry.insert(0, entry)
    else:
        old = registry[index]
        entry = (old[0], old[1], _cuda_as_musa_deserialize)
        registry[index] = entry

    def undo():
        for i, e in enumerate(registry):
            if e is entry:
                if old is None:
                    del registry[i]
                else:
                    registry[i] = old
                return

    ctx.on_revert(undo)
    _install_map_location_keys(ctx)


def _musa_twins(mapping):
    """``mapping`` plus a ``musa[:N]`` key for each ``cuda[:N]`` key it lacks (same value)."""
    extra = {}
    for key, value in mapping.items():
        if isinstance(key, str) and (key == "cuda" or key.startswith("cuda:")):
            twin = "musa" + key[4:]
            if twin not in mapping:
                extra[twin] = value
    if not extra:
        return mapping
    out = dict(mapping)
    out.update(extra)
    return out


def _install_map_location_keys(ctx):
    """torch.load (and torch.serialization.load, the same function): a dict map_location
    is looked up with the storage's saved tag; a CUDA program names the tags it saved as
    ``cuda:N``, which torchada saved as ``musa:N``."""
    import torch.serialization as ser

    load = ser.load

    @functools.wraps(load)
    def torch_load(f, map_location=None, *args, **kwargs):
        if isinstance(map_location, dict):
            map_location = _musa_twins(map_location)
        return load(f, map_location, *args, **kwargs)

    ctx.setattr(ser, "load", torch_load)
    if ctx.torch.load is load:
        ctx.setattr(ctx.torch, "load", torch_load)
