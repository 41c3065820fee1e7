"""torchada's own JIT-built extensions: built once per source and platform, verified at load.

Every native piece (the graph-executable primitive, the compiled operator overrides) builds
here, through ``torchada._core.native_cache``: its name hashes its sources with the machine,
the interpreter's ABI, the compiler, torch's and torch_musa's versions; it is built in a
private temporary folder of a trusted cache and renamed into place beside its digest, under
``_core.build_lock`` (an flock the kernel drops when its holder dies: a killed build never
blocks the next process, and concurrent processes compile once); the digest, owner and mode
are checked before every load. An untrusted or unwritable cache is refused (NativeUnavailable
naming the folder and the fix; the caller warns once and takes its fallback).
``TORCHADA_CPP_OPS_VERBOSE=1`` prints the build log. On MUSA every build goes through
torch_musa's extension loader (``.mu`` sources compiled by the toolkit's ``mcc`` for the
cards present; ``musa_flags`` says which flags and why); on the simulator the host compiler
builds the ``.cpp`` sources only.
"""
import hashlib
import importlib.machinery
import importlib.util
import os
import sys

from torchada._core.settings import read
from torchada.areas._kit import musa_flags

VERBOSE_VAR = "TORCHADA_CPP_OPS_VERBOSE"
LOCK_TIMEOUT_S = 900


class NativeUnavailable(RuntimeError):
    """An extension could not be built or loaded; the message says why (for a refused
    cache: the folder and the fix)."""


def simulated():
    return getattr(sys.modules.get("torch_musa"), "_sim", None) is not None


def build_name(prefix, sources, torch_version):
    """``<prefix>_<12 hex digits>`` of ``torch_version`` (any text naming what the build
    depends on besides its sources) and the sources' bytes."""
    digest = hashlib.sha256(torch_version.encode())
    for source in sources:
        with open(source, "rb") as f:
            digest.update(f.read())
    return "%s_%s" % (prefix, digest.hexdigest()[:12])


def _musa_flags():
    from torchada._core import musa_toolkit as toolkit

    includes = toolkit.musa_include_paths()
    libraries = ["-L%s" % path for path in toolkit.musa_library_paths()]
    return includes, libraries + ["-lmusart"]


def _loader(has_device_sources):
    """torch_musa's ``load`` for MUSA builds, else torch's. The cpp_extension area may
    wrap torch's with this same lock: take the original, or the second flock of one file in
    this process would wait for ever."""
    if has_device_sources:
        from torch_musa.utils.musa_extension import load

        return load
    from torch.utils import cpp_extension

    return getattr(cpp_extension.load, "__torchada_wrapped__", cpp_extension.load)


def key_fields(torch, device_sources):
    """What the build depends on besides its sources (native_cache.platform_fields)."""
    from torchada._core import native_cache

    compilers = [native_cache.cxx_command()]
    if device_sources:
        from torchada._core import musa_toolkit

        try:
            compilers.append(musa_toolkit.find_mcc()[0])
        except RuntimeError:
            compilers.append("mcc")
    torch_musa = getattr(sys.modules.get("torch_musa"), "__version__", None)
    return native_cache.platform_fields(compilers, torch.__version__, torch_musa)


def _import_extension(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def build(prefix, sources, what, headers=(), name=None, musa=True):
    """The loaded extension module built from ``sources`` (absolute paths). ``headers`` are
    hashed into the name too; ``name`` overrides the derived one; ``musa=False`` builds
    without the MUSA toolkit's headers and runtime. A cached library is loaded only after
    its digest, owner and mode check out. Raises NativeUnavailable naming ``what`` and the
    reason."""
    import torch

    from torchada._core import build_lock, files, native_cache

    on_musa = musa and not simulated()
    device = any(s.endswith(".mu") for s in sources)
    built = []
    try:
        # torch_musa's loader for every MUSA build, with the flags musa_flags explains.
        extra = musa_flags.loader_kwargs(torch, device) if on_musa else {}
        name = name or build_name(prefix, list(sources) + list(headers), "\n".join(
            key_fields(torch, device) + extra.get("extra_musa_cflags", [])))
        includes, ldflags = _musa_flags() if on_musa else ([], [])
        includes = includes + sorted({os.path.dirname(h) for h in headers})
        load = _loader(device or on_musa)

        def build_into(work):
            built.append(load(name, list(sources), build_directory=work,
                              extra_include_paths=includes, extra_ldflags=ldflags,
                              verbose=read(VERBOSE_VAR), **extra))
            return os.path.join(work, name + ".so")

        directory = native_cache.trusted_dir("build", name)
        library = native_cache.fetch(directory, name + ".so", build_into, what,
                                     lock=build_lock.lock_path(name), timeout=LOCK_TIMEOUT_S)
        # The builder keeps the module its compiler just made (loaded from its private
        # folder); every other process loads the verified file.
        return built[0] if built else _import_extension(name, library)
    except native_cache.CacheRefused as exc:  # the caller's one warning carries the fix
        raise NativeUnavailable("%s is not built or loaded from a cache it cannot trust: %s"
                                % (what, exc)) from exc
    except files.LockTimeout as exc:
        raise NativeUnavailable("%s did not build: %s" % (what, exc)) from exc
    except Exception as exc:  # a compiler, header or loader failure: the caller reports it
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise NativeUnavailable("%s did not build: %s: %s (TORCHADA_CPP_OPS_VERBOSE=1 shows "
                                "the build log)" % (what, type(exc).__name__, first[0][:300])
                                ) from exc
