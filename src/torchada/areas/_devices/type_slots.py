"""torch.device and torch.Generator keep their C types: only the constructor slot changes.
``torch.device("cuda")`` looks its arguments up in a dict of ready-made musa devices. Where
the interpreter's type layout cannot be verified, nothing is patched and every wrapper also
maps cuda device objects (the fallback mode).

The slot is replaced without replacing the type: the class object stays the very same C type: ``type(torch.device("cuda")) is torch.device``,
pickles name ``torch.device``, TorchScript still recognises it. How (``TpNewPatch``):

* CPython refuses attribute writes on static types through ``Py_TPFLAGS_IMMUTABLETYPE``
  (3.10+). We clear that flag for the duration of one ``type.__setattr__(cls, "__new__", ...)``
  and set it again. CPython's own slot machinery (``update_slot``) then points ``tp_new`` at
  ``slot_tp_new``, which calls our Python ``__new__``.
* The original C ``tp_new`` stays callable through a ctypes function pointer saved before the
  change (the original ``__new__`` wrapper refuses to run once the slot changed:
  "is not safe").
* Revert puts the original dict entry back and writes the saved C pointer into ``tp_new``
  (setting the entry alone would leave ``slot_tp_new`` in place).

The ``PyTypeObject`` field offsets are those of 64-bit CPython 3.8-3.14 release builds; before
anything is written, :func:`layout_problem` checks them against values Python reports itself
(name, basicsize, flags, base, bases, mro). Any mismatch, a debug or free-threaded build, or
a type with its own vectorcall makes the caller take its documented fallback.
"""
import ctypes
import logging
import sys

logger = logging.getLogger("torchada")


def layout_problems(torch):
    """Why the constructor slots of torch.device / torch.Generator cannot be patched, or None."""
    return layout_problem(torch.device) or layout_problem(torch.Generator)


def install(ctx, dmap, types, problem):
    """Patch the two constructors (or not, when ``problem`` says the layout is unknown);
    returns the mode for status: "tp_new" or "fallback: <reason>"."""
    torch = ctx.torch
    if problem is not None:
        logger.info("torchada: torch.device keeps type 'cuda' for cuda names (%s); device "
                    "arguments are still mapped where they are used", problem)
        return "fallback: %s" % problem
    device_patch = TpNewPatch(torch.device)
    cache = {}
    device_patch.install(_device_new(torch, device_patch, dmap, cache))
    ctx.on_revert(device_patch.restore)
    ctx.on_revert(cache.clear)
    gen_patch = TpNewPatch(torch.Generator)
    gen_patch.install(_generator_new(torch, gen_patch, dmap, types))
    ctx.on_revert(gen_patch.restore)
    return "tp_new"


def _device_new(torch, patch, dmap_str, cache):
    from torchada.areas._devices.mapping import CACHE_LIMIT
    from torchada.areas._devices.names import musa_name

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


# -- the tp_new slot ------------------------------------------------------------------------
IMMUTABLETYPE = 1 << 8
HEAPTYPE = 1 << 9
_OFFSETS = {"name": 24, "basicsize": 32, "flags": 168, "base": 256, "new": 312,
            "bases": 336, "mro": 344, "vectorcall": 400}
_NEWFUNC = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.py_object,
                             ctypes.c_void_p)


def _ptr(cls, field):
    return ctypes.c_void_p.from_address(id(cls) + _OFFSETS[field])


def _flags(cls):
    return ctypes.c_ulong.from_address(id(cls) + _OFFSETS["flags"])


def layout_problem(cls):
    """None when the tp_new slot of ``cls`` can be replaced safely, else the reason not."""
    if not (3, 10) <= sys.version_info[:2] <= (3, 14):
        return "Python %d.%d: PyTypeObject layout not verified" % sys.version_info[:2]
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return "not a 64-bit interpreter"
    if hasattr(sys, "gettotalrefcount"):
        return "debug build of CPython (different object header)"
    gil = getattr(sys, "_is_gil_enabled", None)
    if gil is not None and not gil():
        return "free-threaded CPython"
    if sys.implementation.name != "cpython":
        return "not CPython"
    try:
        name = ctypes.c_char_p.from_address(id(cls) + _OFFSETS["name"]).value or b""
        checks = (
            name.decode("utf-8", "replace").rsplit(".", 1)[-1] == cls.__name__,
            ctypes.c_ssize_t.from_address(id(cls) + _OFFSETS["basicsize"]).value
            == cls.__basicsize__,
            _flags(cls).value == cls.__flags__,
            _ptr(cls, "base").value == id(cls.__base__),
            _ptr(cls, "bases").value == id(cls.__bases__),
            _ptr(cls, "mro").value == id(cls.__mro__),
        )
    except Exception as exc:  # pragma: no cover - defensive
        return "layout probe failed: %s" % exc
    if not all(checks):
        return "PyTypeObject layout of %s does not match the expected offsets" % cls.__name__
    if cls.__flags__ & HEAPTYPE:
        return "%s is a heap type" % cls.__name__
    if not cls.__flags__ & IMMUTABLETYPE:
        return "%s is not an immutable static type" % cls.__name__
    if _ptr(cls, "vectorcall").value:
        return "%s has its own vectorcall (would bypass tp_new)" % cls.__name__
    if not _ptr(cls, "new").value:
        return "%s has no tp_new" % cls.__name__
    return None


def _set_type_attr(cls, name, value):
    # Only the IMMUTABLETYPE bit is put back: setattr itself changes other bits (it drops
    # VALID_VERSION_TAG); restoring the whole word would leave a stale version tag 0 that
    # CPython's attribute cache would share between types.
    flags = _flags(cls)
    immutable = flags.value & IMMUTABLETYPE
    flags.value = flags.value & ~IMMUTABLETYPE
    try:
        type.__setattr__(cls, name, value)
    finally:
        flags.value = flags.value | immutable


class TpNewPatch:
    """One replaced ``tp_new``. ``call_original(cls, args, kwargs)`` runs the C original."""

    def __init__(self, cls):
        self.cls = cls
        self.orig_slot = _ptr(cls, "new").value
        self.orig_entry = cls.__dict__["__new__"]
        self._orig = _NEWFUNC(self.orig_slot)
        self.installed = False

    def call_original(self, cls, args, kwargs=None):
        return self._orig(cls, args, id(kwargs) if kwargs else None)

    def install(self, new):
        from torchada._core import trace

        new = trace.wrap_new(self.cls, new)  # the same object unless TORCHADA_TRACE
        _set_type_attr(self.cls, "__new__", staticmethod(new))
        self.installed = True
        if _ptr(self.cls, "new").value == self.orig_slot:
            self.restore()
            raise RuntimeError("tp_new of %s did not change" % self.cls.__name__)

    def restore(self):
        if not self.installed:
            return
        _set_type_attr(self.cls, "__new__", self.orig_entry)
        _ptr(self.cls, "new").value = self.orig_slot
        ctypes.pythonapi.PyType_Modified(ctypes.py_object(self.cls))
        self.installed = False
