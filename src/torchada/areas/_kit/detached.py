"""A native build that outlives the process that asked for it.

Most processes are short (a test, a CLI tool, a script): a build run on the asking process's
thread would die with it, leave its compilers running, and be started again by the next
process. So the compile runs in a detached builder, ``python -m torchada.areas._kit.detached
<piece>``: its own session (its compilers are its process group, none of the asker's), its
output appended to ``build.log`` in the library's key folder, the build lock held while it
compiles (``native_cache.fetch``). The asker waits for the library on its background thread
and meanwhile takes its fallback; if it exits first, the builder finishes anyway and the
next process loads the library.

One builder per key: an asker starts one only when no build is live, that is when the build
lock is free and no builder it or a sibling started a moment ago (``builder`` note, pid and
host) is still running; otherwise it waits for that build. A failed build leaves a marker
keyed like the library (``native_cache.failure``) that stops every later asker from
starting one again, until the key changes or ``torchada build`` forces a rebuild. A builder
killed mid-build leaves its compilers behind only until the next build's sweep ends its
process group (``native_cache.sweep``).
"""
import logging
import os
import subprocess
import sys
import time

logger = logging.getLogger("torchada")

LOG_NAME = "build.log"
NOTE_NAME = "builder"     # "<pid> <host tag> <start time>" of the last builder started
STARTING_S = 120          # a builder holds the lock within this long after it starts
POLL_S = 0.2
# piece name -> "module:function" building it in the builder (in this process, no detach)
PIECES = {"op_overrides": "torchada.areas._op_overrides.shared:build_in_builder",
          "graph_exec": "torchada.areas._graph_exec.extension:build_in_builder"}
_STARTED = []             # this process's builders (kept: Popen warns when collected running)


def lock_is_held(path):
    """Whether another open file holds the flock ``path`` (a build is live)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the lock taken just now
    return False


def _note_is_live(directory):
    from torchada._core import native_cache

    try:
        with open(os.path.join(directory, NOTE_NAME), encoding="utf-8") as f:
            pid, tag, started = f.read().split()
        pid, started = int(pid), float(started)
    except (OSError, ValueError):
        return False
    return (tag == native_cache.host_tag() and time.time() - started < STARTING_S
            and native_cache._alive(pid))


def spawn(piece, directory):
    """Start the builder of ``piece`` in its own session, output to ``directory/build.log``;
    the Popen."""
    from torchada._core import files, native_cache

    log = os.open(os.path.join(directory, LOG_NAME),
                  os.O_WRONLY | os.O_CREAT | os.O_APPEND | files._CLOEXEC, 0o600)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "torchada.areas._kit.detached", piece],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True, close_fds=True)
    finally:
        os.close(log)
    _STARTED.append(proc)
    files.write_atomic(os.path.join(directory, NOTE_NAME), ("%d %s %f\n" % (
        proc.pid, native_cache.host_tag(), time.time())).encode(), mode=0o600, sync=False)
    return proc


def await_build(piece, directory, final, lock, timeout):
    """Return once ``final`` checks out or a failure marker names why not, starting the
    builder when no build is live: whether a build ran meanwhile (False: it was there at
    once). Raises RuntimeError when the builder this process started ends with neither (its
    log names why), or after ``timeout`` seconds."""
    from torchada._core import files, native_cache

    deadline = time.monotonic() + timeout
    mine = None
    waited = False
    while True:
        if native_cache.check(final) is None or native_cache.failure(final) is not None:
            return waited
        waited = True
        if mine is not None and mine.poll() is not None:
            if native_cache.check(final) is None or native_cache.failure(final) is not None:
                return waited
            raise RuntimeError("its builder exited with status %d without a library (%s says "
                               "why)" % (mine.returncode, os.path.join(directory, LOG_NAME)))
        if mine is None:
            # one asker at a time decides (the spawn lock), so two never start two builders
            with files.file_lock(lock + ".spawn", timeout=timeout):
                if native_cache.check(final) is not None and native_cache.failure(final) is None \
                        and not lock_is_held(lock) and not _note_is_live(directory):
                    mine = spawn(piece, directory)
        if time.monotonic() > deadline:
            raise RuntimeError("no library after %d s (a build is still running: %s)"
                               % (timeout, os.path.join(directory, LOG_NAME)))
        time.sleep(POLL_S)


def main(argv):
    """The builder: build ``argv[0]`` (a PIECES name) in this process; 0 when built."""
    import importlib

    if len(argv) != 1 or argv[0] not in PIECES:
        print("usage: python -m torchada.areas._kit.detached {%s}" % ",".join(PIECES),
              file=sys.stderr)
        return 2
    module, _, function = PIECES[argv[0]].partition(":")
    started = time.time()
    print("torchada builder %d: %s started %s" % (os.getpid(), argv[0],
                                                   time.strftime("%Y-%m-%d %H:%M:%S")), flush=True)
    try:
        outcome = getattr(importlib.import_module(module), function)()
    except Exception as exc:
        print("torchada builder %d: failed after %.1f s: %s: %s" % (
            os.getpid(), time.time() - started, type(exc).__name__, exc), flush=True)
        return 1
    print("torchada builder %d: %s after %.1f s" % (os.getpid(), outcome, time.time() - started),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
