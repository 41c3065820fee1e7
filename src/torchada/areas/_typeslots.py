"""Replace the ``tp_new`` slot of a static C type (``torch.device``, ``torch.Generator``)
without replacing the type itself.

The class object stays the very same C type: ``type(torch.device("cuda")) is torch.device``,
pickles name ``torch.device``, TorchScript still recognises it. How:

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
import sys

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
