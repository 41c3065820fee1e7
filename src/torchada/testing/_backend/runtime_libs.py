"""Builds (once, cached and verified like the backend) the simulator's libmusart.so and
libmccl.so from musa_runtime_stub.c with the host C compiler, and returns their paths.

Each library is built in a private temporary folder and renamed into place beside its
digest (``torchada._core.native_cache``); the key hashes the source with the machine and the
C compiler (the ``cc`` on PATH). A refused cache (untrusted, read-only, full) builds them in
a private temporary folder for this process, as the backend does."""
from __future__ import annotations

import os
import shutil
import subprocess

from torchada._core import native_cache
from torchada._core.files import LockTimeout
from torchada._core.warn_once import warn_once

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "musa_runtime_stub.c")
LIBRARIES = {"libmusart.so": [], "libmccl.so": ["-DMCCL_ONLY"]}
LOCK_TIMEOUT_S = 300


def _compiler() -> str:
    """The host's C compiler on PATH (not ``CC``, for the reason the backend ignores CXX)."""
    return shutil.which("cc") or shutil.which("gcc") or "cc"


def _key() -> str:
    fields = native_cache.platform_fields([_compiler()])
    return "runtime-" + native_cache.source_key([SOURCE], fields)


def _compile(name: str):
    def build_into(work: str) -> str:
        out = os.path.join(work, name)
        cmd = [_compiler(), "-shared", "-fPIC", "-O1", "-Wl,-soname," + name,
               *LIBRARIES[name], SOURCE, "-o", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("torchada simulator: building %s failed (%s; the cc on PATH):\n%s"
                               % (name, " ".join(cmd), proc.stderr[-2000:]))
        return out
    return build_into


def build() -> dict:
    """{soname: path} of the built, verified libraries (built under a lock when missing)."""
    from torchada.testing import _backend

    found = {name: native_cache.find(("sim_backend", _key()), name, root=_backend.cache_base())
             for name in LIBRARIES}
    if None not in found.values():  # the user's cache, else the system's
        return found
    try:
        directory = _backend.trusted_cache_dir(_key())
        return {name: native_cache.fetch(directory, name, _compile(name),
                                         "the simulator's %s" % name, timeout=LOCK_TIMEOUT_S)
                for name in LIBRARIES}
    except LockTimeout as exc:
        raise RuntimeError("torchada simulator: %s" % exc) from None
    except native_cache.CacheRefused as refused:
        warn_once(native_cache.WARN_KEY, "%s; the simulator builds its runtime libraries in "
                  "a private temporary folder for this process" % refused)
        return {name: _backend.private_build(name, _compile(name)) for name in LIBRARIES}
