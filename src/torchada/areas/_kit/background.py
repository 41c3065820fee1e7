"""A native piece prepared off the caller's thread: built (or loaded) once, on a daemon thread.

No user call waits on a compiler: the first call that needs a piece starts ``prepare`` (the
kit's native builder: compile if the cache is cold, else load) on a daemon thread and goes
on with its fallback; later calls look at ``done`` (one attribute read) and, once it is
set, take ``result`` or ``error`` on their own thread, at their own call boundary. Why a
thread and not a detached child process: the piece must be loaded into this process, the
compile already runs in compiler subprocesses (the GIL is free meanwhile), the shared
build lock keeps concurrent processes to one compile, and a child would pay a second torch
import. A daemon thread never holds the interpreter open at exit (a build cut short there
is redone by the next process, or ahead of time by ``torchada build``). A fork started
before ``done`` starts its own thread in the child (the parent's does not exist there).
"""
import logging
import os
import threading
import time

logger = logging.getLogger("torchada")


class Background:
    """``prepare()`` run once per process on a daemon thread; never raises to the caller.

    ``on_done(self)`` runs on that thread after ``result`` / ``error`` are set (e.g. the one
    warning of a failed build); ``done`` is set last, so a caller that sees it sees both."""

    def __init__(self, what, prepare, on_done=None):
        self.what = what
        self._prepare = prepare
        self._on_done = on_done
        self._lock = threading.Lock()
        self._thread = None
        self._pid = None
        self.result = None
        self.error = None
        self.seconds = None
        self.done = False

    @property
    def started(self):
        return self._thread is not None and self._pid == os.getpid()

    def start(self):
        """Start the thread if this process has none yet (cheap once started)."""
        if self.done or self.started:
            return
        with self._lock:
            if self.done or self.started:
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="torchada build: %s" % self.what)
            try:
                self._thread.start()
            except RuntimeError as exc:  # no new threads (interpreter shutting down)
                self._finish(None, exc, 0.0)

    def _run(self):
        started = time.perf_counter()
        result = error = None
        try:
            result = self._prepare()
        except BaseException as exc:  # a build failure must never surface on this thread
            error = exc
        self._finish(result, error, time.perf_counter() - started)

    def _finish(self, result, error, seconds):
        self.result, self.error, self.seconds = result, error, seconds
        if self._on_done is not None:
            try:
                self._on_done(self)
            except Exception:  # a report must not stop ``done`` from being set
                logger.debug("torchada: reporting %s failed", self.what, exc_info=True)
        self.done = True

    def wait(self, timeout=None):
        """Start if needed and wait up to ``timeout`` s (tests, ``torchada build``);
        returns ``done``."""
        self.start()
        thread = self._thread
        if not self.done and thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return self.done
