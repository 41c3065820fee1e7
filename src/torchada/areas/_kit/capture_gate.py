"""Graph captures and torchada's own device probes never overlap, on any thread.

A capture in ``"global"`` error mode (the default of ``torch.cuda.graph`` and
``CUDAGraph.capture_begin``) forbids every thread of the process from potentially unsafe
device calls while it lasts: a host copy or synchronisation from another thread fails and
invalidates the user's capture (CUDA's cudaStreamCaptureModeGlobal; torch_musa's MUSAGraph
ports c10's CUDAGraph, so MUSA's mode semantics are taken to be the same: unknown beyond the
port). torchada's probes (the compiled operator overrides' exact-answer checks) copy to the
host on a background thread, so they must not run while any capture is open.

One condition, two sides: a capture holds a shared count from ``capture_begin`` to
``capture_end`` (the graphs area wraps torch.musa.MUSAGraph, so torch.cuda.CUDAGraph,
torch.cuda.graph and make_graphed_callables all count); probes run inside ``probing()``,
which waits until no capture is open and keeps new captures waiting until it ends (the
probes take milliseconds). Nothing here runs on a kernel launch or a replay.
"""
import contextlib
import threading

_cond = threading.Condition()
_open_captures = 0
_probing = False


class CaptureStillOpen(RuntimeError):
    """A graph capture stayed open longer than the probes were willing to wait."""


def capture_begins():
    """Called before a capture begins: waits while torchada's probes run."""
    global _open_captures
    with _cond:
        _cond.wait_for(lambda: not _probing)
        _open_captures += 1


def capture_ends():
    """Called when a capture ends (or its begin failed)."""
    global _open_captures
    with _cond:
        _open_captures = max(0, _open_captures - 1)
        _cond.notify_all()


def open_captures():
    with _cond:
        return _open_captures


@contextlib.contextmanager
def probing(timeout):
    """Run device probes with no capture open anywhere in the process; CaptureStillOpen
    when one stays open ``timeout`` seconds."""
    global _probing
    with _cond:
        if not _cond.wait_for(lambda: _open_captures == 0, timeout):
            raise CaptureStillOpen("a graph capture stayed open on another thread for %g s "
                                   "(probes copy to the host, which would invalidate it)"
                                   % timeout)
        _probing = True
    try:
        yield
    finally:
        with _cond:
            _probing = False
            _cond.notify_all()
