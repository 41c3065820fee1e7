"""torch.backends.cuda / torch.backends.cudnn where they have a MUSA meaning.

CUDA APIs made to work (each documented in docs/cuda_namespace.md):
  - ``torch.backends.cuda.is_built()`` -> True where this torch runs a MUSA backend *and* the
    pieces torch imports behind that answer are there (``BUILT_IMPLIES``: the allocator state
    and cached-tensor switch Inductor's cudagraph trees import, mapped by cuda_private from
    torch_musa's ``_musa_*`` twins); else False, as on a CPU build, so those imports keep
    torch's CPU fallbacks instead of failing.
  - ``torch.backends.cuda.matmul.allow_tf32`` (read / write) -> ``torch.backends.mudnn.allow_tf32``.
    MUSA has one TF32 switch for muDNN convolutions *and* matmul / bmm, so this flag and
    ``cudnn.allow_tf32`` read and write the same value (CUDA keeps two). The other matmul
    attributes keep torch's behaviour.
  - ``torch.backends.cudnn.is_available()`` -> True when torch.backends.mudnn exists.
  - ``torch.backends.cudnn.version()`` -> ``torch.backends.mudnn.version()``.
  - ``torch.backends.cudnn.allow_tf32`` (read / write) -> ``torch.backends.mudnn.allow_tf32``.
  - ``torch.backends.cudnn.flags(..., allow_tf32=...)`` also sets muDNN's flag for the block.
Left as torch defines them (global ATen flags that MUSA code may read; no muDNN setter
exists): ``cudnn.enabled``, ``benchmark``, ``benchmark_limit``, ``deterministic``,
``is_acceptable`` (False for MUSA tensors, which keeps torch's cuDNN-only code paths such as
RNN weight flattening away from MUSA tensors), the SDPA switches of torch.backends.cuda,
``cufft_plan_cache``, ``preferred_linalg_library``, ``preferred_blas_library``.

torch_musa APIs relied on: torch.backends.mudnn (allow_tf32, version, flags), set by
torch_musa at import.
"""
from torchada.areas import _kit

# What torch imports from torch._C when torch.backends.cuda.is_built() is True
# (torch/_inductor/cudagraph_trees.py). A torch_musa without the allocator-state binding
# leaves the first one unmapped: claiming CUDA there makes that import fail.
BUILT_IMPLIES = ("_cuda_CUDAAllocator_AllocatorState", "_set_cached_tensors_enabled")


class MatmulFlags:
    """torch.backends.cuda.matmul on MUSA: allow_tf32 is muDNN's flag, the rest torch's."""

    __slots__ = ("_torch_matmul", "_mudnn")

    def __init__(self, torch_matmul, mudnn):
        object.__setattr__(self, "_torch_matmul", torch_matmul)
        object.__setattr__(self, "_mudnn", mudnn)

    def __getattr__(self, name):
        if name == "allow_tf32":
            return self._mudnn.allow_tf32
        return getattr(self._torch_matmul, name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            self._mudnn.allow_tf32 = value
            return
        setattr(self._torch_matmul, name, value)

    def __repr__(self):
        return "<torch.backends.cuda.matmul on MUSA (allow_tf32 -> torch.backends.mudnn)>"


def apply(ctx):
    import sys

    import torch.backends.cuda  # noqa: F401
    import torch.backends.cudnn  # noqa: F401

    torch = ctx.torch
    cuda_backend = sys.modules["torch.backends.cuda"]
    mudnn = getattr(torch.backends, "mudnn", None)

    def is_built():
        """True where this torch runs a MUSA backend through torch_musa (torchada) with the
        pieces CUDA-built code imports (BUILT_IMPLIES); checked at each call, so a mapping
        that was disabled or reverted is seen."""
        return all(hasattr(torch._C, name) for name in BUILT_IMPLIES)

    ctx.setattr(cuda_backend, "is_built", is_built)
    if mudnn is None:
        return  # no muDNN module: the cudnn / tf32 switches keep torch's behaviour
    if hasattr(cuda_backend, "matmul"):
        ctx.setattr(cuda_backend, "matmul", MatmulFlags(cuda_backend.matmul, mudnn))
    _cudnn_as_mudnn(ctx, sys.modules["torch.backends.cudnn"], mudnn)


def _cudnn_as_mudnn(ctx, cudnn, mudnn):
    """torch.backends.cudnn answers from muDNN: is_available, version, allow_tf32, flags.
    ``cudnn`` is the PropModule users see, around the module holding the functions."""
    import contextlib

    inner = getattr(cudnn, "m", cudnn)
    prop_class = type(cudnn)

    def is_available():
        """True: muDNN (torch.backends.mudnn) stands in for cuDNN on MUSA (torchada)."""
        return True

    # Set on the PropModule users see, not in the module globals: torch's own cudnn code
    # (set_flags, benchmark_limit) calls its global is_available() and must keep seeing
    # False on a torch built without CUDA.
    public = {"is_available": is_available}
    if hasattr(mudnn, "version"):
        public["version"] = mudnn.version
    for name, value in public.items():
        ctx.setattr(cudnn, name, value)

    def _get(self):
        return mudnn.allow_tf32

    def _set(self, value):
        mudnn.allow_tf32 = value

    if prop_class is not type(ctx.torch) and "allow_tf32" in prop_class.__dict__:
        ctx.setattr(prop_class, "allow_tf32", property(
            _get, _set, doc="torch.backends.mudnn.allow_tf32 on MUSA (torchada)"))

    original_flags = getattr(inner, "flags", None)
    if original_flags is not None:
        @contextlib.contextmanager
        def flags(*args, **kwargs):
            allow = kwargs.get("allow_tf32", args[4] if len(args) > 4 else True)
            previous = mudnn.allow_tf32
            mudnn.allow_tf32 = allow
            try:
                with original_flags(*args, **kwargs):
                    yield
            finally:
                mudnn.allow_tf32 = previous

        ctx.setattr(inner, "flags", _kit.wraps(original_flags)(flags))
