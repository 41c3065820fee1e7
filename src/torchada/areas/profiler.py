"""Profiling names on MUSA: the nvtx rows of the torch.cuda table.

CUDA APIs made to work: ``torch.cuda.nvtx.range_push / range_pop / range_start /
range_end / mark / range`` as torch.profiler ``record_function`` ranges, so the ranges a
CUDA program marks show up in torch.profiler traces on MUSA (there is no NVTX on MUSA).

torch_musa APIs relied on: none; torch.autograd.profiler.record_function (device-neutral).
"""
from torchada.areas import _kit


def _nvtx(ctx):
    """nvtx ranges as torch.profiler record_function ranges (visible in torch.profiler)."""
    if "nvtx" in ctx.shared:
        return ctx.shared["nvtx"]
    import contextlib
    import itertools
    import threading

    from torch.autograd.profiler import record_function

    local = threading.local()
    started = {}
    ids = itertools.count(1)

    def _stack():
        stack = getattr(local, "stack", None)
        if stack is None:
            stack = local.stack = []
        return stack

    def range_push(msg):
        stack = _stack()
        rf = record_function(msg)
        rf.__enter__()
        stack.append(rf)
        return len(stack) - 1

    def range_pop():
        stack = _stack()
        if not stack:
            return -1
        stack.pop().__exit__(None, None, None)
        return len(stack)

    def range_start(msg):
        rf = record_function(msg)
        rf.__enter__()
        key = next(ids)
        started[key] = rf
        return key

    def range_end(range_id):
        rf = started.pop(range_id, None)
        if rf is not None:
            rf.__exit__(None, None, None)

    def mark(msg):
        with record_function(msg):
            pass

    @contextlib.contextmanager
    def range(msg, *args, **kwargs):  # noqa: A001 - CUDA's name
        range_push(msg.format(*args, **kwargs))
        try:
            yield
        finally:
            range_pop()

    funcs = {f.__name__: f for f in (range_push, range_pop, range_start, range_end, mark,
                                     range)}
    for f in funcs.values():
        f.__module__ = "torch.cuda.nvtx"
    ctx.shared["nvtx"] = funcs
    return funcs


EMULATIONS = {"nvtx." + _name: (lambda name: lambda ctx: _nvtx(ctx)[name])(_name)
              for _name in ("range_push", "range_pop", "range_start", "range_end", "mark",
                            "range")}


def apply(journal):
    import torch.cuda  # noqa: F401

    _kit.apply_rows(_kit.context(journal, __name__), EMULATIONS)
