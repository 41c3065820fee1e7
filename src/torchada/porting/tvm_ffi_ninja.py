"""A tvm-ffi ``build.ninja`` (SGLang's JIT kernels) rewritten for the MUSA compiler.

tvm-ffi's C++ builder writes one ninja file per module and runs ``ninja -v`` on it
(apache/tvm-ffi @620fece9, python/tvm_ffi/cpp/extension.py: ``_generate_ninja_build``
lines 367-625, ``build_ninja`` lines 628-650). Its CUDA part is five lines, each rewritten
here, the rest (host compiler, tvm_ffi's own include and library) kept as written:

* ``nvcc = <CUDA_HOME>/bin/nvcc`` (line 476) -> the mcc command (``PYTORCH_MCC`` first,
  as torch_musa's ninja writer does: torch_musa @8b583b3 musa_extension.py:133-139).
* ``cuda_cflags`` (lines 438-446, 451): ``-gencode``/``-arch`` -> ``--offload-arch=mp_XY``
  for the cards present (musa_extension.py:836 spells it so), nvcc options through the same
  table CUDAExtension builds use (``porting.flags``), CUDA toolkit ``-I`` -> the MUSA one,
  and one ``-std`` (the last) where tvm-ffi's default and the caller's both appear.
* ``rule compile_cuda``'s nvcc-only dependency options (lines 504-512) -> ``-x musa -MMD
  -MF $out.d``: the rule torch_musa writes for a ``.cu`` given to mcc (musa_extension.py:
  156-159); without ``-x musa`` mcc would take a ``.cu`` for a host file.
* ``ldflags`` (lines 443-446): the CUDA toolkit's ``-L`` -> the MUSA toolkit's library
  directory (lib64, else lib: musa_extension.py:896-907), ``-lcudart`` / ``-lcuda`` ->
  ``-lmusart`` / ``-lmusa`` and the other CUDA libraries through the library table.

What cannot be built from source for MUSA stops with ``UntranslatableFlag``, which names
the flag and the way out. Each flag dropped is written into the file as a comment, with why.
"""
import os
import re

from . import flags as _flags

# nvcc output kinds with no MUSA counterpart: the caller wants NVIDIA's own formats.
_NVIDIA_OUTPUTS = {"-ptx": "PTX", "--ptx": "PTX", "-cubin": "a cubin", "--cubin": "a cubin",
                   "-fatbin": "a fatbinary", "--fatbin": "a fatbinary",
                   "-dlink": "an NVIDIA device link", "--device-link": "an NVIDIA device link"}

_WHY = {
    "--expt-relaxed-constexpr": "nvcc needs it to call constexpr host functions on the "
    "device; clang-based compilers treat constexpr functions as host+device by default",
    "--expt-extended-lambda": "nvcc's switch for __device__ lambdas; not an mcc option",
}
_WHY_DEFAULT = "nvcc-only option with no mcc meaning (the table CUDAExtension builds use)"
_DEPS_NVCC = "--generate-dependencies-with-compile --dependency-output $out.d"
_DEPS_MCC = "-x musa -MMD -MF $out.d"
_ARCH = re.compile(r"^-(?:gencode|-generate-code|arch|-gpu-architecture|code|-gpu-code)\b")


class UntranslatableFlag(RuntimeError):
    """A flag of the build that has no MUSA translation."""

    def __init__(self, flag, meaning, fix):
        self.flag = flag
        super().__init__("tvm-ffi build flag %r asks for %s, which mcc cannot produce: %s"
                         % (flag, meaning, fix))


_FIX = ("remove it from extra_cuda_cflags (mcc builds the kernel from its .cu source), or "
        "switch this translation off with TORCHADA_DISABLE_AREAS=tvm_ffi_build on a machine "
        "that has nvcc")


def _under(path, roots):
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def _includes(tokens, cuda_roots, musa_include):
    """-I of a CUDA toolkit -> the MUSA toolkit's include directory (once)."""
    out = []
    for tok in tokens:
        if tok.startswith("-I") and _under(tok[2:].replace("$:", ":"), cuda_roots):
            tok = "-I" + musa_include
            if tok in out:
                continue
        out.append(tok)
    return out


def translate_cuda_cflags(tokens, arch_flags, cuda_roots, musa_include):
    """(mcc flags, [(dropped flag, why)]) for tvm-ffi's ``cuda_cflags`` tokens."""
    tokens = [t for t in tokens if t]
    for tok in tokens:
        if tok in _NVIDIA_OUTPUTS:
            raise UntranslatableFlag(tok, _NVIDIA_OUTPUTS[tok], _FIX)
    gencode = [t for t in tokens if _ARCH.match(t)]
    mcc, _archs, dropped = _flags.translate_nvcc_flags(tokens)
    notes = [(t, "replaced by %s, the arch of the cards present"
              % (" ".join(arch_flags) or "mcc's default target")) for t in gencode]
    notes += [(t, _WHY.get(t, _WHY_DEFAULT)) for t in dropped]
    mcc, extra = _one_std(mcc)
    return _includes(mcc, cuda_roots, musa_include) + list(arch_flags), notes + extra


def _one_std(tokens):
    """Only the last -std= kept: mcc refuses more than one (torch_musa @8b583b3
    musa_extension.py:607), and the last is the one nvcc honoured. tvm-ffi always passes
    -std=c++17 and SGLang adds -std=c++20 after it."""
    stds = [i for i, t in enumerate(tokens) if t.startswith("-std=")]
    drop = set(stds[:-1])
    notes = [(tokens[i], "mcc accepts one -std; %s comes later" % tokens[stds[-1]])
             for i in sorted(drop)]
    return [t for i, t in enumerate(tokens) if i not in drop], notes


def translate_ldflags(tokens, cuda_roots, musa_libdir):
    out = []
    for tok in tokens:
        if tok.startswith("-L") and _under(tok[2:].replace("$:", ":"), cuda_roots):
            tok = "-L" + musa_libdir
        elif tok.startswith("-l"):
            renamed = _flags.translate_libraries([tok[2:]])
            if not renamed:  # a CUDA library whose role musart takes (c10_cuda, nvrtc, ...)
                continue
            tok = "-l" + renamed[0]
        if tok not in out or not tok.startswith(("-L", "-l")):
            out.append(tok)
    return out


def translate(text, *, mcc, arch_flags, cuda_roots, musa_include, musa_libdir):
    """The build.ninja text for mcc. ``cuda_roots``: the CUDA toolkit directories whose
    include / library paths are replaced; ``mcc``: the compiler command as one string."""
    if re.search(r"^rule embed_cubin$", text, re.M):
        raise UntranslatableFlag("embed_cubin", "an NVIDIA cubin linked into the module",
                                 "pass the kernel's .cu source instead of a prebuilt cubin")
    roots = [os.path.realpath(r) for r in cuda_roots if r]
    out, notes = [], []
    for line in text.split("\n"):
        key, sep, value = line.partition(" = ")
        if sep and key == "nvcc":
            line = "nvcc = " + mcc
        elif sep and key == "cuda_cflags":
            toks, notes = translate_cuda_cflags(value.split(), arch_flags, roots, musa_include)
            line = "cuda_cflags = " + " ".join(toks)
        elif sep and key in ("cflags", "cxxflags"):
            line = key + " = " + " ".join(_includes(value.split(), roots, musa_include))
        elif sep and key == "ldflags":
            line = "ldflags = " + " ".join(translate_ldflags(value.split(), roots, musa_libdir))
        elif line.startswith("  command = $nvcc"):
            line = "  command = $nvcc " + line[len("  command = $nvcc"):].strip().replace(
                _DEPS_NVCC, _DEPS_MCC, 1)
        out.append(line)
    header = ["# torchada: dropped %s (%s)" % (flag, why) for flag, why in notes]
    return "\n".join(header + out)
