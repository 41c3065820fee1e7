"""Custom operators registered for CUDA run on MUSA tensors.

CUDA APIs made to work: ``torch.library.Library.impl(name, fn, "CUDA")`` and the
CUDA-flavoured keys ``AutogradCUDA``, ``AutocastCUDA``, ``SparseCUDA``, ``SparseCsrCUDA``,
``QuantizedCUDA``, ``NestedTensorCUDA`` (registered on their PrivateUse1 twins, with
``with_keyset`` / ``allow_override`` passed through), ``Library.fallback`` and
``Library._impl_with_aoti_compile`` with those keys, ``torch.library.impl(qualname, "cuda")``,
``torch.library.register_kernel(op, "cuda")``, ``@torch.library.custom_op(...,
device_types="cuda")`` and ``CustomOpDef.register_kernel("cuda")`` (kept under "musa", the
device type musa tensors report), ``torch.library.register_autocast(op, "cuda", dtype)`` and
``CustomOpDef.register_autocast("cuda", dtype)`` (the "musa" autocast key; torch releases
whose register_autocast only knows "cpu" / "cuda" get the same kernel registered on
AutocastPrivateUse1). ``register_fake`` and every other key are untouched. A kernel that
raises raises the user's own error: registration is the only thing translated, calls go
straight to the registered function.

torch_musa APIs relied on: the PrivateUse1 dispatch keys of the "musa" backend (torch_musa
renames PrivateUse1 and registers its kernels there) and its autocast key
(AutocastPrivateUse1, torch_musa/core/amp).
"""
from torchada.areas import _kit

# CUDA dispatch key -> its PrivateUse1 twin (DispatchKey names, torch >= 2.1 has them all).
KEYS = {
    "CUDA": "PrivateUse1", "AutogradCUDA": "AutogradPrivateUse1",
    "AutocastCUDA": "AutocastPrivateUse1", "SparseCUDA": "SparsePrivateUse1",
    "SparseCsrCUDA": "SparseCsrPrivateUse1", "QuantizedCUDA": "QuantizedPrivateUse1",
    "NestedTensorCUDA": "NestedTensorPrivateUse1",
}


def musa_key(key):
    """The key to register on: a CUDA-flavoured key (str or DispatchKey) -> PrivateUse1's."""
    name = key if isinstance(key, str) else getattr(key, "name", None)
    return KEYS.get(name, key) if name is not None else key


def musa_device_types(device_types):
    """"cuda" (alone or in a sequence) -> "musa"; anything else unchanged."""
    if device_types == "cuda":
        return "musa"
    if isinstance(device_types, (list, tuple)):
        return type(device_types)("musa" if d == "cuda" else d for d in device_types)
    return device_types


def _has_musa_kernel(library, op_name, key):
    """The operator already has its own kernel for the PrivateUse1 twin ``key``."""
    import torch

    name = getattr(op_name, "_name", op_name)
    qualname = name if "::" in name else "%s::%s" % (library.ns, name)
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key(qualname, key)
    except RuntimeError:  # not defined yet: nothing registered
        return False


def _key_at(position, original, keep_existing=False):
    """Wrap a Library method whose dispatch key is positional argument ``position`` (0 is
    the first after self) or the ``dispatch_key`` keyword. With ``keep_existing`` (impl), a
    CUDA kernel is not registered over a kernel the operator already has for PrivateUse1:
    libraries that register both (torch's own FSDP ops do) keep their PrivateUse1 one, and
    no override warning is printed."""
    @_kit.wraps(original)
    def method(self, *args, **kwargs):
        if len(args) > position:
            key = args[position]
            args = args[:position] + (musa_key(key),) + args[position + 1:]
        else:
            key = kwargs.get("dispatch_key", "")
            if "dispatch_key" in kwargs:
                kwargs["dispatch_key"] = musa_key(key)
        mapped = musa_key(key)
        op_name = args[0] if args else kwargs.get("op_name")
        if keep_existing and mapped is not key and _has_musa_kernel(self, op_name, mapped):
            return None
        return original(self, *args, **kwargs)

    return method


def _musa_autocast_kernel(op, cast_inputs):
    import torch
    from torch._library.custom_ops import _cast  # torch's own input cast, by device type

    excluded = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastPrivateUse1)

    def kernel(_keyset, *args, **kwargs):
        if kwargs:
            raise AssertionError("Custom ops do not support kwargs yet.")
        with torch._C._ExcludeDispatchKeyGuard(excluded):
            return op(*_cast(args, "musa", cast_inputs))

    return kernel


def _unknown_device(exc):
    return isinstance(exc, ValueError) and "Unknown device type" in str(exc)


def _register_autocast(original):
    """torch.library.register_autocast: "cuda" means the musa autocast key."""
    @_kit.wraps(original)
    def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
        if device_type != "cuda":
            return original(op, device_type, cast_inputs, lib=lib)
        try:
            return original(op, "musa", cast_inputs, lib=lib)
        except ValueError as exc:  # a torch whose register_autocast knows only cpu / cuda
            if not _unknown_device(exc):
                raise
        import torch
        from torch._library.custom_ops import CustomOpDef

        if isinstance(op, CustomOpDef):
            return op.register_autocast("cuda", cast_inputs)
        qualname = op._name if isinstance(op, torch._ops.OpOverload) else op
        namespace, opname = torch._library.utils.parse_namespace(qualname)
        if lib is None:
            lib = torch.library.Library(namespace, "FRAGMENT")
            torch.library._keep_alive.append(lib)
        kernel = _musa_autocast_kernel(torch._library.utils.lookup_op(qualname), cast_inputs)
        return lib.impl(opname, kernel, "AutocastPrivateUse1", with_keyset=True)

    return register_autocast


def _opdef_register_autocast(original):
    """CustomOpDef.register_autocast: "cuda" means the musa autocast key."""
    @_kit.wraps(original)
    def register_autocast(self, device_type, cast_inputs):
        if device_type != "cuda":
            return original(self, device_type, cast_inputs)
        try:
            return original(self, "musa", cast_inputs)
        except ValueError as exc:
            if not _unknown_device(exc):
                raise
        kernel = _musa_autocast_kernel(self._opoverload, cast_inputs)
        self._lib.impl(self._name, kernel, "AutocastPrivateUse1", with_keyset=True)
        return kernel

    return register_autocast


def apply(ctx):
    import torch.library
    from torch._library.custom_ops import CustomOpDef

    Library = torch.library.Library
    # impl(op_name, fn, dispatch_key), fallback(fn, dispatch_key),
    # _impl_with_aoti_compile(op_name, dispatch_key): the key's position after self
    for name, position in (("impl", 2), ("fallback", 1), ("_impl_with_aoti_compile", 1)):
        original = Library.__dict__.get(name)
        if original is not None:
            ctx.setattr(Library, name, _key_at(position, original, keep_existing=name == "impl"))
    ctx.setattr(CustomOpDef, "register_kernel", _kit.map_argument(
        CustomOpDef.register_kernel, 1, "device_types", musa_device_types))
    ctx.setattr(CustomOpDef, "register_autocast",
                _opdef_register_autocast(CustomOpDef.register_autocast))
    ctx.setattr(torch.library, "register_autocast",
                _register_autocast(torch.library.register_autocast))
    ctx.setattr(torch.library, "custom_op", _kit.map_argument(
        torch.library.custom_op, None, "device_types", musa_device_types))
