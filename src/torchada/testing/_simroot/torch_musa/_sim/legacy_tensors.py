"""torch_musa.FloatTensor & co: the legacy tensor types, modelled on the real C extension types.

Source (torch_musa 2.7.1, torch_musa/csrc/core/PythonTensor.cpp):
  * ten types, Bool Byte Char Double Float Int Long Short Half BFloat16, no Complex (:304-314);
  * type name ``torch_musa.<Scalar>Tensor`` (GetName, :246-250), so ``__module__`` is
    "torch_musa"; bound as attributes of module torch_musa and added to the set
    ``torch_musa._tensor_classes`` (PyBindTensorTypes, :333-365);
  * their metaclass is torch_musa's own ``torch.tensortype`` (:204-217) -- a different object
    from torch's metaclass of the same name -- with only ``dtype`` and ``layout`` properties
    (:199-202; torch's own metaclass also has ``is_cuda`` / ``is_sparse``) and
    ``__instancecheck__`` true for a tensor whose legacy dispatch key is PrivateUse1 (dense)
    and whose scalar type matches (:148-160);
  * not subclassable (Py_TPFLAGS_BASETYPE omitted, :233-235);
  * every torch.Tensor / TensorBase attribute is merged into each type's dict without
    overriding its own (:241-243, :271-298);
  * calling a type: TypeError unless MUSA is available, a one-time deprecation warning, then
    torch's ``legacy_tensor_ctor`` for dispatch key PrivateUse1 (TensorNew, :52-71).

The real types are C types; these are Python classes with the same observable behaviour.
The one C-level difference, ``tp_name`` (torch's ``Tensor.type(cls)`` reads it: the real
one is "torch_musa.FloatTensor", a Python class's is "FloatTensor"), is covered by the
model of the patched torch's type-name parser below, which is where it matters.

``patch_tensor_type`` models torch_musa's patch of torch/csrc/utils/tensor_types.cpp
(torch_patches/torch_csrc_utils_tensor_types.cpp.patch): the patched parser turns a name
starting with "torch_musa" into "torch.musa" before the lookup, so ``x.type("torch_musa.
HalfTensor")`` and ``x.type(torch.musa.HalfTensor)`` (tp_name "torch_musa.HalfTensor")
work, and names are still printed as "torch.musa.<Scalar>Tensor". Stock torch, which the
simulator runs on, answers "invalid type" to both.
"""
import warnings

import torch

# (type name prefix, dtype) in PythonTensor.cpp's order (:304-314).
SCALARS = (("Bool", torch.bool), ("Byte", torch.uint8), ("Char", torch.int8),
           ("Double", torch.float64), ("Float", torch.float32), ("Int", torch.int32),
           ("Long", torch.int64), ("Short", torch.int16), ("Half", torch.float16),
           ("BFloat16", torch.bfloat16))
MODULE = "torch_musa"
_NOT_MERGED = frozenset(("__dict__", "__weakref__", "__new__", "__init__", "__module__", "__doc__",
                         "__qualname__", "__init_subclass__", "__slots__"))
_warned = []
_building = []  # True while this module creates the ten types (subclassing is refused otherwise)


def _musa_available():
    import torch_musa

    return torch_musa.device_count() > 0


def _check_device(device):
    if device is None:
        return torch.device("musa")
    device = torch.device(device)
    if device.type != "musa":
        # tensor_new.cpp check_base_legacy_new / legacy ctor: the device must be the type's
        raise RuntimeError("legacy constructor expects device type: musa but device type: %s "
                           "was passed" % device.type)
    return device


def _legacy_ctor(cls, args, kwargs):
    """torch's legacy_tensor_ctor for (PrivateUse1, cls.dtype): its signatures in order."""
    dtype = cls.__dict__["_sim_dtype"]
    kwargs = dict(kwargs)
    device = _check_device(kwargs.pop("device", None))
    if kwargs:
        raise TypeError("new() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
    if not args:
        return torch.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], torch.Tensor):
        other = args[0]
        if other.device.type != "musa" or other.dtype != dtype or other.layout != torch.strided:
            raise TypeError("expected %s (got %s)" % (_options(dtype, device), _options(
                other.dtype, other.device)))
        return torch.ops.aten.alias(other)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], torch.Size)):
        return torch.empty(*args, dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (torch.TypedStorage, torch.UntypedStorage)):
            raise TypeError("torch_musa legacy constructor from a Storage is not simulated")
        if not hasattr(data, "__len__") or isinstance(data, (str, bytes)):
            raise TypeError("new(): data must be a sequence (got %s)" % type(data).__name__)
        return torch.tensor(data, dtype=dtype, device=device)
    raise TypeError("new() received an invalid combination of arguments")


def _options(dtype, device):
    return "TensorOptions(dtype=%s, device=%s, layout=Strided)" % (str(dtype).replace("torch.", ""),
                                                                  device)


class tensortype(type):
    """torch_musa's metaclass of the legacy types (PythonTensor.cpp:204, tp_name
    "torch.tensortype"): dtype / layout properties and the isinstance rule."""

    def __new__(mcs, name, bases, namespace):
        if not _building:
            base = next(b for b in bases if isinstance(b, tensortype))
            raise TypeError("type '%s.%s' is not an acceptable base type" % (MODULE, base.__name__))
        return super().__new__(mcs, name, bases, namespace)

    @property
    def dtype(cls):
        return cls.__dict__["_sim_dtype"]

    @property
    def layout(cls):
        return torch.strided

    def __instancecheck__(cls, obj):
        # legacyExtractDispatchKey(var.key_set()) == PrivateUse1 and the scalar type matches
        return (isinstance(obj, torch.Tensor) and obj.device.type == "musa"
                and obj.layout == torch.strided and obj.dtype == cls.__dict__["_sim_dtype"])

    def __call__(cls, *args, **kwargs):  # TensorNew (tp_new)
        if not _musa_available():
            raise TypeError("type %s.%s not available. Torch not compiled with MUSA enabled."
                            % (MODULE, cls.__name__))
        if not _warned:
            _warned.append(True)
            warnings.warn("The torch.musa.*DtypeTensor constructors are no longer recommended. "
                          "It's best to use methods such as torch.tensor(data, dtype=*, "
                          "device='musa') to create tensors.", UserWarning, stacklevel=2)
        return _legacy_ctor(cls, args, kwargs)


tensortype.__module__ = "torch"


def _tensor_dict():
    merged = {}
    for source in (torch.Tensor.__dict__, torch._C.TensorBase.__dict__):  # GetTensorDict order
        for key, value in source.items():
            if key not in _NOT_MERGED:
                merged.setdefault(key, value)
    return merged


def make_tensor_types():
    """The ten type objects, in the real order."""
    shared = _tensor_dict()
    out = []
    _building.append(True)
    try:
        for prefix, dtype in SCALARS:
            namespace = dict(shared)
            namespace.update({"__module__": MODULE, "__doc__": None, "_sim_dtype": dtype,
                              "__qualname__": prefix + "Tensor"})
            out.append(tensortype(prefix + "Tensor", (), namespace))
    finally:
        _building.pop()
    return out


def _patched_name(dtype, classes):
    """tensor_types.cpp.patch: "torch_musa..." names mean "torch.musa..." (the type objects'
    tp_name is "torch_musa.<Scalar>Tensor")."""
    if isinstance(dtype, str) and dtype.startswith(MODULE):
        return "torch." + dtype[len("torch_"):]
    if isinstance(dtype, type) and dtype in classes:
        return "torch.musa." + dtype.__name__
    return dtype


def patch_tensor_type(classes):
    """Install the patched parser's behaviour on Tensor.type (see the module docstring)."""
    original = torch.Tensor.type

    def type(self, dtype=None, non_blocking=False, **kwargs):  # noqa: A001 (torch's name)
        if dtype is None:
            return original(self, **kwargs) if kwargs else original(self)
        return original(self, _patched_name(dtype, classes), non_blocking, **kwargs)

    type.__name__ = type.__qualname__ = "type"
    type.__doc__ = original.__doc__
    torch.Tensor.type = type
