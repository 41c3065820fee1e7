"""Native libraries torchada builds at run time: a cache it trusts, keys that name the
platform, libraries placed in one step and verified before every load.

Trust. The cache root and every level below it that torchada uses must be a real folder
(not a symbolic link), owned by this user or root and writable by nobody else; the folders above
the root must be owned by this user or root and, when others may write them, sticky
(``/tmp``): otherwise someone else could swap a level. A cache that fails is refused
(``CacheRefused``; one warning per process names the folder and the fix) and the caller
takes its fallback. A cache that cannot be written (read-only, full) is refused the same way.

Keys. A library's folder name hashes its sources with ``platform_fields()``: the machine,
the interpreter's extension suffix and cache tag, the compilers' identities, torch's and
torch_musa's versions. A home shared by x86 and aarch64 nodes, two Pythons or two
compilers gives each its own library.

Placement. A library is built in a private temporary folder inside its key folder; its
digest (sha256 and size) is written beside the final name, then the library is renamed
over the final name (``os.replace``). Readers see the old file, the new one or none.
The temporary folder's name carries the builder's process id with its host and pid
namespace (``work_prefix``): a cache shared by several hosts or containers sweeps only the
folders of builders it can see are gone, never those of another host's live build.

Loading. ``opened()`` opens the library once, checks the owner, mode and digest on that
open file and hands the loader ``/proc/self/fd/<n>``: the bytes loaded are the bytes
checked, whatever is renamed over the path meanwhile. A short, changed or foreign file is
never handed to the loader (docs/security.md says what this does not cover).

System cache. Folders and files owned by root (and writable by nobody else) are trusted
like the user's own: ``torchada build --system`` fills ``system_cache_root()`` at deploy
time and every user reads it, after their own cache (``find``).
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.machinery
import logging
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from torchada._core import files
from torchada._core.warn_once import warn_once

logger = logging.getLogger("torchada")

DIGEST_SUFFIX = ".sha256"
FAILED_SUFFIX = ".failed"  # the reason a build with this key failed
WORK_PREFIX = ".build-"
WARN_KEY = "native cache"  # the process's one cache warning (warn_once)
_SAFE_ANCESTORS: set[str] = set()
_COMPILERS: dict[str, str] = {}
_HOST_TAG: list[str] = []
_LOADED_FDS: list[int] = []  # descriptors of loaded libraries (see ``opened``)
# A work folder named the older way (no host) is swept only when this old: no build lasts
# a day, and its builder's host is unknown.
UNTAGGED_WORK_AGE_S = 24 * 3600


class CacheRefused(RuntimeError):
    """A cache folder torchada will not use; the message names the folder and the fix."""

    def __init__(self, folder: str, reason: str, fix: str):
        super().__init__("torchada: not using the cache folder %s: it %s. %s"
                         % (folder, reason, fix))
        self.folder = folder


class BadLibrary(RuntimeError):
    """A library file whose digest, size, owner or mode is not what torchada placed."""


# ------------------------------------------------------------------ trust
SYSTEM_CACHE_SETTING = "TORCHADA_SYSTEM_CACHE_DIR"
# Set by `torchada build --system` for itself and its children: build into the system cache.
SYSTEM_BUILD_VAR = "TORCHADA_BUILD_FOR_SYSTEM"
SYSTEM_CACHE_DEFAULT = "/var/cache/torchada"


def system_cache_root() -> str:
    """The cache a deploy step builds for every user (``torchada build --system``), searched
    after the user's: TORCHADA_SYSTEM_CACHE_DIR, else platformdirs' site cache folder
    (/var/cache/torchada on Linux, spelled out here as user_cache_root does; a test keeps
    the two equal)."""
    from torchada._core.settings import read

    chosen = read(SYSTEM_CACHE_SETTING)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    if sys.platform.startswith("linux"):
        return SYSTEM_CACHE_DEFAULT
    from platformdirs import site_cache_dir

    return site_cache_dir(files.APP_NAME)


def building_for_system() -> bool:
    from torchada._core.settings import read

    return read(SYSTEM_BUILD_VAR) is True


def cache_root() -> str:
    """Where this process builds: the user's cache, or the system's under ``--system``."""
    return system_cache_root() if building_for_system() else files.user_cache_root()


def _in_system_cache(path: str) -> bool:
    root = system_cache_root()
    return path == root or path.startswith(root + os.sep)


def _folder_mode(root: str) -> int:
    return 0o755 if _in_system_cache(root) else 0o700


def _fix(setting: str) -> str:
    return ("Make it a folder of your own that only you can write (chmod 700), or set %s "
            "to one" % setting)


def _unreadable(setting: str) -> str:
    return ("Let this user read the folders above it (chmod a+rx; a system cache is made "
            "0755), or set %s to a folder of your own" % setting)


def _check_level(path: str, st: os.stat_result, setting: str) -> None:
    uid = os.geteuid()
    if stat.S_ISLNK(st.st_mode):
        raise CacheRefused(path, "is a symbolic link", "Replace the link with a real folder, "
                           "or set %s to a folder of your own" % setting)
    if not stat.S_ISDIR(st.st_mode):
        raise CacheRefused(path, "is not a folder", "Remove it, or set %s elsewhere" % setting)
    if st.st_uid not in (uid, 0):  # root's: a cache a deploy step built for every user
        raise CacheRefused(path, "belongs to user id %d, neither this user (%d) nor root"
                           % (st.st_uid, uid), _fix(setting))
    if st.st_mode & 0o022:
        raise CacheRefused(path, "can be written by group or others (mode %o)"
                           % stat.S_IMODE(st.st_mode),
                           "Run `chmod go-w %s`, or set %s to a private folder" % (path, setting))


def _check_ancestors(root: str, setting: str) -> None:
    """The folders holding the root: whoever may rename entries in them could swap it."""
    parent = os.path.realpath(os.path.dirname(root))
    if parent in _SAFE_ANCESTORS:
        return
    uid = os.geteuid()
    path = parent
    while True:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None  # created below, by this user
        except PermissionError as exc:
            raise CacheRefused(root, "lies in %s, which this user cannot read (%s)"
                               % (path, exc.strerror), _unreadable(setting)) from None
        if st is not None:
            if st.st_uid not in (uid, 0):
                raise CacheRefused(root, "lies in %s, which belongs to user id %d"
                                   % (path, st.st_uid), _fix(setting))
            if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
                raise CacheRefused(root, "lies in %s, which others can write (mode %o)"
                                   % (path, stat.S_IMODE(st.st_mode)), _fix(setting))
        above = os.path.dirname(path)
        if above == path:
            break
        path = above
    _SAFE_ANCESTORS.add(parent)


def trusted_dir(*parts: str, root: str | None = None, create: bool = True,
                setting: str = "XDG_CACHE_HOME") -> str:
    """``<root>/<parts...>`` (root: ``cache_root()``) after checking every level: torchada's
    one folder policy (its native libraries, build locks, compiler notes, the porter's
    records, the graph probe's notes, the header overlay). Missing levels are made when
    ``create``: 0o700, or 0o755 in the system cache (every user reads it). Raises
    CacheRefused (untrusted, or a level cannot be made) or, without ``create``,
    FileNotFoundError for a missing level. ``setting`` is the variable the fix names."""
    root = os.path.abspath(root or cache_root())
    _check_ancestors(root, setting)
    path = root
    for level in ("",) + parts:
        path = os.path.join(path, level) if level else path
        try:
            st = os.lstat(path)
        except PermissionError as exc:  # a level above it lets this user not look
            raise CacheRefused(path, "cannot be read (%s)" % exc.strerror, _unreadable(setting)
                               ) from None
        except FileNotFoundError:
            if not create:
                raise
            try:
                files.make_dirs(path, _folder_mode(root))
            except OSError as exc:
                raise CacheRefused(path, "cannot be created (%s)" % exc.strerror,
                                   "Make it writable, or set %s to a writable folder of your "
                                   "own" % setting) from None
            st = os.lstat(path)
        _check_level(path, st, setting)
    return path


# ------------------------------------------------------------------ keys
def _memo_path(memo: str) -> str | None:
    try:
        directory = trusted_dir("compilers")
    except (CacheRefused, OSError):
        return None
    return os.path.join(directory, hashlib.sha256(memo.encode()).hexdigest()[:24])


def _read_memo(path: str | None, memo: str) -> str | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            recorded, _, identity = f.read().partition("\n")
    except (OSError, ValueError):
        return None
    return identity.strip() if recorded == memo and identity.strip() else None


def compiler_identity(command: str) -> str:
    """``<resolved path>: <first line of --version>``, asked once per binary (memoised by
    path, size and modification time: in this process and in the trusted cache, as running
    the compiler costs tens of milliseconds)."""
    found = shutil.which(command)
    if not found:
        return "missing:" + command
    real = os.path.realpath(found)
    try:
        st = os.stat(real)
    except OSError:
        return "missing:" + command
    memo = "%s:%d:%d" % (real, st.st_size, st.st_mtime_ns)
    if memo in _COMPILERS:
        return _COMPILERS[memo]
    path = _memo_path(memo)
    identity = _read_memo(path, memo)
    if identity is None:
        try:
            out = subprocess.run([found, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
            first = (out.strip().splitlines() or ["?"])[0]
        except (OSError, subprocess.SubprocessError):
            first = "?"
        identity = "%s: %s" % (real, first)
        if path is not None:
            try:
                files.write_atomic(path, ("%s\n%s\n" % (memo, identity)).encode(), sync=False)
            except OSError:
                pass  # a full or read-only cache: asked again next time
    _COMPILERS[memo] = identity
    return identity


def cxx_command() -> str:
    """The C++ compiler torch's extension builder runs (its rule: CXX, else c++)."""
    return os.environ.get("CXX") or "c++"


def platform_fields(compilers=(), torch_version: str | None = None,
                    torch_musa_version: str | None = None) -> list[str]:
    """What a built library depends on besides its sources (see the module docstring)."""
    return ["machine=" + platform.machine(),
            "ext=" + importlib.machinery.EXTENSION_SUFFIXES[0],
            "abi=" + str(sys.implementation.cache_tag),
            *("compiler=" + compiler_identity(c) for c in compilers),
            "torch=" + str(torch_version),
            "torch_musa=" + str(torch_musa_version)]


def source_key(paths, fields) -> str:
    """16 hex digits of sha256 over ``fields`` and the files' bytes."""
    digest = hashlib.sha256("\n".join(fields).encode())
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


# ------------------------------------------------------------------ digests
def _digest_fd(fd: int) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return digest.hexdigest(), size
        digest.update(chunk)
        size += len(chunk)


def _open(path: str) -> int:
    return os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | files._CLOEXEC)


def _problem(fd: int, path: str) -> str | None:
    """None when the open file ``fd`` (opened from ``path``) is the library torchada placed
    there: a regular file of this user's or root's that nobody else may write, whose size
    and sha256 equal the digest recorded beside ``path``; else why not."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_uid not in (os.geteuid(), 0) or st.st_mode & 0o022:
        return "belongs to another user or can be written by others"
    try:
        with open(path + DIGEST_SUFFIX, "rb") as f:
            recorded = f.read(200).decode("ascii", "replace").split()
    except OSError:
        return "has no digest beside it"
    os.lseek(fd, 0, os.SEEK_SET)
    actual, size = _digest_fd(fd)
    if len(recorded) != 2 or recorded[1] != str(size):
        return "is %d bytes, the digest recorded %s" % (size, recorded[1:2] or "nothing")
    if recorded[0] != actual:
        return "does not match its digest"
    return None


def check(path: str) -> str | None:
    """None when ``path`` is the library torchada placed there; else why not ("missing"
    when there is no file). Owner, mode, file type and digest are all checked. Loading
    goes through ``opened`` (the same checks on the descriptor that is loaded)."""
    try:
        fd = _open(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return "cannot be opened (%s)" % exc.strerror
    try:
        return _problem(fd, path)
    finally:
        os.close(fd)


@contextlib.contextmanager
def opened(path: str):
    """Open ``path`` once, check that open file (``_problem``) and yield the name the loader
    must use for exactly those bytes: ``/proc/self/fd/<n>`` (the kernel resolves it to the
    open file, not to whatever ``path`` names by then). Raises BadLibrary naming ``path`` and
    why when the check fails. When the block completes (loaded) the descriptor stays open
    for the life of the process: the dynamic loader remembers a library by the name it was
    opened with, and a closed descriptor's number, reused, would name another file that the
    loader then takes for the first. Where there is no /proc the checked path itself is
    yielded (the check then holds up to the open, not the load)."""
    try:
        fd = _open(path)
    except OSError as exc:
        raise BadLibrary("torchada: the library %s cannot be opened (%s); it is not loaded"
                         % (path, exc.strerror)) from None
    try:
        problem = _problem(fd, path)
        if problem is not None:
            raise BadLibrary("torchada: the library %s %s; it is not loaded" % (path, problem))
        by_fd = "/proc/self/fd/%d" % fd
        yield by_fd if os.path.exists(by_fd) else path
    except BaseException:
        os.close(fd)
        raise
    _LOADED_FDS.append(fd)


def find(parts, filename: str, root: str | None = None,
         setting: str = "XDG_CACHE_HOME") -> str | None:
    """``<root>/<parts...>/<filename>`` when it passes ``check`` (root: the user's cache),
    else the same in the system cache, else None. Nothing is created. A system cache that
    fails the trust checks gets the process's one cache warning (the folder and the fix)
    and is passed over."""
    system = system_cache_root()
    places = {os.path.abspath(root or cache_root()): setting}
    places.setdefault(system, SYSTEM_CACHE_SETTING)  # once, when building for the system
    for base, name in places.items():
        try:
            directory = trusted_dir(*parts, root=base, create=False, setting=name)
        except FileNotFoundError:
            continue
        except CacheRefused as exc:
            if base == system:
                warn_once(WARN_KEY, "%s; the system cache is not used" % exc)
            continue
        path = os.path.join(directory, filename)
        if check(path) is None:
            return path
    return None


def place(built: str, final: str) -> None:
    """Move the finished library ``built`` (in a private temporary folder beside ``final``)
    to ``final``: made durable and 0o700 (0o755 in the system cache), digest written first,
    then one rename."""
    fd = os.open(built, os.O_RDONLY | files._CLOEXEC)
    try:
        os.fsync(fd)
        digest, size = _digest_fd(fd)
    finally:
        os.close(fd)
    if size == 0:
        raise BadLibrary("the build produced an empty file %s" % built)
    shared = _in_system_cache(os.path.abspath(final))
    os.chmod(built, 0o755 if shared else 0o700)
    files.write_atomic(final + DIGEST_SUFFIX, ("%s %d\n" % (digest, size)).encode(),
                       mode=0o644 if shared else 0o600)
    os.replace(built, final)
    files.fsync_dir(os.path.dirname(final))


# ------------------------------------------------------------------ build or reuse
def host_tag() -> str:
    """``<host name>~<pid namespace id>``: where a process id means this process."""
    if not _HOST_TAG:
        import socket  # here: importing this module stays cheap

        host = re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname())[:64] or "host"
        try:
            namespace = os.stat("/proc/self/ns/pid").st_ino
        except OSError:  # no /proc (another system): the host alone
            namespace = 0
        _HOST_TAG.append("%s~%d" % (host, namespace))
    return _HOST_TAG[0]


def work_prefix() -> str:
    """The name prefix of this process's temporary build folders (``mkdtemp(prefix=)``).
    A session leader (the detached builder, ``_kit.detached``) marks its pid with ``g``: its
    compilers are its process group, which a sweep may end once the builder is gone."""
    leader = "g" if hasattr(os, "getsid") and os.getsid(0) == os.getpid() else ""
    return "%s%d%s@%s-" % (WORK_PREFIX, os.getpid(), leader, host_tag())


def _builder(name: str):
    """(pid, host tag or None for the older untagged names, whether the pid leads its
    process group) of a work folder, or None."""
    pid, at, rest = name[len(WORK_PREFIX):].partition("@")
    leader = pid.endswith("g")
    pid = pid[:-1] if leader else pid
    if not pid.isdigit():
        pid = pid.split("-", 1)[0]
        return (int(pid), None, False) if pid.isdigit() else None
    return int(pid), (rest.rpartition("-")[0] if at else None), leader


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep(directory: str) -> None:
    """Remove temporary build folders whose builder is gone (killed mid-build). Only a
    folder of this host and pid namespace is judged by its pid; another host's is left
    alone (its pid means nothing here), an untagged one unless it is a day old. A dead
    detached builder's compilers still running are ended first."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        builder = _builder(name) if name.startswith(WORK_PREFIX) else None
        if builder is None:
            continue
        path = os.path.join(directory, name)
        pid, tag, leader = builder
        if tag is None:
            try:
                stale = os.lstat(path).st_mtime < time.time() - UNTAGGED_WORK_AGE_S
            except OSError:
                continue
        else:
            stale = tag == host_tag() and pid != os.getpid() and not _alive(pid)
        if stale:
            if leader:
                _end_group(pid)
            shutil.rmtree(path, ignore_errors=True)


def _end_group(pid: int) -> None:
    """End what is left of a dead detached builder's process group (its compilers, which
    would otherwise go on writing into the folder being removed). While any member lives
    the kernel gives no new process that id, so the group is still the builder's."""
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return  # no member left, or not ours
    logger.warning("torchada: ended the compilers a killed build (process %d) left running",
                   pid)


_UNWRITABLE = (errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM)


class BuildFailed(RuntimeError):
    """A build that failed before with this key (the failure marker beside the library)."""


def failure(final: str) -> str | None:
    """Why the last build of ``final`` failed (its marker ``final + FAILED_SUFFIX``, written
    with the same key as the library), or None."""
    try:
        with open(final + FAILED_SUFFIX, "rb") as f:
            return f.read(4000).decode("utf-8", "replace").strip() or "no reason recorded"
    except OSError:
        return None


def _failed_before(what: str, final: str, why: str) -> BuildFailed:
    failed = BuildFailed("%s failed to build before with these sources, compilers and "
                         "versions (%s); it is not retried until one of them changes or "
                         "`torchada build` runs: %s" % (what, final + FAILED_SUFFIX, why))
    failed.why = why
    return failed


def _remember_failure(final: str, exc: BaseException) -> None:
    words = " ".join(str(exc).split())[:2000] or type(exc).__name__
    try:
        files.write_atomic(final + FAILED_SUFFIX, ("%s: %s\n" % (type(exc).__name__, words))
                           .encode("utf-8", "replace"), mode=0o600, sync=False)
    except OSError:
        pass  # an unwritable cache: the next process retries, as before


def fetch(directory: str, filename: str, build_into, what: str, lock: str | None = None,
          timeout: float | None = None, remember_failure: bool = False,
          force: bool = False) -> str:
    """The verified library ``directory/filename``, built first when missing or bad.

    ``directory`` must come from ``trusted_dir``. ``build_into(work)`` builds in the private
    folder ``work`` and returns the built file's path; it runs under the flock ``lock``
    (default: ``directory + ".lock"``), so concurrent processes build once. A bad file is
    rebuilt (one warning). With ``remember_failure`` a failed build leaves its reason in a
    marker beside the library (same key) and later calls raise BuildFailed instead of
    building again, until ``force`` (``torchada build``) clears it. Raises CacheRefused when
    the folder cannot be written, files.LockTimeout, BadLibrary, BuildFailed, or what
    ``build_into`` raises."""
    final = os.path.join(directory, filename)
    if check(final) is None:
        return final
    why = failure(final) if remember_failure and not force else None
    if why is not None:
        raise _failed_before(what, final, why)
    try:
        work = tempfile.mkdtemp(prefix=work_prefix(), dir=directory)
    except OSError as exc:
        raise CacheRefused(directory, "cannot be written (%s)" % exc.strerror,
                           "Free space or make it writable; torchada uses its fallback "
                           "meanwhile") from None
    try:
        with files.file_lock(lock or directory + ".lock", timeout=timeout):
            problem = check(final)
            if problem is None:
                return final
            if remember_failure:
                why = None if force else failure(final)
                if why is not None:  # the build this process waited for failed
                    raise _failed_before(what, final, why)
                files.discard(final + FAILED_SUFFIX)
            if problem != "missing":
                warn_once(WARN_KEY, "torchada: %s at %s %s; it is rebuilt" % (what, final, problem))
                files.discard(final)
            sweep(directory)
            try:
                built = build_into(work)
            except Exception as exc:
                if remember_failure:
                    _remember_failure(final, exc)
                raise
            try:
                place(built, final)
            except OSError as exc:
                if exc.errno in _UNWRITABLE:
                    raise CacheRefused(directory, "cannot be written (%s)" % exc.strerror,
                                       "Free space or make it writable") from None
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    problem = check(final)
    if problem is not None:
        raise BadLibrary("torchada: %s at %s %s after it was built" % (what, final, problem))
    return final
