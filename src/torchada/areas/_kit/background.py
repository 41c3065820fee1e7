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

Torch work on such a thread (loading the library into torch, the probes) runs inside
``torch_work()``: at interpreter exit an atexit hook lets the work under way finish (up to
``EXIT_WAIT_S``) and refuses new work, so no daemon thread is inside torch while the
interpreter and torch's static state are torn down (measured on torch 2.7.1: a probe cut
off there aborted the process with "terminate called without an active exception";
docs/simulator.md, "torch's shutdown abort").
"""
import atexit
import contextlib
import logging
import os
import threading
import time

logger = logging.getLogger("torchada")
EXIT_WAIT_S = 10.0  # the longest exit waits for torch work under way on a background thread

_work = threading.Condition()
_busy = [0]        # torch work sections running now (all threads)
_exiting = [False]
_hooked = []       # the pid whose atexit hook is registered


class Exiting(BaseException):
    """The interpreter is exiting: torch work is not started on a background thread. A
    BaseException so that no failure handler reports it as a failed build."""


@contextlib.contextmanager
def torch_work():
    """A section of torch work that interpreter exit waits for (and refuses to start)."""
    with _work:
        if _exiting[0]:
            raise Exiting("the interpreter is exiting")
        _busy[0] += 1
    try:
        yield
    finally:
        with _work:
            _busy[0] -= 1
            _work.notify_all()


def _at_exit():
    with _work:
        _exiting[0] = True
        _work.wait_for(lambda: _busy[0] == 0, EXIT_WAIT_S)


def _reset_in_child():  # a fork during a section: the child has no such thread
    global _work
    _work = threading.Condition()
    _busy[0], _exiting[0] = 0, False


def _hook_exit():
    if not _hooked or _hooked[0] != os.getpid():
        _hooked[:] = [os.getpid()]
        atexit.register(_at_exit)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_in_child)


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
            _hook_exit()
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
        if self._on_done is not None and not isinstance(error, Exiting):
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
