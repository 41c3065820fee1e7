"""The exclusive lock every native build takes (torchada's own extensions and, through
the cpp_extension area, users' ``load`` / ``load_inline``): one flock per extension name in
``<cache>/locks``.

flock is released by the kernel when its holder dies, so a builder killed mid-build never
blocks the next one (torch's own FileBaton would wait forever on its stale ``lock`` file).

torch's ``lock`` file in the build folder is removed only when torchada owns it: a builder
writes ``<cache>/locks/<name>.building`` (naming the build folder) while it builds under
the flock, so the next holder that finds both knows that build died. A ``lock`` without
that note belongs to a build torchada did not start (torchada off, another cache root):
it is left alone and torch waits for it, as it would without torchada.
"""
import contextlib
import logging
import os
import re

from torchada._core import native_cache
from torchada._core.files import discard, file_lock, write_atomic
from torchada._core.warn_once import warn_once

logger = logging.getLogger("torchada")


def lock_path(name):
    """``<cache>/locks/<name>.lock``; raises native_cache.CacheRefused for an untrusted or
    unwritable cache."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return os.path.join(native_cache.trusted_dir("locks"), safe + ".lock")


@contextlib.contextmanager
def build_lock(name, build_directory=None, timeout=None):
    """Hold an exclusive lock for building extension ``name``; yields whether it is held.

    Inside the lock no torchada process is building ``name``, so a torch FileBaton ``lock``
    file a killed torchada builder left in ``build_directory`` is stale and is removed
    (see the module for one it did not leave). Without flock
    (Windows, some network file systems) or a trusted cache for the lock file: one warning,
    and torch's own behaviour. ``timeout`` seconds without the lock raise files.LockTimeout."""
    try:
        path = lock_path(name)
    except native_cache.CacheRefused as exc:
        warn_once(native_cache.WARN_KEY, "%s (building %s without torchada's lock)" % (exc, name))
        yield False
        return
    with file_lock(path, timeout=timeout) as held:
        if not (held and build_directory):
            yield held
            return
        note = path[:-len(".lock")] + ".building"
        folder = os.path.realpath(build_directory)
        _clear_stale_baton(os.path.join(build_directory, "lock"), note, folder)
        try:
            write_atomic(note, folder.encode("utf-8", "surrogateescape"), mode=0o600, sync=False)
        except OSError:
            note = None  # a full cache: a later holder then leaves this build's lock alone
        try:
            yield held
        finally:
            if note is not None:
                discard(note)


def _clear_stale_baton(baton, note, folder):
    """Remove torch's ``lock`` file ``baton`` when the note says a torchada build made it."""
    if not os.path.exists(baton):
        return
    try:
        with open(note, "rb") as f:
            noted = f.read().decode("utf-8", "surrogateescape")
    except OSError:
        noted = None
    if noted == folder:
        logger.warning("torchada: removing stale build lock %s left by a killed build", baton)
        discard(baton)
    else:
        logger.warning("torchada: %s is held by a build torchada did not start (one with "
                       "torchada off, or another cache folder); waiting for it as torch does. "
                       "If no build is running, remove that file", baton)
