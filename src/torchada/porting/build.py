"""Build integration: CUDAExtension / BuildExtension / load on MUSA.

Used by torchada.areas.cpp_extension (which installs these on torch.utils.cpp_extension
through the journal). Everything that needs torch imports it inside the function.

Compiler and flags (evidence: torch_musa/utils/musa_extension.py): the MUSA compiler is
``mcc`` under MUSA_HOME/bin (PYTORCH_MCC overrides); arch flags are
``--offload-arch=mp_XX`` (supported 10, 21, 22, 31, 32); extensions link c10, torch,
torch_cpu, torch_python and musa_python (torch_musa/lib) plus musart. A ``.cu`` file keeps
its name and is compiled with ``-x musa``.
"""
import contextlib
import logging
import os
import re
import shlex
import shutil
import sys
import warnings

from torchada.detection import musa_home  # noqa: F401 (one definition; re-exported here)

logger = logging.getLogger("torchada")

MUSA_SOURCE_EXTS = (".cu", ".mu")
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


def find_mcc():
    """The MUSA compiler command (a list: PYTORCH_MCC may hold a launcher such as ccache)."""
    if os.environ.get("PYTORCH_MCC"):
        return shlex.split(os.environ["PYTORCH_MCC"])
    home = musa_home()
    if home and os.path.isfile(os.path.join(home, "bin", "mcc")):
        return [os.path.join(home, "bin", "mcc")]
    found = shutil.which("mcc")
    if found:
        return [found]
    raise RuntimeError("the MUSA compiler mcc was not found: install the MUSA toolkit and set "
                       "MUSA_HOME (or put mcc on PATH, or set PYTORCH_MCC)")


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
        from torchada.naming import cuda_to_musa_name

        name, sep, value = flag[2:].partition("=")
        return flag[:2] + cuda_to_musa_name(name) + sep + value
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


def torch_musa_dir():
    """Directory of the torch_musa package (without importing it), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch_musa")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def musa_include_paths():
    paths = []
    tm = torch_musa_dir()
    if tm:
        share = os.path.join(tm, "share", "generated_cuda_compatible")
        for sub in ("aten/src", "include", "include/torch/csrc/api/include"):
            if os.path.isdir(os.path.join(share, sub)):
                paths.append(os.path.join(share, sub))
        paths.append(os.path.dirname(tm))  # so "torch_musa/csrc/..." resolves
    home = musa_home()
    if home:
        paths.append(os.path.join(home, "include"))
    mudnn = os.environ.get("MUDNN_HOME") or os.environ.get("MUDNN_PATH")
    if mudnn:
        paths.append(os.path.join(mudnn, "include"))
    return paths


def musa_library_paths():
    paths = []
    tm = torch_musa_dir()
    if tm:
        paths.append(os.path.join(tm, "lib"))
    home = musa_home()
    if home:
        lib = os.path.join(home, "lib64")
        paths.append(lib if os.path.isdir(lib) else os.path.join(home, "lib"))
    mudnn = os.environ.get("MUDNN_HOME") or os.environ.get("MUDNN_PATH")
    if mudnn:
        paths.append(os.path.join(mudnn, "lib"))
    return paths


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


# -- porting the project's sources at build time --------------------------------------------

_PORTED = set()


def project_dirs(extension, project_root, exclude=None):
    """Project-local directories to port for one extension: the directories of its
    sources (always eligible: they were given explicitly) and its include_dirs that lie
    inside ``project_root`` and are not excluded by TORCHADA_EXCLUDE_DIRS (an include
    directory of a vendored dependency is left alone when its path or a component of it
    is excluded)."""
    from .walker import exclusions_from_env

    ex_paths, ex_names = exclude if exclude is not None else exclusions_from_env()
    root = os.path.realpath(project_root)
    dirs = []
    for src in extension.sources:
        dirs.append(os.path.dirname(os.path.abspath(src)))
    for inc in extension.include_dirs or ():
        real = os.path.realpath(os.path.abspath(inc))
        rel_parts = os.path.relpath(real, root).split(os.sep)
        if any(real == p or real.startswith(p + os.sep) for p in ex_paths):
            continue
        if any(part in ex_names for part in rel_parts):
            continue
        dirs.append(real)
    out = []
    for d in dirs:
        real = os.path.realpath(d)
        if (real == root or real.startswith(root + os.sep)) and os.path.isdir(real) \
                and real not in out:
            out.append(real)
    # drop directories nested in another listed one
    out.sort()
    kept = []
    for d in out:
        if not any(d.startswith(k + os.sep) for k in kept):
            kept.append(d)
    return kept


def port_extension_sources(extension, project_root):
    from .walker import port_paths

    dirs = [d for d in project_dirs(extension, project_root) if d not in _PORTED]
    if not dirs:
        return None
    report = port_paths(dirs)
    _PORTED.update(dirs)
    for path, line, f in report.findings():
        logger.warning("%s:%d: %s: %s", path, line, f.kind, f.message)
    if report.changed:
        logger.info("torchada: ported %d CUDA source files to MUSA in place "
                    "(torchada port --revert %s restores them)",
                    len(report.changed), " ".join(dirs))
    return report


def make_build_extension(base):
    """A BuildExtension subclass of torch's ``base`` that ports and compiles for MUSA."""
    from setuptools.command.build_ext import build_ext

    class BuildExtension(base):
        """torch.utils.cpp_extension.BuildExtension on MUSA (installed by torchada):
        ports project-local CUDA sources in place, compiles .cu/.mu with mcc, C++ with the
        host compiler, links the MUSA libraries."""

        def build_extensions(self):
            from torchada.utils.cpp_extension import stable_overlay_dirs

            project_root = os.getcwd()
            overlay = stable_overlay_dirs()
            for ext in self.extensions:
                port_extension_sources(ext, project_root)
                _add_define(ext, "TORCH_API_INCLUDE_EXTENSION_H")
                _add_define(ext, "TORCH_EXTENSION_NAME=%s" % ext.name.split(".")[-1])
                ext.include_dirs = overlay + [d for d in ext.include_dirs if d not in overlay]
            for suffix in (".cu", ".cuh", ".mu", ".muh"):
                if suffix not in self.compiler.src_extensions:
                    self.compiler.src_extensions.append(suffix)
            original = self.compiler._compile
            compiler = self.compiler

            def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
                post = extra_postargs
                if os.path.splitext(src)[1] in MUSA_SOURCE_EXTS:
                    mcc_flags = post.get("mcc", []) if isinstance(post, dict) else list(post or [])
                    cmd = find_mcc()
                    if src.endswith(".cu"):
                        cmd += ["-x", "musa"]
                    cmd += list(pp_opts) + ["-c", src, "-o", obj, "-fPIC"] + list(mcc_flags)
                    if not any(f.startswith("-std") for f in mcc_flags):
                        cmd.append("-std=c++17")
                    compiler.spawn(cmd)
                    return
                cflags = post.get("cxx", []) if isinstance(post, dict) else list(post or [])
                if not any(f.startswith("-std") for f in cflags):
                    cflags = cflags + ["-std=c++17"]
                original(obj, src, ext, cc_args, cflags, pp_opts)

            compiler._compile = _compile
            try:
                build_ext.build_extensions(self)
            finally:
                compiler._compile = original

    BuildExtension.__qualname__ = BuildExtension.__name__
    return BuildExtension


def _extra(ext):
    if not isinstance(ext.extra_compile_args, dict):
        ext.extra_compile_args = {"cxx": list(ext.extra_compile_args or []),
                                  "mcc": list(ext.extra_compile_args or [])}
    ext.extra_compile_args.setdefault("cxx", [])
    ext.extra_compile_args.setdefault("mcc", [])
    return ext.extra_compile_args


def _add_define(ext, define):
    flag = "-D" + define
    for kind in ("cxx", "mcc"):
        if flag not in _extra(ext)[kind]:
            _extra(ext)[kind].append(flag)


# -- JIT builds under flock ------------------------------------------------------------------

def lock_path(name):
    from .walker import cache_dir

    d = os.path.join(cache_dir(create=True), "locks")
    if not os.path.isdir(d):
        os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return os.path.join(d, safe + ".lock")


_FLOCK_WARNED = []


@contextlib.contextmanager
def build_lock(name, build_directory=None):
    """Hold an exclusive flock for building extension ``name``.

    flock is released by the kernel when its holder dies, so a builder killed mid-build
    never blocks the next one. Inside the lock nobody else is building ``name``, so a
    torch FileBaton ``lock`` file left in ``build_directory`` by a killed builder is stale
    and is removed. Without flock (Windows, some network file systems): one warning, and
    torch's own behaviour.
    """
    try:
        import fcntl
    except ImportError:
        fcntl = None
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(lock_path(name), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            if fd is not None:
                os.close(fd)
            fd = None
            _warn_no_flock(str(exc))
    else:
        _warn_no_flock("fcntl is not available on this platform")
    try:
        if fd is not None and build_directory:
            stale = os.path.join(build_directory, "lock")
            if os.path.exists(stale):
                logger.warning("torchada: removing stale build lock %s left by a killed build",
                               stale)
                try:
                    os.unlink(stale)
                except OSError:
                    pass
        yield fd is not None
    finally:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def _warn_no_flock(reason):
    if not _FLOCK_WARNED:
        _FLOCK_WARNED.append(True)
        warnings.warn("torchada: file locking (flock) is unavailable (%s); JIT extension "
                      "builds use torch's own lock" % reason, RuntimeWarning, stacklevel=3)


def locked_load(original, get_build_directory):
    """Wrap torch.utils.cpp_extension.load / load_inline to build under build_lock.
    The wrapper keeps the original's signature (functools.wraps)."""
    import functools
    import inspect

    try:
        signature = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        name, build_directory = None, None
        if signature is not None:
            try:
                bound = signature.bind_partial(*args, **kwargs).arguments
                name = bound.get("name")
                build_directory = bound.get("build_directory")
            except TypeError:
                pass
        if not isinstance(name, str):
            return original(*args, **kwargs)
        if build_directory is None:
            try:
                build_directory = get_build_directory(name, False)
            except Exception:
                build_directory = None
        with build_lock(name, build_directory):
            return original(*args, **kwargs)

    wrapper.__torchada_wrapped__ = original
    return wrapper
