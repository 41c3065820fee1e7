"""Automatic mixed precision with CUDA names on MUSA.

CUDA APIs made to work:
  - ``torch.cuda.amp.autocast / GradScaler / custom_fwd / custom_bwd /
    amp_definitely_not_available`` (also under torch.cuda.amp.autocast_mode, .grad_scaler,
    .common): rebound to the torch.musa.amp objects.
  - ``torch.autocast("cuda")`` / ``torch.amp.autocast("cuda")`` (same class): the device
    type "cuda" becomes "musa" in ``__init__``.
  - ``torch.amp.GradScaler("cuda")`` (and its default device, "cuda"): becomes "musa".
  - ``torch.amp.custom_fwd(device_type="cuda")`` / ``custom_bwd(device_type="cuda")``.
  - ``torch.get_autocast_dtype / set_autocast_dtype / is_autocast_enabled /
    set_autocast_enabled("cuda", ...)``, ``torch.amp.is_autocast_available("cuda")`` and the
    deprecated ``torch.get_autocast_gpu_dtype / set_autocast_gpu_dtype``.

Per-call cost: one string comparison and one extra Python frame; nothing else.

torch_musa APIs relied on: torch.musa.amp (autocast, GradScaler, custom_fwd, custom_bwd),
torch.musa.amp_definitely_not_available, the "musa" autocast device type
(AutocastPrivateUse1, registered by torch_musa).
"""
from torchada.areas import _kit

_CUDA, _MUSA = "cuda", "musa"


def _wrap_init_first(original, default=None):
    """__init__(self, device, ...) with "cuda" -> "musa" in the first argument."""
    if default is None:
        def __init__(self, device_type, *args, **kwargs):
            if device_type == _CUDA:
                device_type = _MUSA
            original(self, device_type, *args, **kwargs)
    else:
        def __init__(self, device=default, *args, **kwargs):
            if device == _CUDA:
                device = _MUSA
            original(self, device, *args, **kwargs)
    return _kit.wraps(original)(__init__)


def _wrap_device_arg(original):
    """A function whose first argument (or device_type=) is a device type."""
    def wrapper(*args, **kwargs):
        if args:
            if args[0] == _CUDA:
                args = (_MUSA,) + args[1:]
        elif kwargs.get("device_type") == _CUDA:
            kwargs["device_type"] = _MUSA
        return original(*args, **kwargs)

    return _kit.wraps(original)(wrapper)


def _wrap_custom(original):
    """custom_fwd / custom_bwd: keyword-only device_type."""
    def wrapper(*args, **kwargs):
        if kwargs.get("device_type") == _CUDA:
            kwargs["device_type"] = _MUSA
        return original(*args, **kwargs)

    return _kit.wraps(original)(wrapper)


def apply(ctx):
    import torch.amp  # noqa: F401

    _cuda_amp_rows(ctx)
    _device_type_cuda(ctx)
    _autocast_state_functions(ctx)


def _cuda_amp_rows(ctx):
    """torch.cuda.amp.* -> torch.musa.amp.* (the table's amp rows), and the same objects
    where torch.cuda.amp's own submodules bind them."""
    import sys

    cuda_amp = sys.modules.get("torch.cuda.amp")
    before = dict(vars(cuda_amp)) if cuda_amp is not None else {}
    _kit.apply_rows(ctx)
    if cuda_amp is not None:
        subs = [sys.modules.get("torch.cuda.amp." + s)
                for s in ("autocast_mode", "grad_scaler", "common")]
        for name, original in before.items():
            now = vars(cuda_amp).get(name)
            if now is not original:
                _kit.rebind_everywhere(ctx, subs, name, original, now)


def _device_type_cuda(ctx):
    """autocast("cuda"), GradScaler("cuda") (and its "cuda" default), custom_fwd / custom_bwd
    (device_type="cuda")."""
    import sys

    torch = ctx.torch
    # torch.autocast("cuda") / torch.amp.autocast("cuda"): one class
    autocast_cls = torch.amp.autocast_mode.autocast
    ctx.setattr(autocast_cls, "__init__",
                _wrap_init_first(autocast_cls.__dict__["__init__"]))
    scaler_cls = getattr(torch.amp, "GradScaler", None)
    if scaler_cls is not None and "__init__" in scaler_cls.__dict__:
        ctx.setattr(scaler_cls, "__init__",
                    _wrap_init_first(scaler_cls.__dict__["__init__"], default=_CUDA))
    amp_modules = [torch.amp, sys.modules.get("torch.amp.autocast_mode")]
    for name in ("custom_fwd", "custom_bwd"):
        original = getattr(torch.amp.autocast_mode, name, None)
        if original is not None:
            _kit.rebind_everywhere(ctx, amp_modules, name, original, _wrap_custom(original))


def _autocast_state_functions(ctx):
    """Autocast state functions taking a device type first, and the deprecated no-argument
    GPU forms (they mean CUDA)."""
    import sys

    torch = ctx.torch
    for name in ("get_autocast_dtype", "set_autocast_dtype", "is_autocast_enabled",
                 "set_autocast_enabled"):
        original = getattr(torch, name, None)
        if original is not None:
            ctx.setattr(torch, name, _wrap_device_arg(original))
    available = getattr(torch.amp.autocast_mode, "is_autocast_available", None)
    if available is not None:
        amp_modules = [torch.amp, sys.modules.get("torch.amp.autocast_mode")]
        _kit.rebind_everywhere(ctx, amp_modules, "is_autocast_available", available,
                               _wrap_device_arg(available))
    get_dtype = getattr(torch, "get_autocast_dtype", None)
    set_dtype = getattr(torch, "set_autocast_dtype", None)
    if get_dtype is not None and hasattr(torch, "get_autocast_gpu_dtype"):
        def get_autocast_gpu_dtype():
            return get_dtype(_MUSA)

        ctx.setattr(torch, "get_autocast_gpu_dtype", get_autocast_gpu_dtype)
    if set_dtype is not None and hasattr(torch, "set_autocast_gpu_dtype"):
        def set_autocast_gpu_dtype(dtype):
            return set_dtype(_MUSA, dtype)

        ctx.setattr(torch, "set_autocast_gpu_dtype", set_autocast_gpu_dtype)
