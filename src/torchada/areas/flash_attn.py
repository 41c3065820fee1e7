"""The MUSA FlashAttention provider behind the names SGLang and vLLM import.

CUDA API made to work: ``from sgl_kernel.flash_attn import flash_attn_varlen_func,
flash_attn_with_kvcache`` (SGLang's FA3 backend: sglang/kernels/ops/attention/
flash_attention_v3.py and srt/layers/attention/flashattention_backend.py, 0.5.23), the
``only_qv=`` keyword newer SGLang passes to those entry points, and
``flash_attn_interface._flash_attn_forward`` (ring attention's private FA2-style forward).

On MUSA the FA3 kernels come from the ``flash_attn_interface`` package (SGLang's own MUSA
backend imports it by that name: srt/hardware_backend/musa/attention/flashattention_backend.py).
- ``sgl_kernel.flash_attn`` resolves to that package (the finder supplies it, manifest
  ``provides``); a minimal ``sgl_kernel`` package is supplied only when none is installed, and
  an installed one keeps every other submodule.
- Entry points whose signature provably lacks ``only_qv`` (no such parameter, no
  ``**kwargs``) accept it: ``only_qv=False`` / None (SGLang's default, "compute K as usual")
  is dropped; ``only_qv=True`` asks for a kernel path the provider does not have, so it
  raises a TypeError naming the provider and the fix instead of computing something else.
  Entry points that take it, or that cannot be inspected, are untouched.
- ``_flash_attn_forward``, when the provider lacks it and its ``flash_attn_func`` takes
  ``return_softmax_lse``, is an adapter with flash-attn 2's positional signature returning
  ``(out, softmax_lse, None, None)``; it fails closed when the provider does not return both,
  and for dropout, ALiBi or returned probabilities (the public API has no such outputs).

torch_musa APIs relied on: none (the provider's own).
"""
import importlib.machinery
import importlib.util
import inspect
import sys

from torchada.areas import _kit

PROVIDER = "flash_attn_interface"
ALIAS = "sgl_kernel.flash_attn"
ENTRY_POINTS = ("flash_attn_func", "flash_attn_varlen_func", "flash_attn_with_kvcache")
_MARK = "__torchada_only_qv__"


# -- the modules the finder supplies ------------------------------------------------------
class _AliasLoader:
    """Loads a name as another, already importable, module (the same object)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _StubPackageLoader:
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__doc__ = ("Supplied by torchada on MUSA: no sgl_kernel is installed; only "
                          "sgl_kernel.flash_attn (the MUSA flash_attn_interface) is available.")


def _provider_present():
    try:
        return importlib.util.find_spec(PROVIDER) is not None
    except (ImportError, ValueError):
        return False


def provide(fullname, real_spec):
    if not _provider_present():
        return None
    if fullname == "sgl_kernel":
        if real_spec is not None:
            return None  # an installed sgl_kernel is never shadowed
        spec = importlib.machinery.ModuleSpec("sgl_kernel", _StubPackageLoader(), is_package=True)
        spec.submodule_search_locations = []
        return spec
    if fullname == ALIAS:
        return importlib.machinery.ModuleSpec(ALIAS, _AliasLoader(PROVIDER))
    return None


# -- only_qv ------------------------------------------------------------------------------
def takes_only_qv(func):
    """False only when the signature provably has no ``only_qv`` and no ``**kwargs``."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return True  # cannot prove it: leave the function alone
    return "only_qv" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def accept_only_qv(func, qualname):
    @_kit.wraps(func)
    def entry(*args, only_qv=False, **kwargs):
        if only_qv:
            raise TypeError(
                "%s(only_qv=True): this MUSA FlashAttention provider has no only_qv path "
                "(its signature lacks the parameter). Upgrade the flash_attn_interface "
                "provider, or run the attention backend that does not request it" % qualname)
        return func(*args, **kwargs)

    setattr(entry, _MARK, func)
    return entry


# -- _flash_attn_forward ------------------------------------------------------------------
def forward_adapter(flash_attn_func, module_name):
    def _flash_attn_forward(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                            window_size_left=-1, window_size_right=-1, softcap=0.0,
                            alibi_slopes=None, return_softmax=False):
        for label, given in (("dropout_p", dropout_p), ("alibi_slopes", alibi_slopes is not None),
                             ("return_softmax", return_softmax)):
            if given:
                raise NotImplementedError(
                    "%s._flash_attn_forward(%s=...): torchada's adapter over flash_attn_func "
                    "computes inference attention only (no dropout, ALiBi or probabilities); "
                    "call it without %s" % (module_name, label, label))
        result = flash_attn_func(q, k, v, softmax_scale=softmax_scale, causal=causal,
                                 window_size=(window_size_left, window_size_right),
                                 softcap=softcap, return_softmax_lse=True)
        if not isinstance(result, (tuple, list)) or len(result) < 2 or result[1] is None:
            raise RuntimeError(
                "%s.flash_attn_func(return_softmax_lse=True) returned %s, not (out, "
                "softmax_lse): this provider cannot back _flash_attn_forward"
                % (module_name, type(result).__name__))
        return result[0], result[1], None, None

    _flash_attn_forward.__module__ = module_name
    _flash_attn_forward.__torchada_adapter__ = True
    return _flash_attn_forward


def apply(ctx):
    provider = sys.modules[PROVIDER]
    wrapped = []
    for name in ENTRY_POINTS:
        func = getattr(provider, name, None)
        if not callable(func) or inspect.isclass(func) or hasattr(func, _MARK):
            continue
        if not takes_only_qv(func):
            ctx.setattr(provider, name, accept_only_qv(func, "%s.%s" % (PROVIDER, name)))
            wrapped.append(name)
    if wrapped:
        ctx.note("only_qv accepted by %s" % ", ".join(wrapped))
    public = getattr(provider, "flash_attn_func", None)
    if getattr(provider, "_flash_attn_forward", None) is None and callable(public):
        try:
            takes_lse = "return_softmax_lse" in inspect.signature(public).parameters
        except (TypeError, ValueError):
            takes_lse = False
        if takes_lse:
            ctx.setattr(provider, "_flash_attn_forward", forward_adapter(public, PROVIDER))
            ctx.note("_flash_attn_forward adapted over flash_attn_func")
    sgl = sys.modules.get("sgl_kernel")
    if sgl is not None and ALIAS not in sys.modules:
        # sgl_kernel was imported before the provider; later imports go through the finder
        ctx.setitem(sys.modules, ALIAS, provider)
        ctx.setattr(sgl, "flash_attn", provider)
