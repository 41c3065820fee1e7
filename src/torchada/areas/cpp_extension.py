"""torch.utils.cpp_extension on MUSA: CUDA C++ extensions build unchanged.

CUDA APIs made to work: ``CUDAExtension(name, sources, ...)`` (MUSA include and library
paths, libraries cudart/cublas/nvjpeg/... -> musart/mublas/mtjpeg/..., ``nvcc`` flags ->
``mcc`` flags with -gencode/-arch sm_XX -> --offload-arch=mp_XX), ``BuildExtension``
(ports project-local CUDA sources and headers in place through torchada.porting, keeping
.cu/.cuh names; compiles .cu/.mu with mcc; backports torch::stable accessors for
torch < 2.11 through an include overlay), ``include_paths`` / ``library_paths`` (same
signature as torch's, positional or keyword; ``device_type="cuda"`` or the legacy
``cuda=True`` add the MUSA paths), ``CUDA_HOME`` (the MUSA toolkit root), and ``load`` /
``load_inline`` (built under an flock so a builder killed mid-build never blocks later ones).

torch_musa APIs relied on: none imported; the layout of an installed torch_musa is used
(``torch_musa/lib`` with libmusa_python, ``torch_musa/share/generated_cuda_compatible``
headers) as torch_musa/utils/musa_extension.py defines it; the MUSA toolkit's ``mcc``.
"""
from torchada.areas import _kit


def _wants_device(args, kwargs):
    device = kwargs.get("device_type", kwargs.get("cuda", args[0] if args else "cpu"))
    return device is True or device in ("cuda", "musa")


def _cpu_args(args, kwargs):
    """The same call for the CPU paths: the device argument becomes "cpu" (or False for a
    legacy bool), every other argument is passed through untouched."""
    args = list(args)
    kwargs = dict(kwargs)
    if args:
        args[0] = False if isinstance(args[0], bool) else "cpu"
    for key in ("device_type", "cuda"):
        if key in kwargs:
            kwargs[key] = False if isinstance(kwargs[key], bool) else "cpu"
    return args, kwargs


def _with_musa_paths(original, musa_paths):
    """torch's include_paths / library_paths, plus the MUSA toolkit's for a device call."""
    @_kit.wraps(original)
    def paths(*args, **kwargs):
        if not _wants_device(args, kwargs):
            return original(*args, **kwargs)
        a, k = _cpu_args(args, kwargs)
        return original(*a, **k) + musa_paths()

    return paths


def apply(ctx):
    import torch.utils.cpp_extension as cpp

    from torchada.porting import build, flags, jit_lock, toolkit

    include_paths = _with_musa_paths(cpp.include_paths, toolkit.musa_include_paths)
    library_paths = _with_musa_paths(cpp.library_paths, toolkit.musa_library_paths)
    original_cuda_extension = cpp.CUDAExtension

    @_kit.wraps(original_cuda_extension)
    def CUDAExtension(name, sources, *args, **kwargs):
        import setuptools

        kwargs = flags.extension_kwargs(kwargs, include_paths("cuda"), library_paths("cuda"))
        return setuptools.Extension(name, sources, *args, **kwargs)

    ctx.setattr(cpp, "include_paths", include_paths)
    ctx.setattr(cpp, "library_paths", library_paths)
    ctx.setattr(cpp, "CUDAExtension", CUDAExtension)
    ctx.setattr(cpp, "CUDA_HOME", toolkit.musa_home())
    _install_build_extension(ctx, cpp, build)
    for name in ("load", "load_inline"):
        original = getattr(cpp, name, None)
        if original is not None:
            ctx.setattr(cpp, name, jit_lock.locked_load(original, cpp._get_build_directory))


def _install_build_extension(ctx, cpp, build):
    """BuildExtension -> the MUSA subclass. torch >= 2.10 creates BuildExtension lazily
    (module ``__getattr__``) to keep setuptools off the import path; keep it lazy too."""
    if "BuildExtension" in vars(cpp) or not callable(vars(cpp).get("__getattr__")):
        ctx.setattr(cpp, "BuildExtension", build.make_build_extension(cpp.BuildExtension))
        return
    original_getattr = vars(cpp)["__getattr__"]
    made = []

    def __getattr__(name):
        if name != "BuildExtension":
            return original_getattr(name)
        if not made:
            base = original_getattr("BuildExtension")  # torch binds its class as a global
            made.append(build.make_build_extension(base))
            ctx.setattr(cpp, "BuildExtension", made[0])
        return made[0]

    ctx.setattr(cpp, "__getattr__", __getattr__)
