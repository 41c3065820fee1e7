"""torch.device and torch.Generator keep their C types: only the constructor slot changes
(``torchada.areas._typeslots``). ``torch.device("cuda")`` looks its arguments up in a dict of
ready-made musa devices. Where the interpreter's type layout cannot be verified, nothing is
patched and every wrapper also maps cuda device objects (the fallback mode)."""
import logging

logger = logging.getLogger("torchada")


def install(ctx, dmap, types, problem):
    """Patch the two constructors (or not, when ``problem`` says the layout is unknown);
    returns the mode for status: "tp_new" or "fallback: <reason>"."""
    from torchada.areas import _typeslots

    torch = ctx.torch
    if problem is not None:
        logger.info("torchada: torch.device keeps type 'cuda' for cuda names (%s); device "
                    "arguments are still mapped where they are used", problem)
        return "fallback: %s" % problem
    device_patch = _typeslots.TpNewPatch(torch.device)
    cache = {}
    device_patch.install(_device_new(torch, device_patch, dmap, cache))
    ctx.on_revert(device_patch.restore)
    ctx.on_revert(cache.clear)
    gen_patch = _typeslots.TpNewPatch(torch.Generator)
    gen_patch.install(_generator_new(torch, gen_patch, dmap, types))
    ctx.on_revert(gen_patch.restore)
    return "tp_new"


def _device_new(torch, patch, dmap_str, cache):
    from torchada.areas._devmap import CACHE_LIMIT, musa_name

    T = torch.device
    call = patch.call_original

    def slow(cls, args, kwargs):
        new_args, new_kwargs = args, kwargs
        if args and args[0].__class__ is str:
            name = musa_name(args[0])
            if name is not None:
                new_args = (name,) + args[1:]
        if kwargs and kwargs.get("type").__class__ is str:
            name = musa_name(kwargs["type"])
            if name is not None:
                new_kwargs = dict(kwargs, type=name)
        if new_args is args and new_kwargs is kwargs:
            return call(cls, args, kwargs)
        try:
            return call(cls, new_args, new_kwargs)
        except Exception:
            return call(cls, args, kwargs)  # the error a CUDA user gets, in cuda words

    def __new__(cls, *args, **kwargs):
        if kwargs:
            if args or cls is not T:
                return slow(cls, args, kwargs)
            key = ("\0kw", kwargs.get("type"), kwargs.get("index"), len(kwargs))
        elif len(args) == 1:
            key = args[0]
        else:
            key = args
        try:
            hit = cache.get(key)
        except TypeError:  # unhashable: let torch report it
            return slow(cls, args, kwargs)
        if hit is not None and cls is T:
            return hit
        result = slow(cls, args, kwargs)
        if cls is T and len(cache) < CACHE_LIMIT and (key.__class__ is T or _cacheable(key)):
            cache[key] = result
        return result

    return __new__


def _cacheable(key):
    if key.__class__ in (str, int):
        return key.__class__ is not bool
    if key.__class__ is tuple:
        return all(k is None or k.__class__ in (str, int) for k in key)
    return False


def _generator_new(torch, patch, dmap, types):
    call = patch.call_original

    def __new__(cls, *args, **kwargs):
        if args:
            d = args[0]
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    args = (m,) + args[1:]
        elif kwargs:
            d = kwargs.get("device")
            if d.__class__ in types:
                m = dmap[d]
                if m is not d:
                    kwargs = dict(kwargs, device=m)
        return call(cls, args, kwargs)

    return __new__
