"""tvm-ffi's JIT builder on MUSA: SGLang's JIT kernels compile with mcc, unchanged.

CUDA APIs made to work: ``tvm_ffi.cpp.build`` / ``build_inline`` / ``load`` /
``load_inline`` with ``.cu`` sources, which SGLang's ``jit_kernel`` calls from ``load_jit``
(sgl-project/sglang @0e73912e, python/sglang/jit_kernel/utils/compile.py: ``load_jit``
passes ``-std=c++20 -O3`` plus ``get_default_target_flags()`` -- ``-DSGL_CUDA_ARCH=<N>
-std=c++20 -O3 --expt-relaxed-constexpr``, utils/arch.py @4034fc7c -- and sets
``TVM_FFI_CUDA_ARCH_LIST`` to the device's capability around the build).

tvm-ffi writes a ``build.ninja`` for nvcc (apache/tvm-ffi @620fece9,
python/tvm_ffi/cpp/extension.py ``_generate_ninja_build``, lines 367-625). Three of its
module functions are replaced through the journal:

* ``_find_cuda_home`` (lines 165-190) -> the MUSA toolkit root: on a MUSA machine there is
  no CUDA toolkit, and tvm-ffi stops with "Could not find CUDA installation" without one;
  torch.utils.cpp_extension.CUDA_HOME answers the same root under torchada.
* ``_get_cuda_target`` (lines 193-236) -> tvm-ffi's own answer when
  ``TVM_FFI_CUDA_ARCH_LIST`` is set, else nothing: it asks ``nvidia-smi`` otherwise, which a
  MUSA machine lacks; the MUSA arch flag comes from the cards instead (below).
* ``_generate_ninja_build`` -> tvm-ffi's text rewritten by ``porting.tvm_ffi_ninja``
  (nvcc -> mcc, -gencode -> --offload-arch, -lcudart/-lcuda -> -lmusart/-lmusa, CUDA
  include/library paths -> the MUSA toolkit's), or ``UntranslatableFlag`` naming the flag.

Off MUSA the area does not apply (manifest gate), so NVIDIA and CPU builds stay nvcc's.
Not done: porting the kernel sources (CUDA runtime names inside SGLang's .cuh files are
compiled as written; mcc's CUDA-compatible headers must cover them).

torch_musa APIs relied on: torch.musa.device_count / get_device_capability /
get_arch_list (the arch of the cards, as torch_musa's own loader picks it).
"""
import os
import shlex

from torchada.areas import _kit


def _arch_flags(torch):
    """``--offload-arch`` for the cards present, as torch_musa's loader picks it; when the
    compiled-arch list cannot be read, the current card's own capability."""
    from torchada.areas._kit import musa_flags

    chosen = musa_flags.arch_flags(torch)
    if chosen:
        return chosen
    try:
        major, minor = tuple(torch.musa.get_device_capability(torch.musa.current_device()))[:2]
    except Exception:  # no card answers: mcc's default target
        return []
    arch = "%d%d" % (major, minor)
    return ["--offload-arch=mp_" + arch] if arch in musa_flags.SUPPORTED_ARCHES else []


def _musa_paths():
    from torchada._core import musa_toolkit

    home = musa_toolkit.musa_home()
    if not home:
        raise RuntimeError("tvm-ffi needs a MUSA toolkit for .cu sources on this machine: "
                           "install it and set MUSA_HOME")
    lib = os.path.join(home, "lib64")
    return home, os.path.join(home, "include"), lib if os.path.isdir(lib) else \
        os.path.join(home, "lib")


def _cuda_roots(home):
    """CUDA toolkit directories whose -I / -L tvm-ffi (or a dependency) may pass."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    return [r for r in roots if r] + [home]


def apply(ctx):
    import torch
    import tvm_ffi.cpp.extension as ext

    from torchada.porting import tvm_ffi_ninja

    original_generate = ext._generate_ninja_build
    original_target = ext._get_cuda_target

    def _find_cuda_home():
        return _musa_paths()[0]

    @_kit.wraps(original_target)
    def _get_cuda_target():
        return original_target() if "TVM_FFI_CUDA_ARCH_LIST" in os.environ else ""

    @_kit.wraps(original_generate)
    def _generate_ninja_build(*args, **kwargs):
        if kwargs.get("backend") == "hip":  # a ROCm build asked for by name: not ours
            return original_generate(*args, **kwargs)
        text = original_generate(*args, **kwargs)
        if "\nnvcc = " not in text:  # no .cu source: nothing for the device compiler
            return text
        from torchada._core import musa_toolkit

        home, include, libdir = _musa_paths()
        return tvm_ffi_ninja.translate(
            text, mcc=" ".join(shlex.quote(p) for p in musa_toolkit.find_mcc()),
            arch_flags=_arch_flags(torch), cuda_roots=_cuda_roots(home),
            musa_include=include, musa_libdir=libdir)

    ctx.setattr(ext, "_find_cuda_home", _find_cuda_home)
    ctx.setattr(ext, "_get_cuda_target", _get_cuda_target)
    ctx.setattr(ext, "_generate_ninja_build", _generate_ninja_build)
    ctx.note("tvm-ffi build.ninja files are written for mcc (%s)"
             % (" ".join(_arch_flags(torch)) or "mcc's default target"))
