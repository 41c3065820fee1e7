"""Profiling CUDA programs on MUSA: activities, the autograd profiler and nvtx ranges.

CUDA APIs made to work:
  - ``torch.profiler.profile(activities=[CPU, CUDA])`` and every other place an activity
    set reaches ``_KinetoProfile`` (``schedule`` / ``tensorboard_trace_handler`` users,
    ``_KinetoProfile`` itself, dict-form activity filters): ``ProfilerActivity.CUDA`` means
    ``ProfilerActivity.PrivateUse1``; ``torch.profiler.supported_activities()`` lists CUDA
    where PrivateUse1 is supported. Unknown members reach torch unchanged (its own error).
  - ``torch.autograd.profiler.profile(use_cuda=True)`` / ``use_device="cuda"``: the musa
    device, so ``key_averages()`` has the device-time columns (named MUSA by torch).
  - ``torch.cuda.nvtx.range_push / range_pop / range_start / range_end / mark / range``
    (the table's nvtx rows) as torch.profiler ``record_function`` ranges, so the ranges a
    CUDA program marks show up in torch.profiler traces on MUSA (there is no NVTX on MUSA).

torch_musa APIs relied on: the PrivateUse1 profiler backend torch_musa registers (its
kineto patches name the privateuse1 backend; cuda_vs_musa.md), record_function.
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


def musa_activity(activity):
    import torch.profiler

    kinds = torch.profiler.ProfilerActivity
    return kinds.PrivateUse1 if activity == kinds.CUDA else activity


def musa_activities(activities):
    """An activity iterable (members or {member: filters} dicts) with CUDA -> PrivateUse1."""
    if activities is None:
        return None
    out = []
    for item in activities:
        if isinstance(item, dict):
            item = {musa_activity(k): v for k, v in item.items()}
        else:
            item = musa_activity(item)
        if item not in out:
            out.append(item)
    return out


def _kineto_init(original):
    @_kit.wraps(original)
    def __init__(self, *args, **kwargs):
        if "activities" in kwargs:
            kwargs["activities"] = musa_activities(kwargs["activities"])
        original(self, *args, **kwargs)

    return __init__


def _supported_activities(original):
    @_kit.wraps(original)
    def supported_activities():
        import torch.profiler

        found = set(original())
        kinds = torch.profiler.ProfilerActivity
        if kinds.PrivateUse1 in found:
            found.add(kinds.CUDA)
        return found

    return supported_activities


def _autograd_init(original):
    @_kit.wraps(original)
    def __init__(self, *args, **kwargs):
        if kwargs.get("use_device") == "cuda":
            kwargs["use_device"] = "musa"
        if kwargs.get("use_cuda"):
            kwargs["use_cuda"] = False
            kwargs.setdefault("use_device", "musa")
        original(self, *args, **kwargs)

    return __init__


def apply(ctx):
    import sys

    import torch.autograd.profiler
    import torch.cuda  # noqa: F401
    import torch.profiler.profiler

    _kit.apply_rows(ctx, EMULATIONS)
    kineto = torch.profiler.profiler._KinetoProfile
    ctx.setattr(kineto, "__init__", _kineto_init(kineto.__dict__["__init__"]))
    original = torch.profiler.profiler.supported_activities
    modules = [sys.modules.get(m) for m in ("torch.profiler", "torch.profiler.profiler")]
    _kit.rebind_everywhere(ctx, modules, "supported_activities", original,
                           _supported_activities(original))
    legacy = torch.autograd.profiler.profile
    ctx.setattr(legacy, "__init__", _autograd_init(legacy.__dict__["__init__"]))
