"""MUSA graphs (simulated: see torch_musa._sim.graphsim for how capture and replay work)."""
import gc
from typing import Optional

import torch

import torch_musa
from torch_musa import _MUSAC
from torch_musa._MUSAC import _graph_pool_handle


def is_current_stream_capturing():
    """Return True if MUSA graph capture is underway on the current MUSA stream."""
    return _MUSAC._musa_isCurrentStreamCapturing()


def graph_pool_handle():
    """Return an opaque token representing the id of a graph memory pool."""
    return _graph_pool_handle()


class MUSAGraph(_MUSAC._MUSAGraph):
    """Wrapper around a MUSA graph."""

    def __new__(cls):
        return super().__new__(cls)

    def capture_begin(self, pool=None, capture_error_mode="global"):
        """Begin capturing MUSA work on the current stream."""
        super().capture_begin(pool=pool, capture_error_mode=capture_error_mode)

    def capture_end(self):
        """End MUSA graph capture on the current stream."""
        super().capture_end()

    def reinstantiate_graph(self):
        """Replay the MUSA work captured by this graph."""
        super().reinstantiate_graph()

    def replay(self):
        """Replay the MUSA work captured by this graph."""
        super().replay()

    def reset(self):
        """Delete the graph currently held by this instance."""
        super().reset()

    def pool(self):
        """Return an opaque token representing the id of this graph's memory pool."""
        return super().pool()

    def enable_debug_mode(self):
        """Enable debugging mode for MUSAGraph.debug_dump."""
        return super().enable_debug_mode()

    def debug_dump(self, debug_path):
        """Arguments:
        debug_path (required): Path to dump the graph to."""
        return super().debug_dump(debug_path)

    @classmethod
    def get_latest_instance(cls):
        """get the latest MUSAGraph instance, default None"""
        return _MUSAC._MUSAGraph._latest


class graph:
    """Context-manager that captures MUSA work into a :class:`torch.musa.MUSAGraph` object."""

    default_capture_stream: Optional["torch_musa.Stream"] = None

    def __init__(self, musa_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        if self.__class__.default_capture_stream is None:
            self.__class__.default_capture_stream = torch_musa.Stream()
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else self.__class__.default_capture_stream
        assert self.capture_stream is not None
        self.stream_ctx = torch_musa.stream(self.capture_stream)
        self.musa_graph = musa_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        torch_musa.synchronize()
        gc.collect()
        torch_musa.empty_cache()
        self.stream_ctx.__enter__()
        self.musa_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, exc_type, exc_value, traceback):
        self.musa_graph.capture_end()
        self.stream_ctx.__exit__(exc_type, exc_value, traceback)


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False):
    """Simulated: runs the warm-up iterations and returns the callables unchanged (guess:
    the real function captures forward and backward graphs)."""
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    for fn, args in zip(callables, sample_args):
        for _ in range(num_warmup_iters):
            out = fn(*args)
            outs = [o for o in torch.utils._pytree.tree_leaves(out) if isinstance(o, torch.Tensor) and o.requires_grad]
            ins = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
            params = list(fn.parameters()) if isinstance(fn, torch.nn.Module) else []
            if outs and (ins or params):
                torch.autograd.grad(outs, ins + params, [torch.ones_like(o) for o in outs],
                                    allow_unused=allow_unused_input)
    return callables[0] if just_one else callables


def update_musa_graph_with_profile():
    """Not simulated: no profiler-driven graph updates (no-op)."""
    return None
