"""Simulated MUSA graphs.

Capture records every op run on musa tensors (a TorchDispatchMode) while still executing
it; replay re-runs the recorded ops in order on the *same* tensor objects and writes fresh
results into the tensors produced during capture, so a replay recomputes from whatever
the static inputs hold now.  This is a host-side re-execution, not a device graph.

Executables are modelled apart from templates, as the driver has them: the recorded call
list is the template (kept from capture_end until reset, as MUSAGraph keeps graph_:
torch_musa v2.7.1 csrc/aten/musa/MUSAGraph.cpp:203-214, 291-295); the executable is a
handle in the backend's table (musa_sim.cpp
graph_exec_*), capped and costed like the driver's.  ``self._exec`` holds the handle
(0: none), as ``graph_exec_`` / ``has_graph_exec_`` do in the C++ MUSAGraph.
"""
import itertools
import threading

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchada.testing._simconfig import config

_ops = torch.ops.musa_sim
_pool_ids = itertools.count(1)
# The streams capturing now, as (device, stream id). The graph owns the capture state;
# torch_musa._MUSAC's capture checks read this set (no import back into _MUSAC).
capturing_streams = set()


def _current_device():
    return int(_ops.current_device())  # what _MUSAC._musa_getDevice answers


_replay = threading.local()


def host_code_skipped():
    """True while this thread captures or replays a graph.  A device replay runs no host code;
    the simulated one re-runs the recorded ops, so a compiled kernel's host-side step (one
    that waits for the device: kernels_sim.cpp stream_capturing) must see the replay as
    the capture it repeats."""
    return getattr(_replay, "depth", 0) > 0 or _current_stream_capturing()


def _current_stream_capturing():
    """_MUSAC._musa_isCurrentStreamCapturing, from the set this module keeps."""
    device = _current_device()
    return (device, int(_ops.get_stream(device))) in capturing_streams


def new_pool_id():
    return (next(_pool_ids), 0)


def live_executables():
    return int(_ops.graph_exec_count())


def _instantiate():
    """musaGraphInstantiate: a new executable handle, or the driver's error past the cap."""
    cfg = config()
    cap = cfg.graph_exec_cap if cfg.has("graph_exec_cap") else 0
    return int(_ops.graph_exec_instantiate(cap, cfg.graph_instantiate_us * 1000))


def _is_musa(x):
    # Plain tensors only: a device capture records kernels launched, and tracing (Dynamo's
    # fake tensors, AOT autograd's functional ones) launches none.
    return type(x) in (torch.Tensor, torch.nn.Parameter) and x.device.type == "musa"


class _Recorder(TorchDispatchMode):
    """Records the ops of a capture. A device capture is invisible to torch.compile (a
    graph may compile inside it, as on a card: torch_musa's MUSAGraph::capture_begin only
    begins a stream capture, MUSAGraph.cpp v2.7.1), so the recorder asks Dynamo to ignore it:
    ``ignore_compile_internals`` (torch >= 2.9's check: off while compiling, on while the
    compiled code runs) and ``is_infra_mode`` (torch 2.7 / 2.8's check)."""

    @classmethod
    def ignore_compile_internals(cls):
        return True

    @classmethod
    def is_infra_mode(cls):
        return True

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        flat = torch.utils._pytree.tree_leaves((args, kwargs, out))
        if any(_is_musa(t) for t in flat):
            self.calls.append((func, args, kwargs, out))
        return out


def _write_back(old, new):
    if isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor):
        if old is new:
            return
        if (old.untyped_storage().data_ptr() == new.untyped_storage().data_ptr()
                and old.storage_offset() == new.storage_offset() and old.stride() == new.stride()):
            return
        if old.is_inference():  # inference tensors have no version counter to keep
            old.copy_(new)
            return
        with torch.autograd._unsafe_preserve_version_counter(old):
            old.detach().copy_(new)
    elif isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        for o, n in zip(old, new):
            _write_back(o, n)


class _MUSAGraph:
    _latest = None

    def __init__(self):
        self._calls = None
        self._recorder = None
        self._pool = None
        self._key = None
        self._debug = False
        self._exec = 0
        _MUSAGraph._latest = self

    def capture_begin(self, pool=None, capture_error_mode="global"):
        if capture_error_mode not in ("global", "thread_local", "relaxed"):
            raise RuntimeError(f"Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got {capture_error_mode}")
        # c10/cuda CUDAGraph::capture_begin (torch_musa's MUSAGraph.cpp ports it; line unknown)
        if self._calls is not None:
            raise RuntimeError("This MUSAGraph instance already owns a captured graph. "
                               "To capture a new graph, create a new instance.")
        dev = _current_device()
        sid = int(_ops.get_stream(dev))
        if sid == 0:
            raise RuntimeError(
                "MUSA graphs must be captured on a non-default stream. "
                "(However, after capture, it's ok to replay them on the default stream.)")
        self._pool = tuple(pool) if pool is not None else new_pool_id()
        self._key = (dev, sid)
        capturing_streams.add(self._key)
        _ops.set_capturing(True)
        self._recorder = _Recorder()
        self._recorder.__enter__()

    def capture_end(self):
        if self._recorder is None:
            raise RuntimeError("Called MUSAGraph::capture_end without a preceding capture_begin")
        # CUDAGraph::capture_end: "Capture must end on the same stream it began on."
        dev = _current_device()
        if (dev, int(_ops.get_stream(dev))) != self._key:
            raise RuntimeError("Capture must end on the same stream it began on.")
        self._recorder.__exit__(None, None, None)
        capturing_streams.discard(self._key)
        _ops.set_capturing(bool(capturing_streams))
        self._calls, self._recorder = self._recorder.calls, None
        # torch_musa v2.7.1 csrc/aten/musa/MUSAGraph.cpp:180-188: end the capture (the
        # template exists, has_graph_ = true), then instantiate; the template is never
        # destroyed here (lines 203-214), so it stays until reset(), also when the
        # instantiate raises.
        self._exec = _instantiate()

    def reinstantiate_graph(self):
        # MUSAGraph.cpp:217-226 (v2.7.1; v2.7.0 has no such method): it requires the
        # template AND an executable (line 219), destroys the executable, instantiates anew.
        if self._calls is None or not self._exec:
            raise RuntimeError("The graph_ and graph_exec_ musa have been created in the graph "
                               "capture stage")
        _ops.graph_exec_destroy(self._exec)
        self._exec = 0
        self._exec = _instantiate()

    def replay(self):
        # CUDAGraph::replay checks has_graph_exec_, not the template.
        if not self._exec:
            raise RuntimeError("Called MUSAGraph::replay without a preceding successful capture.")
        # A device replay writes memory whatever autograd thinks of the tensors; a graph
        # captured under inference_mode (vLLM, SGLang) holds inference tensors, which only
        # accept in-place writes inside inference_mode (normal tensors accept them there too).
        _replay.depth = getattr(_replay, "depth", 0) + 1
        try:
            with torch.inference_mode():
                for func, args, kwargs, out in self._calls:
                    _write_back(out, func(*args, **kwargs))
        finally:
            _replay.depth -= 1

    def reset(self):
        self._calls = None
        if self._exec:
            handle, self._exec = self._exec, 0
            _ops.graph_exec_destroy(handle)

    def pool(self):
        if self._pool is None:
            raise RuntimeError("Called MUSAGraph::pool without a preceding capture_begin")
        return self._pool

    def enable_debug_mode(self):
        self._debug = True

    def debug_dump(self, debug_path):
        with open(debug_path, "w") as f:
            for func, *_ in self._calls or []:
                f.write(f"{func}\n")

    def __del__(self):
        try:
            self.reset()
        except Exception:
            pass
