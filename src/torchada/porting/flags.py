"""nvcc flags, arch lists and link libraries of a CUDA build, translated for mcc.

Arch flags are ``--offload-arch=mp_XX`` (supported 10, 21, 22, 31, 32); extensions link c10,
torch, torch_cpu, torch_python and musa_python (torch_musa/lib) plus musart (evidence:
torch_musa/utils/musa_extension.py)."""
import os
import re

SUPPORTED_MUSA_ARCHS = ("10", "21", "22", "31", "32")

# Libraries of a CUDA build -> MUSA; None drops the library (its role is taken by
# musa_python, which every MUSA extension links).
_RUNTIME_LIBRARIES = {
    "cudart": "musart", "cudart_static": "musart", "cuda": "musa", "c10_cuda": None,
    "torch_cuda": None, "torch_cuda_cu": None, "torch_cuda_cpp": None, "nvrtc": None,
    "nvToolsExt": None,
}
MUSA_EXTENSION_LIBRARIES = ("c10", "torch", "torch_cpu", "torch_python", "musa_python", "musart")

# nvcc-only flags with no mcc meaning: dropped (with their argument when they take one).
_DROP_FLAGS = {"--expt-relaxed-constexpr", "--expt-extended-lambda", "-expt-relaxed-constexpr",
               "-expt-extended-lambda", "--extended-lambda", "-lineinfo", "--use-local-env",
               "--resource-usage", "-Xfatbin", "--keep", "-keep", "--ftz=true", "--ftz=false",
               "--prec-div=false", "--prec-sqrt=false", "--fmad=true", "--fmad=false",
               "-Wno-deprecated-gpu-targets", "--disable-warnings", "--source-in-ptx", "-rdc=true",
               "--relocatable-device-code=true"}
_DROP_WITH_ARG = {"-Xptxas", "--ptxas-options", "--threads", "-t", "-ccbin", "--compiler-bindir",
                  "-Xnvlink", "--nvlink-options", "--maxrregcount", "-maxrregcount", "--split-compile",
                  "-diag-suppress", "--diag-suppress", "-Xcudafe"}
_RENAME_FLAGS = {"--use_fast_math": "-ffast-math", "-use_fast_math": "-ffast-math"}
_ARCH_RE = re.compile(r"(?:compute|sm|lto)_(\d+)[a-z]?")


def translate_nvcc_flags(flags):
    """nvcc flags -> (mcc flags, MUSA archs named by -gencode/-arch, dropped flags)."""
    out, archs, dropped = [], [], []
    flags = list(flags or ())
    i = 0
    while i < len(flags):
        flag = flags[i]
        nxt = flags[i + 1] if i + 1 < len(flags) else None
        if flag in ("-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code",
                    "--gpu-code") and nxt is not None:
            archs += _archs_in(nxt)
            i += 2
            continue
        if flag.startswith(("-gencode=", "--generate-code=", "-arch=", "--gpu-architecture=",
                            "-code=", "--gpu-code=")):
            archs += _archs_in(flag.split("=", 1)[1])
        elif flag in ("-Xcompiler", "--compiler-options") and nxt is not None:
            out += [f for f in nxt.split(",") if f]
            i += 2
            continue
        elif flag.startswith(("-Xcompiler=", "--compiler-options=")):
            out += [f for f in flag.split("=", 1)[1].split(",") if f]
        elif flag in _DROP_WITH_ARG and nxt is not None:
            dropped += [flag, nxt]
            i += 2
            continue
        elif flag in _DROP_FLAGS or flag.split("=", 1)[0] in _DROP_WITH_ARG or \
                re.match(r"^-[DU]__CUDA_NO_", flag):
            dropped.append(flag)
        elif flag in _RENAME_FLAGS:
            out.append(_RENAME_FLAGS[flag])
        else:
            out.append(_port_flag(flag))
        i += 1
    return out, sorted(set(archs)), dropped


def _archs_in(value):
    from .rules.cuda_arch import offload_arch_for

    return [offload_arch_for(m.group(1))[3:] for m in _ARCH_RE.finditer(value)]


def _port_flag(flag):
    """-DFOO_CUDA=1 style macro flags keep working: only known CUDA names are renamed."""
    if flag.startswith(("-D", "-U")) and len(flag) > 2:
        from .names import convert

        name, sep, value = flag[2:].partition("=")
        return flag[:2] + convert(name) + sep + value
    return flag


def arch_list(environ=None):
    """MUSA archs from TORCH_MUSA_ARCH_LIST ("21;22;31"), else TORCH_CUDA_ARCH_LIST
    ("8.0;9.0+PTX") translated through the arch table; [] when neither is set."""
    from .rules.cuda_arch import offload_arch_for

    environ = os.environ if environ is None else environ
    raw = environ.get("TORCH_MUSA_ARCH_LIST", "").strip()
    if raw:
        archs = [a.strip().replace(".", "") for a in re.split(r"[;, ]+", raw) if a.strip()]
        bad = [a for a in archs if a not in SUPPORTED_MUSA_ARCHS]
        if bad:
            raise ValueError("TORCH_MUSA_ARCH_LIST has unsupported archs %s; accepted: %s"
                             % (bad, ", ".join(SUPPORTED_MUSA_ARCHS)))
        return sorted(set(archs))
    raw = environ.get("TORCH_CUDA_ARCH_LIST", "").strip()
    out = []
    for item in re.split(r"[;, ]+", raw):
        m = re.match(r"^(\d+)\.(\d+)", item.strip())
        if m:
            out.append(offload_arch_for(int(m.group(1)) * 10 + int(m.group(2)))[3:])
    return sorted(set(out))


def arch_flags(archs):
    return ["--offload-arch=mp_%s" % a for a in archs]


def translate_libraries(libraries):
    from .rules import tables

    table = tables().libraries
    out = []
    for lib in libraries or ():
        if lib in _RUNTIME_LIBRARIES:
            lib = _RUNTIME_LIBRARIES[lib]
        elif lib in table:
            lib = table[lib][0]
        if lib and lib not in out:
            out.append(lib)
    return out


def extension_kwargs(kwargs, include_paths, library_paths):
    """CUDAExtension keyword arguments rewritten for a MUSA build."""
    kwargs = dict(kwargs)
    kwargs["include_dirs"] = list(kwargs.get("include_dirs") or []) + include_paths
    kwargs["library_dirs"] = list(kwargs.get("library_dirs") or []) + library_paths
    libraries = translate_libraries(kwargs.get("libraries"))
    for lib in MUSA_EXTENSION_LIBRARIES:
        if lib not in libraries:
            libraries.append(lib)
    kwargs["libraries"] = libraries
    args = kwargs.get("extra_compile_args")
    if isinstance(args, dict):
        args = dict(args)
    else:
        args = {"cxx": list(args or []), "nvcc": list(args or [])}
    mcc, archs, _ = translate_nvcc_flags(args.pop("nvcc", []))
    if not any(f.startswith("--offload-arch") for f in args.get("mcc", [])):
        mcc += arch_flags(archs or arch_list())
    args["mcc"] = list(args.get("mcc", [])) + mcc
    args["cxx"] = list(args.get("cxx", []))
    kwargs["extra_compile_args"] = args
    kwargs.setdefault("language", "c++")
    return kwargs
