"""CUDA graphs on MUSA: the graph rows of the torch.cuda table.

CUDA APIs made to work: ``torch.cuda.CUDAGraph`` (a subclass of torch.musa.MUSAGraph taking
CUDA's keywords; ``keep_graph`` / ``check_input_liveness`` raise NotImplementedError),
``torch.cuda.graph(cuda_graph, pool=, stream=, capture_error_mode=)`` (torch_musa's names
its first argument ``musa_graph``, graphs.py:135 per the 2.7.1 manifest; it is passed on
positionally; ``enable_annotations`` / ``check_input_liveness`` raise),
``make_graphed_callables`` (no ``pool`` keyword on MUSA: ``pool=`` raises),
``graph_pool_handle``, ``is_current_stream_capturing``, and the same names under
``torch.cuda.graphs``. With ``TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH=<dir>``, every
``torch.cuda.CUDAGraph`` capture (directly or through ``torch.cuda.graph``) enables debug
mode first and writes ``<dir>/graph_<ns-timestamp>.dot`` after it (the directory is created,
no dump overwrites another; a missing API or an unwritable directory is one warning, never a
failure). Executable rotation (the ``exec_rotation`` fix unit, ``torchada/areas/_graph_exec``)
keeps live graph executables under the driver's cap: an LRU over every MUSAGraph, evicted
executables rebuilt from their kept templates at their next replay (docs/graphs.md).
Every capture (torch.musa.MUSAGraph's capture_begin / capture_end, so every spelling above)
is counted by ``_kit.capture_gate``: torchada's background device probes wait until no
capture is open, and a capture begun while they run waits for them (milliseconds), so no
probe's host copy can invalidate a ``"global"``-mode capture on another thread.

torch_musa APIs relied on: torch.musa.MUSAGraph, torch.musa.graph,
torch.musa.make_graphed_callables, torch.musa.graph_pool_handle,
torch.musa.is_current_stream_capturing, MUSAGraph.enable_debug_mode / debug_dump,
MUSAGraph.reinstantiate_graph (torch_musa/musa_graph/graphs.py, torch_musa/csrc/core/Graph.cpp).
"""
import os
import time

from torchada._core.settings import read
from torchada._core.warn_once import warn_once
from torchada.areas import _kit
from torchada.areas._kit import capture_gate

DEBUG_DUMP_VAR = "TORCHADA_CUDA_GRAPH_DEBUG_DUMP_PATH"


def _call_debug_api(graph, name, *args):
    """graph.<name>(*args); a torch_musa without it gets one warning per name, no failure."""
    method = getattr(graph, name, None)
    if method is None:
        warn_once("graphs.debug:" + name, "torchada: %s is set but this torch_musa's MUSAGraph "
                  "has no %s(); no graph debug dump is written", DEBUG_DUMP_VAR, name)
        return False
    method(*args)
    return True


def _dump_path(directory):
    """<directory>/graph_<ns timestamp>.dot, never an existing file."""
    stamp = time.time_ns()
    path = os.path.join(directory, "graph_%d.dot" % stamp)
    suffix = 0
    while os.path.exists(path):
        suffix += 1
        path = os.path.join(directory, "graph_%d_%d.dot" % (stamp, suffix))
    return path


def _dump(graph, directory):
    try:
        os.makedirs(directory, exist_ok=True)
        _call_debug_api(graph, "debug_dump", _dump_path(directory))
    except OSError as exc:  # a dump must never break the program's capture
        warn_once("graphs.debug_write", "torchada: %s=%r: cannot write graph dumps (%s); "
                  "captures go on without them", DEBUG_DUMP_VAR, directory, exc)


def _graph_class(ctx):
    base = ctx.musa.graph

    class graph(base):
        """torch.cuda.graph on MUSA: torch.musa.graph with CUDA's keywords (torchada)."""

        def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global",
                     enable_annotations=False, check_input_liveness=False):
            if enable_annotations:
                raise ctx.argument_error("torch.cuda.graph", "enable_annotations", True)
            if check_input_liveness:
                raise ctx.argument_error("torch.cuda.graph", "check_input_liveness", True)
            base.__init__(self, cuda_graph, pool=pool, stream=stream,
                          capture_error_mode=capture_error_mode)

    graph.__module__ = "torch.cuda.graphs"
    return graph


def _cuda_graph_class(ctx):
    base = ctx.musa.MUSAGraph

    class CUDAGraph(base):
        """torch.cuda.CUDAGraph on MUSA: torch.musa.MUSAGraph with CUDA's keywords."""

        def __new__(cls, keep_graph=False):
            if keep_graph:
                raise ctx.argument_error("torch.cuda.CUDAGraph", "keep_graph", keep_graph)
            return base.__new__(cls)

        def __init__(self, keep_graph=False):
            base.__init__(self)

        def capture_begin(self, pool=None, capture_error_mode="global",
                          check_input_liveness=False):
            if check_input_liveness:
                raise ctx.argument_error("torch.cuda.CUDAGraph.capture_begin",
                                         "check_input_liveness", True)
            if read(DEBUG_DUMP_VAR):
                _call_debug_api(self, "enable_debug_mode")
            return base.capture_begin(self, pool=pool, capture_error_mode=capture_error_mode)

        def capture_end(self):
            result = base.capture_end(self)
            directory = read(DEBUG_DUMP_VAR)
            if directory:
                _dump(self, directory)
            return result

    CUDAGraph.__module__ = "torch.cuda.graphs"
    return CUDAGraph


def _make_graphed_callables(ctx):
    base = ctx.musa.make_graphed_callables

    def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                               allow_unused_input=False, pool=None):
        if pool is not None:
            raise ctx.argument_error("torch.cuda.make_graphed_callables", "pool", pool)
        return base(callables, sample_args, num_warmup_iters, allow_unused_input)

    return make_graphed_callables


EMULATIONS = {
    "graph": _graph_class,
    "CUDAGraph": _cuda_graph_class,
    "make_graphed_callables": _make_graphed_callables,
}


def _count_captures(ctx):
    """capture_begin / capture_end of torch.musa.MUSAGraph counted by the capture gate."""
    cls = ctx.musa.MUSAGraph
    base_begin = getattr(cls, "capture_begin", None)
    base_end = getattr(cls, "capture_end", None)
    if base_begin is None or base_end is None:
        ctx.note("captures not counted: this MUSAGraph has no capture_begin / capture_end")
        return

    @_kit.wraps(base_begin)
    def capture_begin(self, *args, **kwargs):
        capture_gate.capture_begins()
        try:
            return base_begin(self, *args, **kwargs)
        except BaseException:
            capture_gate.capture_ends()
            raise

    @_kit.wraps(base_end)
    def capture_end(self, *args, **kwargs):
        try:
            return base_end(self, *args, **kwargs)
        finally:
            capture_gate.capture_ends()

    ctx.setattr(cls, "capture_begin", capture_begin)
    ctx.setattr(cls, "capture_end", capture_end)


def apply(ctx):
    import torch.cuda  # noqa: F401

    _count_captures(ctx)
    _kit.apply_rows(ctx, EMULATIONS)


@_kit.fix("exec_rotation")
def exec_rotation(ctx):
    """Live graph executables kept under the driver's cap (torchada/areas/_graph_exec)."""
    from torchada.areas._graph_exec import install

    rotation = install.install(ctx)
    if rotation is not None:
        # live numbers, asked when status is (the off note says why when it turns off)
        ctx.note(lambda: None if rotation.off_reason is not None
                 else "exec_rotation: " + rotation.summary())
