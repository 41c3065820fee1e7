"""JIT extension builds (``load`` / ``load_inline``) under an exclusive flock per name.

flock is released by the kernel when its holder dies, so a builder killed mid-build never
blocks the next one (torch's own FileBaton would wait forever on its stale ``lock`` file).
"""
import contextlib
import functools
import inspect
import logging
import os
import re

from torchada._core.files import discard, file_lock, private_dir

logger = logging.getLogger("torchada")


def lock_path(name):
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return os.path.join(private_dir("locks", create=True), safe + ".lock")


@contextlib.contextmanager
def build_lock(name, build_directory=None):
    """Hold an exclusive lock for building extension ``name``; yields whether it is held.

    Inside the lock nobody else is building ``name``, so a torch FileBaton ``lock`` file
    left in ``build_directory`` by a killed builder is stale and is removed. Without flock
    (Windows, some network file systems): one warning, and torch's own behaviour."""
    with file_lock(lock_path(name)) as held:
        stale = os.path.join(build_directory, "lock") if held and build_directory else None
        if stale and os.path.exists(stale):
            logger.warning("torchada: removing stale build lock %s left by a killed build", stale)
            discard(stale)
        yield held


def locked_load(original, get_build_directory):
    """Wrap torch.utils.cpp_extension.load / load_inline to build under build_lock.
    The wrapper keeps the original's signature (functools.wraps)."""
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
