"""The exclusive lock every native build takes (torchada's own extensions and, through
the cpp_extension area, users' ``load`` / ``load_inline``): one flock per extension name in
``<cache>/locks``.

flock is released by the kernel when its holder dies, so a builder killed mid-build never
blocks the next one (torch's own FileBaton would wait forever on its stale ``lock`` file).
"""
import contextlib
import logging
import os
import re

from torchada._core import native_cache
from torchada._core.files import discard, file_lock

logger = logging.getLogger("torchada")


def lock_path(name):
    """``<cache>/locks/<name>.lock``; raises native_cache.CacheRefused for an untrusted or
    unwritable cache."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return os.path.join(native_cache.trusted_dir("locks"), safe + ".lock")


@contextlib.contextmanager
def build_lock(name, build_directory=None, timeout=None):
    """Hold an exclusive lock for building extension ``name``; yields whether it is held.

    Inside the lock nobody else is building ``name``, so a torch FileBaton ``lock`` file
    left in ``build_directory`` by a killed builder is stale and is removed. Without flock
    (Windows, some network file systems) or a trusted cache for the lock file: one warning,
    and torch's own behaviour. ``timeout`` seconds without the lock raise files.LockTimeout."""
    try:
        path = lock_path(name)
    except native_cache.CacheRefused as exc:
        native_cache.warn_once("%s (building %s without torchada's lock)" % (exc, name))
        yield False
        return
    with file_lock(path, timeout=timeout) as held:
        stale = os.path.join(build_directory, "lock") if held and build_directory else None
        if stale and os.path.exists(stale):
            logger.warning("torchada: removing stale build lock %s left by a killed build", stale)
            discard(stale)
        yield held
