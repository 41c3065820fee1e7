"""Builds (once, cached like the backend) the simulator's libmusart.so and libmccl.so from
musa_runtime_stub.c with the host C compiler, and returns their paths."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

from torchada._core.files import LockTimeout, file_lock, private_dir

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "musa_runtime_stub.c")
LIBRARIES = {"libmusart.so": [], "libmccl.so": ["-DMCCL_ONLY"]}
LOCK_TIMEOUT_S = 300


def _compiler() -> str:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"


def _cache_dir() -> str:
    from torchada.testing._backend import cache_root

    with open(SOURCE, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()[:16]
    return os.path.join(cache_root(), "runtime-" + digest)


def build() -> dict:
    """{soname: path} of the built libraries (built under a lock when missing)."""
    directory = _cache_dir()
    paths = {name: os.path.join(directory, name) for name in LIBRARIES}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    private_dir(create=True, root=directory)
    try:
        with file_lock(directory + ".lock", timeout=LOCK_TIMEOUT_S):
            for name, flags in LIBRARIES.items():
                if os.path.exists(paths[name]):
                    continue
                tmp = paths[name] + ".%d.tmp" % os.getpid()
                cmd = [_compiler(), "-shared", "-fPIC", "-O1", "-Wl,-soname," + name, *flags,
                       SOURCE, "-o", tmp]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    raise RuntimeError("torchada simulator: building %s failed (%s; set CC to "
                                       "choose another compiler):\n%s"
                                       % (name, " ".join(cmd), proc.stderr[-2000:]))
                os.replace(tmp, paths[name])
    except LockTimeout as exc:
        raise RuntimeError("torchada simulator: %s" % exc) from None
    return paths
