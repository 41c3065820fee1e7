"""torch.load of storages tagged ``cuda:N``, whatever the ``map_location``."""
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
