"""torchada's own JIT-built extensions: built once per source and platform, verified at load.

Every native piece (the graph-executable primitive, the compiled operator overrides) builds
here, through ``torchada._core.native_cache``: its name hashes its sources with the machine,
the interpreter's ABI, the compiler, torch's and torch_musa's versions; it is built in a
private temporary folder of a trusted cache and renamed into place beside its digest, under
``_core.build_lock`` (an flock the kernel drops when its holder dies: a killed build never
blocks the next process, and concurrent processes compile once). The compiler runs in a child
interpreter (torch's loader imports what it builds; this process must not load an unchecked
file, its builder's own output included). A library is loaded from the user's cache, else
from the system cache a deploy step filled (``torchada build --system``), else built into
the user's: always through ``native_cache.opened`` (owner, mode and digest checked on the open
file that is loaded). An untrusted or unwritable cache is refused (NativeUnavailable naming
the folder and the fix; the caller warns once and takes its fallback).
``TORCHADA_CPP_OPS_VERBOSE=1`` prints the build log. On MUSA every build goes through
torch_musa's extension loader (``.mu`` sources compiled by the toolkit's ``mcc`` for the
cards present; ``musa_flags`` says which flags and why); on the simulator the host compiler
builds the ``.cpp`` sources only.
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

from torchada._core.settings import read
from torchada.areas._kit import musa_flags

VERBOSE_VAR = "TORCHADA_CPP_OPS_VERBOSE"
LOCK_TIMEOUT_S = 900
# Names this process compiled (rather than found built): `torchada build` reports them.
COMPILED = set()


class NativeUnavailable(RuntimeError):
    """An extension could not be built or loaded; the message says why (for a refused
    cache: the folder and the fix)."""


def simulated():
    return getattr(sys.modules.get("torch_musa"), "_sim", None) is not None


def build_name(prefix, sources, torch_version):
    """``<prefix>_<12 hex digits>`` of ``torch_version`` (any text naming what the build
    depends on besides its sources) and the sources' bytes: the cache's one key hash
    (``native_cache.source_key``), cut to the length these names always had."""
    from torchada._core import native_cache

    return "%s_%s" % (prefix, native_cache.source_key(sources, [torch_version])[:12])


def _musa_flags():
    from torchada._core import musa_toolkit as toolkit

    includes = toolkit.musa_include_paths()
    libraries = ["-L%s" % path for path in toolkit.musa_library_paths()]
    return includes, libraries + ["-lmusart"]


# The child that compiles: torch_musa's ``load`` for MUSA builds, else torch's (both import
# the result: that happens in the child, which then exits).
_COMPILE_CHILD = """
import json, sys
args = json.loads(sys.argv[1])
if args.pop("torch_musa"):
    from torch_musa.utils.musa_extension import load
else:
    from torch.utils.cpp_extension import load
load(**args)
"""


def _compile(name, sources, work, musa_loader, verbose, **kwargs):
    """Build ``name`` into ``work`` in a child interpreter with torchada off (its start-up
    must not wait on the lock this process holds, nor wrap torch's loader); the built
    file's path. RuntimeError with the compiler's last words when it fails."""
    args = dict(name=name, sources=list(sources), build_directory=work, verbose=verbose,
                torch_musa=musa_loader, **kwargs)
    env = {k: v for k, v in os.environ.items() if k != "TORCHADA_SIMULATE_MUSA"}
    env["TORCHADA_PLATFORM"] = "off"
    quiet = not verbose
    proc = subprocess.run([sys.executable, "-X", "torchada=off", "-c", _COMPILE_CHILD,
                           json.dumps(args)], env=env, timeout=LOCK_TIMEOUT_S, text=True,
                          stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.STDOUT if quiet else None)
    if proc.returncode != 0:
        words = [line for line in (proc.stdout or "").strip().splitlines() if line.strip()]
        raise RuntimeError("the compiler's child exited with status %d: %s"
                           % (proc.returncode, (words or ["no output"])[-1]))
    return os.path.join(work, name + ".so")


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


def _import_extension(name, library):
    """Import the extension module ``name`` from the checked open file of ``library``."""
    from torchada._core import native_cache

    from torchada.areas._kit import background

    with background.torch_work():  # loading registers into torch: not cut off by exit
        with native_cache.opened(library) as loadable:
            loader = importlib.machinery.ExtensionFileLoader(name, loadable)
            spec = importlib.util.spec_from_file_location(name, loadable, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
    module.__file__ = library  # the name users and `torchada build` read, not the fd's
    return module


def build(prefix, sources, what, headers=(), name=None, musa=True, detach=None,
          remember_failure=False, force=False):
    """The loaded extension module built from ``sources`` (absolute paths). ``headers`` are
    hashed into the name too; ``name`` overrides the derived one; ``musa=False`` builds
    without the MUSA toolkit's headers and runtime. The library is found (the user's cache,
    then the system's) or built into the user's cache, and loaded only through its checked
    open file, by its builder too. Raises NativeUnavailable naming ``what`` and the reason.
    ``detach`` (a ``detached.PIECES`` name): compile in the detached builder of that piece
    and wait for it here (on the caller's background thread). ``remember_failure``: a failed
    build is not retried with the same key (``native_cache.fetch``) unless ``force``."""
    import torch

    from torchada._core import build_lock, files, native_cache

    on_musa = musa and not simulated()
    device = any(s.endswith(".mu") for s in sources)
    waited = False   # whether a build ran (in the detached builder) while this call waited
    try:
        # torch_musa's loader for every MUSA build, with the flags musa_flags explains.
        extra = musa_flags.loader_kwargs(torch, device) if on_musa else {}
        name = name or build_name(prefix, list(sources) + list(headers), "\n".join(
            key_fields(torch, device) + extra.get("extra_musa_cflags", [])))
        includes, ldflags = _musa_flags() if on_musa else ([], [])
        includes = includes + sorted({os.path.dirname(h) for h in headers})

        def build_into(work):
            built = _compile(name, sources, work, device or on_musa, read(VERBOSE_VAR),
                             extra_include_paths=includes, extra_ldflags=ldflags, **extra)
            COMPILED.add(name)
            return built

        library = native_cache.find(("build", name), name + ".so")
        if library is None:
            directory = native_cache.trusted_dir("build", name)
            lock = build_lock.lock_path(name)
            if detach is not None and not force:
                from torchada.areas._kit import detached

                waited = detached.await_build(detach, directory,
                                              os.path.join(directory, name + ".so"), lock,
                                              LOCK_TIMEOUT_S)
            library = native_cache.fetch(directory, name + ".so", build_into, what,
                                         lock=lock, timeout=LOCK_TIMEOUT_S,
                                         remember_failure=remember_failure, force=force)
        return _import_extension(name, library)
    except native_cache.CacheRefused as exc:  # the caller's one warning carries the fix
        raise NativeUnavailable("%s is not built or loaded from a cache it cannot trust: %s"
                                % (what, exc)) from exc
    except files.LockTimeout as exc:
        raise NativeUnavailable("%s did not build: %s" % (what, exc)) from exc
    except native_cache.BuildFailed as exc:  # the marker's reason, and how to retry
        if waited:  # the build this process waited for is the one that failed
            raise NativeUnavailable("%s did not build: %s (not retried with this key until "
                                    "`torchada build` runs)" % (what, exc.why)) from exc
        raise NativeUnavailable(str(exc)) from exc
    except native_cache.BadLibrary as exc:
        raise NativeUnavailable("%s is not loaded: %s" % (what, exc)) from exc
    except Exception as exc:  # a compiler, header or loader failure: the caller reports it
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise NativeUnavailable("%s did not build: %s: %s (TORCHADA_CPP_OPS_VERBOSE=1 shows "
                                "the build log)" % (what, type(exc).__name__, first[0][:300])
                                ) from exc
