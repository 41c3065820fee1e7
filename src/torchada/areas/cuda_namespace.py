"""torch.cuda.* on MUSA: every public name of the installed torch.cuda is rebound.

CUDA APIs made to work: device management (set_device, current_device, device, device_of,
device_count, get_device_name / _capability / _properties, synchronize), streams and events
(Stream, Event, ExternalStream, StreamContext, stream, current_stream, default_stream,
set_stream, the torch.cuda.streams module path, ``.cuda_stream`` / ``.cuda_event``
handles), RNG (manual_seed[_all], seed[_all], initial_seed, get/set_rng_state[_all],
default_generators), memory (torch.cuda.memory.*: stats, snapshots, allocators, MemPool,
use_mem_pool), graphs (CUDAGraph, graph(cuda_graph=...), make_graphed_callables,
graph_pool_handle), nvtx ranges (as torch.profiler record_function ranges), legacy tensor
types, errors. CUDA APIs with no MUSA equivalent raise NotImplementedError naming the API
and the torch_musa version. The table of every name is data, in
``torchada.areas.cuda_api_table``; ``torch.cuda.is_available`` is left to the devices area.

torch_musa APIs relied on: the torch.musa names named by the table (device.py, stream.py,
memory.py, random.py, musa_graph/graphs.py of torch_musa), torch.musa.core._lazy_init,
torch.musa.mccl.version, torch.musa.ExternalStream, torch.musa.MUSAGraph / graph /
make_graphed_callables.
"""


# -- what apply decided, for status and tests --------------------------------------------------
_coverage = None


def coverage():
    """After apply: {qualname: (kind, how)} for every name handled, ``how`` saying by table
    or by rule; None before apply / after revert."""
    return _coverage


def rule_handled():
    """Names of the installed torch.cuda that the table lacks and the rule decided."""
    if not _coverage:
        return []
    return sorted(n for n, (kind, how) in _coverage.items() if how.startswith("rule"))


def status_note():
    """Shown by torchada.status(): counts of what was done, and the names decided by rule."""
    if not _coverage:
        return None
    counts = {}
    for kind, _how in _coverage.values():
        counts[kind] = counts.get(kind, 0) + 1
    text = ", ".join("%d %s" % (counts.get(k, 0), k) for k in ("mapped", "emulated",
                                                              "unsupported", "native"))
    by_rule = rule_handled()
    return "torch.cuda names: %s; by rule: %s" % (text, ", ".join(by_rule) or "none")


# -- helpers ---------------------------------------------------------------------------------
class _Context:
    def __init__(self, torch):
        self.torch = torch
        self.musa = torch.musa
        version = getattr(self.musa, "__version__", None)
        self.musa_label = "torch_musa %s" % str(version).split("+")[0] if version else \
            "torch_musa (version unknown)"
        self.shared = {}

    def reason(self, text):
        return text.replace("{musa}", self.musa_label)

    def lookup(self, dotted):
        obj = self.musa
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj

    def has(self, dotted):
        try:
            self.lookup(dotted)
            return True
        except AttributeError:
            return False

    def argument_error(self, api, argument, value):
        return NotImplementedError(
            "%s(%s=%r) is not supported on MUSA (%s has no %s argument)"
            % (api, argument, value, self.musa_label, argument))


def unsupported(api, reason, like=None):
    """A stand-in raising NotImplementedError naming ``api``: a class where ``like`` is one."""
    message = "%s is not supported on MUSA (%s)" % (api, reason)
    short = api.rsplit(".", 1)[-1]
    module = api.rsplit(".", 1)[0]
    if isinstance(like, type):
        def __new__(cls, *args, **kwargs):
            raise NotImplementedError(message)

        stub = type(short, (), {"__new__": __new__, "__doc__": message, "__module__": module,
                                "__torchada_unsupported__": message})
        return stub

    def stub(*args, **kwargs):
        raise NotImplementedError(message)

    stub.__name__ = stub.__qualname__ = short
    stub.__module__ = module
    stub.__doc__ = message
    stub.__torchada_unsupported__ = message
    return stub


def _device_index(device, musa):
    """Index from an int, 'cuda:N' / 'musa:N' string or torch.device; None if none given."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        _, _, idx = device.partition(":")
        return int(idx) if idx.strip().lstrip("-").isdigit() else None
    return getattr(device, "index", None)


# -- emulations: builder(ctx) -> replacement ---------------------------------------------------
def _set_device(ctx):
    base, musa, torch = ctx.musa.set_device, ctx.musa, ctx.torch
    error = getattr(torch, "AcceleratorError", RuntimeError)

    def set_device(device):
        idx = _device_index(device, musa)
        if idx is None:
            return base(device)
        if idx < 0:
            return None  # CUDA: a negative index is a no-op
        if idx >= musa.device_count():
            raise error("CUDA error: invalid device ordinal (torch.cuda.set_device(%r): %d "
                        "MUSA device(s) visible)" % (device, musa.device_count()))
        return base(idx)

    set_device.__doc__ = "torch.cuda.set_device on MUSA (torchada)."
    return set_device


def _get_device_properties(ctx):
    base = ctx.musa.get_device_properties

    def get_device_properties(device=None):
        if device is None:
            device = ctx.musa.current_device()
        return base(device)

    return get_device_properties


def _memory_snapshot(ctx):
    base = ctx.musa.memory_snapshot

    def memory_snapshot(mempool_id=None, include_traces=True):
        if mempool_id is not None:
            raise ctx.argument_error("torch.cuda.memory_snapshot", "mempool_id", mempool_id)
        return base()

    return memory_snapshot


def _reset_max(name):
    def build(ctx):
        import warnings

        reset_peak = ctx.musa.reset_peak_memory_stats

        def reset_max(device=None):
            warnings.warn("torch.cuda.%s now calls torch.cuda.reset_peak_memory_stats, which "
                          "resets all peak memory statistics" % name, FutureWarning,
                          stacklevel=2)
            return reset_peak(device)

        reset_max.__name__ = reset_max.__qualname__ = name
        return reset_max

    return build


def _default_generators(ctx):
    musa = ctx.musa

    class _DefaultGenerators:
        """torch.musa.default_generators, read after MUSA lazy init (torchada)."""

        __slots__ = ()

        def _get(self):
            if getattr(musa, "default_generators", None) is None:
                musa._lazy_init()
            return musa.default_generators

        def __getitem__(self, index):
            return self._get()[index]

        def __len__(self):
            return len(self._get())

        def __iter__(self):
            return iter(self._get())

        def __repr__(self):
            return repr(tuple(self._get()))

    return _DefaultGenerators()


def _get_stream_from_external(ctx):
    external = ctx.musa.ExternalStream

    def get_stream_from_external(data_ptr, device=None):
        return external(data_ptr, device=device)

    return get_stream_from_external


def _sync_debug(ctx):
    def get_sync_debug_mode():
        return 0

    def set_sync_debug_mode(debug_mode):
        if debug_mode in (0, "default"):
            return None
        raise ctx.argument_error("torch.cuda.set_sync_debug_mode", "debug_mode", debug_mode)

    return get_sync_debug_mode, set_sync_debug_mode


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
            return base.capture_begin(self, pool=pool, capture_error_mode=capture_error_mode)

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


def _nccl_is_available(ctx):
    def is_available(tensors):
        return False

    is_available.__module__ = "torch.cuda.nccl"
    return is_available


EMULATIONS = {
    "set_device": _set_device,
    "get_device_properties": _get_device_properties,
    "memory_snapshot": _memory_snapshot,
    "reset_max_memory_allocated": _reset_max("reset_max_memory_allocated"),
    "reset_max_memory_cached": _reset_max("reset_max_memory_cached"),
    "default_generators": _default_generators,
    "has_half": lambda ctx: True,
    "has_magma": lambda ctx: False,
    "get_stream_from_external": _get_stream_from_external,
    "get_sync_debug_mode": lambda ctx: _sync_debug(ctx)[0],
    "set_sync_debug_mode": lambda ctx: _sync_debug(ctx)[1],
    "graph": _graph_class,
    "CUDAGraph": _cuda_graph_class,
    "make_graphed_callables": _make_graphed_callables,
    "nccl.is_available": _nccl_is_available,
}
for _n in ("range_push", "range_pop", "range_start", "range_end", "mark", "range"):
    EMULATIONS["nvtx." + _n] = (lambda name: lambda ctx: _nvtx(ctx)[name])(_n)
del _n


# -- planning --------------------------------------------------------------------------------
def _api_names(module):
    """Public API names of torch.cuda (or a submodule): __all__, plus public exception
    classes and torch.cuda submodules."""
    import types

    names = set(getattr(module, "__all__", None) or ())
    for name, value in list(vars(module).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("torch.cuda."):
                names.add(name)
        elif isinstance(value, type) and issubclass(value, BaseException):
            names.add(name)
        elif getattr(value, "__module__", None) == module.__name__ and (
                callable(value)) and module.__name__ != "torch.cuda":
            names.add(name)  # submodules without __all__ (torch.cuda.streams)
    return names


def _plan(ctx):
    """[(owner, name, value)] and the coverage dict, computed before anything is written."""
    import sys

    from torchada.areas import cuda_api_table as table

    torch = ctx.torch
    cuda = torch.cuda
    writes, cover, built = [], {}, {}

    def decide(qualname, original, top_name=None):
        row = table.row_for(qualname)
        how = "table"
        if row is None:
            how = "rule"
            leaf = qualname.rsplit(".", 1)[-1]
            if ctx.has(leaf) and not leaf.startswith("_"):
                row = table.Row(table.MAPPED, leaf, "cuda_namespace", "")
            elif qualname.rsplit(".", 1)[-1].startswith("_"):
                return None
            elif type(original).__name__ == "module":
                cover[qualname] = (table.MODULE, "rule")
                return None
            else:
                row = table.Row(table.UNSUPPORTED, table.NO_EQUIVALENT, "cuda_namespace", "")
        if row.area != "cuda_namespace" or row.kind in (table.NATIVE, table.MODULE):
            cover[qualname] = (row.kind, how + ":" + row.area)
            return None
        api = "torch.cuda." + qualname
        if row.kind == table.MAPPED:
            target = table.target_of(qualname, row)
            if ctx.has(target):
                cover[qualname] = (table.MAPPED, how)
                return ctx.lookup(target)
            if qualname.startswith("_"):
                return None  # private torch.cuda name: leave torch's object alone
            cover[qualname] = (table.UNSUPPORTED, how + ":target-missing")
            return unsupported(api, "%s has no torch.musa.%s" % (ctx.musa_label, target),
                               like=original)
        if row.kind == table.EMULATED:
            cover[qualname] = (table.EMULATED, how)
            return EMULATIONS[row.target](ctx)
        cover[qualname] = (table.UNSUPPORTED, how)
        return unsupported(api, ctx.reason(row.target), like=original)

    # top level (public API plus the private rows)
    top_names = _api_names(cuda) | {n for n in table.PRIVATE if hasattr(cuda, n)}
    for name in sorted(top_names):
        original = getattr(cuda, name)
        value = decide(name, original)
        if value is not None:
            writes.append((cuda, name, value))
            built[id(original)] = (original, value)

    # submodules: same object as a top-level name -> same replacement
    for sub in table.SUBMODULES:
        # Only submodules torch already imported: importing one here would leave a new
        # torch.cuda attribute behind after revert. Later imports keep torch's own names.
        module = sys.modules.get("torch.cuda." + sub)
        if module is None:
            continue
        names = _api_names(module) | {k.split(".", 1)[1] for k in table.SUB
                                      if k.startswith(sub + ".") and hasattr(module, k.split(".", 1)[1])}
        for name in sorted(names):
            original = getattr(module, name)
            qualname = "%s.%s" % (sub, name)
            if id(original) in built and built[id(original)][0] is original \
                    and table.row_for(qualname) is None:
                writes.append((module, name, built[id(original)][1]))
                cover[qualname] = cover.get(name, (table.MAPPED, "table"))
                continue
            value = decide(qualname, original)
            if value is not None:
                writes.append((module, name, value))
    return writes, cover


def apply(journal):
    import sys

    import torch
    import torch.cuda  # noqa: F401

    ctx = _Context(torch)
    writes, cover = _plan(ctx)
    for owner, name, value in writes:
        journal.setattr(owner, name, value)
    # CUDA handle names on MUSA streams and events (libraries read stream.cuda_stream)
    for cls_name, cuda_attr, musa_attr in (("Stream", "cuda_stream", "musa_stream"),
                                           ("Event", "cuda_event", "musa_event")):
        cls = getattr(ctx.musa, cls_name, None)
        if isinstance(cls, type) and not hasattr(cls, cuda_attr) and hasattr(cls, musa_attr):
            journal.setattr(cls, cuda_attr,
                            property(lambda self, _a=musa_attr: getattr(self, _a),
                                     doc="CUDA name of .%s (torchada)" % musa_attr))
    journal.setattr(sys.modules[__name__], "_coverage", cover)
    by_rule = sorted(n for n, (kind, how) in cover.items() if how.startswith("rule"))
    if by_rule:
        import logging

        logging.getLogger("torchada").info(
            "torchada: cuda_namespace decided %d torch.cuda names the table lacks by rule "
            "(see torchada.areas.cuda_namespace.coverage()): %s", len(by_rule),
            ", ".join("%s=%s" % (n, cover[n][0]) for n in by_rule))
