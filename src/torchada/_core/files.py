"""torchada's own files: where its cache lives, atomic writes and exclusive locks.

One module so the porter (revert records), the build integration (JIT build locks, the
stable-ABI header overlay) and the simulator backend (its compiled library) replace files
and lock the same way. Which folders torchada trusts and how it makes them is one policy,
``native_cache.trusted_dir`` (every caller goes through it).

- The user's cache is ``platformdirs.user_cache_dir("torchada")`` (``user_cache_root``).
- Writes go to a temporary file beside the target and are renamed over it, so a crash
  leaves the old or the new contents, never a torn file.
- Locks are ``fcntl.flock``: the kernel releases them when the holder dies, so a process
  killed mid-build never blocks the next one.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import sys
import stat
import time

APP_NAME = "torchada"
_LOCK_POLL_S = 0.05


def make_dirs(path: str, mode: int = 0o700) -> None:
    """Create ``path`` and every missing level above it, each with exactly ``mode``
    (``os.makedirs`` would make the levels above the leaf with the umask's mode)."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(os.path.abspath(path))
    if parent != path and not os.path.isdir(parent):
        make_dirs(parent, mode)
    try:
        os.mkdir(path, mode)
    except FileExistsError:
        if not os.path.isdir(path):
            raise
        return  # another process made it: the trust check judges its mode
    os.chmod(path, mode)  # mkdir's mode is masked by the umask


def user_cache_root() -> str:
    # On Linux, platformdirs' rule (XDG_CACHE_HOME, else ~/.cache) spelled out: importing
    # platformdirs costs milliseconds, and the devices area asks at every start (the
    # prefilter's build folder). A test keeps the two equal. Elsewhere: platformdirs.
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, APP_NAME)
    from platformdirs import user_cache_dir

    return user_cache_dir(APP_NAME)



def fsync_dir(directory: str) -> None:
    """Make a rename in ``directory`` durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_TEMP_COUNTER = itertools.count()
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def temp_name(path: str, prefix: str = ".torchada-") -> str:
    """A fresh name beside ``path``: ``prefix``, the process id and a counter (the porter
    creates thousands per run; ``tempfile``'s random names cost more than they give when
    the file is opened O_EXCL anyway)."""
    return os.path.join(os.path.dirname(path) or ".",
                        "%s%d-%d.tmp" % (prefix, os.getpid(), next(_TEMP_COUNTER)))


def temp_beside(path: str, data: bytes, mode: int | None = None, sync: bool = True,
                prefix: str = ".torchada-") -> str:
    """Write ``data`` to a new temporary file in ``path``'s directory; return its name.

    The caller renames it over ``path`` (``os.replace``) or removes it. A caller that must
    find its temporaries again (``porting.records.Batch.sweep``) gives its own ``prefix``.
    Created O_EXCL (never through an existing file or link), written with os-level calls;
    ``mode`` is set exactly, whatever the umask."""
    while True:
        tmp = temp_name(path, prefix)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o600)
            break
        except FileExistsError:  # left by an earlier process with the same id
            continue
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if mode is not None:
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, mode)
                else:
                    os.chmod(tmp, mode)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_atomic(path: str, data: bytes, *, mode: int | None = None, sync: bool = True) -> None:
    """Replace (or create) ``path`` with ``data`` atomically.

    ``mode`` defaults to the existing file's permission bits, or 0o600 for a new file
    (torchada's own files are private)."""
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o600
    tmp = temp_beside(path, data, mode, sync)
    try:
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    if sync:
        fsync_dir(os.path.dirname(path) or ".")


class LockTimeout(RuntimeError):
    """Another process held the lock longer than the caller was willing to wait."""


@contextlib.contextmanager
def file_lock(path: str, timeout: float | None = None):
    """Hold an exclusive ``flock`` on ``path`` (created 0o600) for the block.

    Yields True when the lock is held, False when this platform or file system cannot lock
    (one RuntimeWarning per process; the caller proceeds unlocked, as it would without
    torchada). ``timeout`` seconds without the lock raise LockTimeout naming the file."""
    try:
        import fcntl
    except ImportError:
        _warn_no_lock("fcntl is not available on this platform")
        yield False
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        _warn_no_lock(str(exc))
        yield False
        return
    try:
        try:
            _acquire(fcntl, fd, path, timeout)
        except OSError as exc:
            _warn_no_lock(str(exc))
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fcntl, fd: int, path: str, timeout: float | None) -> None:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeout("torchada: waited %ss for the lock %s held by another process; "
                                  "remove the file if no such process is running" % (timeout, path))
            time.sleep(_LOCK_POLL_S)


def _warn_no_lock(reason: str) -> None:
    from torchada._core.warn_once import warn_once

    warn_once("flock", "torchada: file locking (flock) is unavailable (%s); proceeding without "
              "torchada's lock", reason, category=RuntimeWarning, stacklevel=4)
