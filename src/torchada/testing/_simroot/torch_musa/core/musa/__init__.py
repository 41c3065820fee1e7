"""Legacy typed storages on musa (torch.musa.FloatStorage, ...)."""
import torch
from torch.storage import _LegacyStorage, _warn_typed_storage_removal
from torch._utils import classproperty


class _MusaLegacyStorage(_LegacyStorage):
    @classmethod
    def from_buffer(cls, *args, **kwargs):
        _warn_typed_storage_removal()
        raise RuntimeError("from_buffer: Not available for MUSA storage")

    @classmethod
    def _new_with_weak_ptr(cls, *args, **kwargs):
        raise RuntimeError("_new_with_weak_ptr: Not available for MUSA storage")

    @classmethod
    def _new_shared_filename(cls, manager, obj, size, *, device=None, dtype=None):
        raise RuntimeError("_new_shared_filename: Not available for MUSA storage")


def _make(name, dtype):
    def _dt(self):
        _warn_typed_storage_removal()
        return self._dtype

    def _dt_(self):
        return dtype

    return type(name, (_MusaLegacyStorage,), {"dtype": classproperty(_dt), "_dtype": classproperty(_dt_)})


ByteStorage = _make("ByteStorage", torch.uint8)
DoubleStorage = _make("DoubleStorage", torch.double)
FloatStorage = _make("FloatStorage", torch.float)
HalfStorage = _make("HalfStorage", torch.half)
LongStorage = _make("LongStorage", torch.long)
IntStorage = _make("IntStorage", torch.int)
ShortStorage = _make("ShortStorage", torch.short)
CharStorage = _make("CharStorage", torch.int8)
BoolStorage = _make("BoolStorage", torch.bool)
BFloat16Storage = _make("BFloat16Storage", torch.bfloat16)

for _c in (ByteStorage, DoubleStorage, FloatStorage, HalfStorage, LongStorage, IntStorage,
           ShortStorage, CharStorage, BoolStorage, BFloat16Storage):
    _c.__module__ = "torch_musa"
    torch._storage_classes.add(_c)
