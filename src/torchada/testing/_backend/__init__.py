"""Builds (once) and loads the simulator's C++ backend.

The shared library is cached in ``platformdirs.user_cache_dir("torchada")/sim_backend/
<torch version>-<sha of source>``; a present library is loaded directly (no ninja, no
compiler).  Concurrent processes (pytest-xdist) build it once, under torchada's flock
(``torchada._core.files``).
``TORCHADA_SIM_CACHE_DIR`` replaces the cache root (used by the cold-build benchmark).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from torchada._core.files import LockTimeout, file_lock, private_dir

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "musa_sim.cpp")
# Bump when the way the library is built changes (it is part of the cache key).
BUILD_RECIPE = "2"
LOCK_TIMEOUT_S = 900
LIB_NAME = "musa_sim_backend"
_loaded_path = None


HEADERS = [os.path.join(os.path.dirname(SOURCE), "caching_model.h")]


def _source_hash() -> str:
    h = hashlib.sha256(BUILD_RECIPE.encode())
    for path in [SOURCE, *HEADERS]:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def cache_root() -> str:
    return private_dir("sim_backend", root=os.environ.get("TORCHADA_SIM_CACHE_DIR") or None)


def cache_dir() -> str:
    import torch

    tag = torch.__version__.replace("+", "_")
    return os.path.join(cache_root(), f"{tag}-{_source_hash()}")


def library_path() -> str:
    return os.path.join(cache_dir(), LIB_NAME + ".so")


def _compiler() -> str:
    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++ (not found)"


def _compile_into(work: str, verbose: bool = False) -> None:
    """Runs in a child interpreter: cpp_extension.load also dlopens the result, and the
    registrations it makes must happen once per process, from the final path."""
    from torch.utils import cpp_extension

    cpp_extension.load(
        name=LIB_NAME,
        sources=[SOURCE],
        extra_cflags=["-O1", "-w"],
        build_directory=work,
        is_python_module=False,
        verbose=verbose,
    )


def build(target_dir: str | None = None, verbose: bool = False) -> str:
    """Compile the backend into ``target_dir`` (default: the cache dir); return the .so path."""
    target_dir = target_dir or cache_dir()
    private_dir(create=True, root=target_dir)
    final = os.path.join(target_dir, LIB_NAME + ".so")
    work = tempfile.mkdtemp(prefix="build-", dir=target_dir)
    src_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(SOURCE))))
    code = (f"import sys; sys.path.insert(0, {src_root!r}); "
            f"from torchada.testing._backend import _compile_into; _compile_into({work!r}, {verbose!r})")
    # The child must not activate torchada (its start-up hook could import the simulator,
    # which would wait for the lock this process holds).
    env = {k: v for k, v in os.environ.items() if k != "TORCHADA_SIMULATE_MUSA"}
    env["TORCHADA_PLATFORM"] = "off"
    try:
        proc = subprocess.run([sys.executable, "-X", "torchada=off", "-c", code], capture_output=True,
                              text=True, env=env, timeout=LOCK_TIMEOUT_S)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr)[-3000:]
            raise RuntimeError(f"compiler exited with status {proc.returncode}:\n{tail}")
        os.replace(os.path.join(work, LIB_NAME + ".so"), final)
    except Exception as exc:
        raise RuntimeError(
            f"torchada simulator: building the C++ backend failed ({exc}). "
            f"Compiler: {_compiler()} (set CXX to choose another); cache dir: {target_dir} "
            "(must be writable; set TORCHADA_SIM_CACHE_DIR to use another)."
        ) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def load() -> str:
    """Load the backend into this process (building it first if needed); return its path."""
    global _loaded_path
    if _loaded_path:
        return _loaded_path
    import torch

    path = library_path()
    if not os.path.exists(path):
        d = os.path.dirname(path)
        private_dir(create=True, root=os.path.dirname(d))
        try:
            with file_lock(d + ".lock", timeout=LOCK_TIMEOUT_S):
                if not os.path.exists(path):
                    build(d)
        except LockTimeout as exc:
            raise RuntimeError(f"torchada simulator: {exc} (another process is building the C++ "
                               "backend, or was killed while building it)") from None
    torch.ops.load_library(path)
    _loaded_path = path
    return path
