"""Legacy CUDA tensor type names (``torch.cuda.HalfTensor``) wherever torch takes one.

CUDA APIs made to work:
  - ``Tensor.type("torch.cuda.<T>Tensor")`` and ``Tensor.type(torch.cuda.<T>Tensor)`` (the
    class torchada maps to ``torch.musa.<T>Tensor``, or torch's own CUDA type object) convert
    to the MUSA twin, where torch would answer "Cannot initialize CUDA without ATen_cuda
    library". So do ``Module.type(...)`` and everything else that goes through Tensor.type.
  - ``Tensor.type()`` of a MUSA tensor answers the CUDA name ("torch.cuda.FloatTensor"), as
    ``is_cuda`` answers True: CUDA programs compare it with CUDA names and feed it back to
    ``.type()``. A CPU tensor keeps "torch.FloatTensor".
  - ``torch.set_default_tensor_type(torch.cuda.FloatTensor)`` (class or dotted name): the
    default dtype becomes the type's and new tensors are made on the MUSA device. torch_musa's
    own types cannot be the default type (torch accepts only its own type objects), so this
    is ``set_default_tensor_type`` of the CPU twin plus ``torch.set_default_device("musa")``;
    a later CPU type undoes the device part. The legacy ``torch.Tensor(...)`` constructor
    does not follow ``set_default_device`` (torch's rule), so it stays on the CPU.

torch_musa APIs relied on: the legacy types ``torch.musa.<T>Tensor`` and torch's parser of
"torch.musa.<T>Tensor" names (PrivateUse1 types).
"""
from torchada.areas import _kit

CUDA, MUSA = "torch.cuda.", "torch.musa."


def _musa_names(ctx):
    """{type object: "torch.musa.<T>Tensor"} for torch's CUDA types and torch_musa's types."""
    torch = ctx.torch
    names = {}
    for cls in getattr(torch, "_tensor_classes", ()):
        module = getattr(cls, "__module__", "")
        if module in ("torch.cuda", "torch.cuda.sparse"):
            names[cls] = MUSA + module[len(CUDA):] + ("." if module != "torch.cuda" else "") \
                + cls.__name__
    for cls in getattr(ctx.musa, "_tensor_classes", ()):
        names[cls] = MUSA + cls.__name__
    return names


def _tensor_type(original, names):
    cuda_len, musa_len = len(CUDA), len(MUSA)

    @_kit.wraps(original)
    def type(self, dtype=None, non_blocking=False, **kwargs):  # noqa: A001 (torch's name)
        if dtype is None:
            name = original(self, **kwargs) if kwargs else original(self)
            return CUDA + name[musa_len:] if name.startswith(MUSA) else name
        if dtype.__class__ is str:
            if dtype.startswith(CUDA):
                dtype = MUSA + dtype[cuda_len:]
        elif isinstance(dtype, _type):
            dtype = names.get(dtype, dtype)
        return original(self, dtype, non_blocking, **kwargs)

    return type


_type = type


def _set_default_tensor_type(torch, original, names):
    prior = []  # the default device before torchada made it musa (empty: not made)

    @_kit.wraps(original)
    def set_default_tensor_type(t):
        resolved = torch._utils._import_dotted_name(t) if isinstance(t, str) else t
        name = names.get(resolved) if isinstance(resolved, type) else None
        if name is None:
            original(t)
            if prior:
                before = prior.pop()
                torch.set_default_device(None if before.type == "cpu" else before)
            return
        if name.startswith(MUSA + "sparse."):
            raise TypeError("invalid type object: only floating-point types are supported as "
                            "the default type (%s is a sparse type)" % name)
        original(getattr(torch, name.rsplit(".", 1)[1]))  # dtype part (torch validates it)
        if not prior:
            prior.append(torch.get_default_device())
        torch.set_default_device("musa")

    return set_default_tensor_type


def apply(ctx):
    torch = ctx.torch
    names = _musa_names(ctx)
    ctx.setattr(torch.Tensor, "type", _tensor_type(torch.Tensor.type, names))
    ctx.setattr(torch, "set_default_tensor_type",
                _set_default_tensor_type(torch, torch.set_default_tensor_type, names))
    ctx.note("Tensor.type / set_default_tensor_type take torch.cuda.<T>Tensor as %d MUSA types"
             % len(getattr(ctx.musa, "_tensor_classes", ())))
