"""Builds (once) and loads the simulator's C++ backend.

The shared library is cached in ``<torchada's user cache>/sim_backend/<torch version>-<key>``
where the key hashes the sources (``SOURCES``, ``HEADERS``) and build recipe with the
machine, the interpreter's ABI, the C++ compiler (the ``c++`` on PATH, not ``CXX``: see
``_compiler``) and torch's version (``torchada._core.native_cache``). It is built in a
private temporary folder and renamed into place beside its digest; the folders are checked
(owned by this user, nobody else may write them, no symbolic links) and the digest, owner
and mode of the file are checked on the open file that is loaded (``native_cache.opened``).
A backend in the system cache (``torchada build --simulate --system``) is used when the
user's cache has none. Concurrent processes (pytest-xdist)
build it once, under torchada's flock.
The simulator cannot fall back (without the backend there is no simulated device): when the
cache is refused (untrusted, read-only, full) the backend is built in a private temporary
folder for this process, with one warning naming the cache folder and the fix; when that
fails too, a RuntimeError names the folder and the fix. A cut-short or changed cached file is
rebuilt, never loaded.
``TORCHADA_SIM_CACHE_DIR`` replaces the cache root (used by the cold-build benchmark).
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

from torchada._core import native_cache
from torchada._core.files import LockTimeout
from torchada._core.warn_once import warn_once

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "musa_sim.cpp")
# The translation units of the one library: the device, its quantized tensors, its memory
# shared between processes.
SOURCES = [SOURCE, os.path.join(_HERE, "musa_sim_quantized.cpp"),
           os.path.join(_HERE, "musa_sim_ipc.cpp")]
# Bump when the way the library is built changes (it is part of the cache key).
BUILD_RECIPE = "3"
LOCK_TIMEOUT_S = 900
LIB_NAME = "musa_sim_backend"
CACHE_SETTING = "TORCHADA_SIM_CACHE_DIR"
_loaded_path = None


HEADERS = [os.path.join(_HERE, "caching_model.h"), os.path.join(_HERE, "musa_sim_internal.h")]


def _source_hash() -> str:
    import torch

    fields = native_cache.platform_fields([_compiler()], torch.__version__)
    return native_cache.source_key([*SOURCES, *HEADERS], ["recipe=" + BUILD_RECIPE, *fields])


def cache_base() -> str | None:
    """The root the user chose (TORCHADA_SIM_CACHE_DIR), or None: torchada's user cache."""
    from torchada._core.settings import read

    return read(CACHE_SETTING)


def cache_root() -> str:
    base = cache_base()
    return os.path.join(os.path.abspath(base), "sim_backend") if base else \
        os.path.join(native_cache.cache_root(), "sim_backend")


def trusted_cache_dir(*parts: str) -> str:
    """``<cache_root>/<parts>`` after the trust checks (raises native_cache.CacheRefused)."""
    setting = CACHE_SETTING if cache_base() else "XDG_CACHE_HOME (or %s)" % CACHE_SETTING
    return native_cache.trusted_dir("sim_backend", *parts, root=cache_base(), setting=setting)


def cache_dir() -> str:
    import torch

    tag = torch.__version__.replace("+", "_")
    return os.path.join(cache_root(), f"{tag}-{_source_hash()}")


def library_path() -> str:
    return os.path.join(cache_dir(), LIB_NAME + ".so")


def _compiler() -> str:
    """The host's C++ compiler on PATH. Not ``CXX``: the real torch_musa's library comes
    built, and a CXX set for a program's own extensions (a test's failing or slow compiler
    included) must not rebuild the simulated device."""
    return shutil.which("c++") or shutil.which("g++") or "c++ (not found on PATH)"


def _compile_into(work: str, verbose: bool = False) -> None:
    """Runs in a child interpreter: cpp_extension.load also dlopens the result, and the
    registrations it makes must happen once per process, from the final path."""
    from torch.utils import cpp_extension

    cpp_extension.load(
        name=LIB_NAME,
        sources=SOURCES,
        # -ffp-contract=off: each floating-point operation rounded on its own on every host
        # (the quantized kernels reproduce the device's formulas operation by operation)
        extra_cflags=["-O1", "-w", "-ffp-contract=off"],
        build_directory=work,
        is_python_module=False,
        verbose=verbose,
    )


def _build_into(work: str, verbose: bool = False) -> str:
    """Compile in the private folder ``work``; the built file's path."""
    src_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SOURCE))))
    code = (f"import sys; sys.path.insert(0, {src_root!r}); "
            f"from torchada.testing._backend import _compile_into; _compile_into({work!r}, {verbose!r})")
    # The child must not activate torchada (its start-up hook could import the simulator,
    # which would wait for the lock this process holds).
    env = {k: v for k, v in os.environ.items() if k != "TORCHADA_SIMULATE_MUSA"}
    env["TORCHADA_PLATFORM"] = "off"
    env["CXX"] = _compiler()  # the compiler the key names
    try:
        proc = subprocess.run([sys.executable, "-X", "torchada=off", "-c", code],
                              capture_output=True, text=True, env=env, timeout=LOCK_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeError("the build could not run: %s" % exc) from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise RuntimeError(f"compiler exited with status {proc.returncode}:\n{tail}")
    return os.path.join(work, LIB_NAME + ".so")


def _failed(exc: BaseException, folder: str) -> RuntimeError:
    return RuntimeError(
        f"torchada simulator: building the C++ backend failed ({exc}). "
        f"Compiler: {_compiler()} (the c++ on PATH); cache dir: {folder} "
        f"(must be writable and your own; set {CACHE_SETTING} to use another).")


def cached_library() -> str:
    """The verified cached library, built into place when missing or bad: the backend's one
    build path (``native_cache.fetch``: the build lock, a private work folder, the digest),
    used by the simulator's start, `torchada build --simulate` and the cold-build benchmark.
    Only a refused cache builds elsewhere (``private_build``, for this process alone)."""
    directory = trusted_cache_dir(os.path.basename(cache_dir()))
    try:
        return native_cache.fetch(directory, LIB_NAME + ".so", _build_into,
                                  "the simulator's C++ backend", timeout=LOCK_TIMEOUT_S)
    except (native_cache.CacheRefused, LockTimeout):
        raise
    except Exception as exc:
        raise _failed(exc, directory) from exc


def private_build(what: str, build_into) -> str:
    """Build in a fresh private temporary folder (0o700, removed at exit) for this process
    only: the place the simulator trusts when its cache is refused."""
    work = tempfile.mkdtemp(prefix="torchada-sim-")
    atexit.register(shutil.rmtree, work, True)
    built = build_into(work)
    final = os.path.join(work, "lib", os.path.basename(built))
    os.mkdir(os.path.dirname(final), 0o700)
    native_cache.place(built, final)
    problem = native_cache.check(final)
    if problem is not None:
        raise RuntimeError("torchada simulator: %s built at %s %s" % (what, final, problem))
    return final


def verified_library() -> str:
    """The backend's path, checked: from the user's cache, else the system cache
    (``torchada build --simulate --system``), else built into the user's cache, or built for
    this process when that cache is refused. Raises RuntimeError naming the folder and the
    fix when none works."""
    found = native_cache.find(("sim_backend", os.path.basename(cache_dir())),
                              LIB_NAME + ".so", root=cache_base())
    if found is not None:
        return found
    try:
        return cached_library()
    except LockTimeout as exc:
        raise RuntimeError(f"torchada simulator: {exc} (another process is building the C++ "
                           "backend, or was killed while building it)") from None
    except native_cache.CacheRefused as refused:
        warn_once(native_cache.WARN_KEY, "%s; the simulator builds its C++ backend in a "
                  "private temporary folder for this process" % refused)
        try:
            return private_build("the C++ backend", _build_into)
        except Exception as exc:
            raise _failed(exc, refused.folder) from exc


def load() -> str:
    """Load the backend into this process (building it first if needed); return its path."""
    global _loaded_path
    if _loaded_path:
        return _loaded_path
    import torch

    import ctypes

    path = verified_library()
    # Loaded from the checked open file (native_cache.opened); not torch.ops.load_library,
    # which resolves /proc/self/fd/<n> back to the path (realpath) before loading.
    with native_cache.opened(path) as loadable:
        ctypes.CDLL(loadable)
    torch.ops.loaded_libraries.add(path)
    _loaded_path = path
    return path
