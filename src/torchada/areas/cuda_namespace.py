"""torch.cuda.* on MUSA: every public name of the installed torch.cuda is rebound.

CUDA APIs made to work: device management (set_device, current_device, device, device_of,
device_count, get_device_name / _capability / _properties, synchronize), streams and events
(Stream, Event, ExternalStream, StreamContext, stream, current_stream, default_stream,
set_stream, the torch.cuda.streams module path, ``.cuda_stream`` / ``.cuda_event``
handles), RNG (manual_seed[_all], seed[_all], initial_seed, get/set_rng_state[_all],
default_generators), memory (torch.cuda.memory.*: stats, snapshots, allocators, MemPool,
use_mem_pool), legacy tensor types, errors. CUDA APIs with no MUSA equivalent raise
NotImplementedError naming the API and the torch_musa version. The table of every name is
data, in ``torchada.areas.cuda_api_table``; this area applies the rows it owns (and decides
names the table lacks by rule); graphs, nvtx and nccl rows belong to the graphs, profiler
and distributed areas, ``torch.cuda.is_available`` to the devices area.

torch_musa APIs relied on: the torch.musa names named by the table (device.py, stream.py,
memory.py, random.py of torch_musa), torch.musa.core._lazy_init, torch.musa.ExternalStream.

RNG alignment with NVIDIA GPUs is torch_musa's own switch, passed through as it is:
TORCH_RNG_ALIGN=<GPU> (torch_musa >= 2.9.1.post1 reads it when torchada imports it) makes a
CUDA program's seeded stream CUDA's (docs/cuda_namespace.md). On an older torch_musa the
fix unit ``cuda_namespace.rng_align_notice`` says once that the variable does nothing there.
"""
from torchada.areas import _kit


def coverage():
    """After apply: {qualname: (kind, how)} for every torch.cuda name handled (by this area
    and the other owners of table rows), ``how`` saying by table or by rule; None before
    apply / after revert."""
    return _kit.coverage()


def rule_handled():
    """Names of the installed torch.cuda that the table lacks and the rule decided."""
    cover = _kit.coverage()
    if not cover:
        return []
    return sorted(n for n, (kind, how) in cover.items() if how.startswith("rule"))


def coverage_note():
    """Shown by torchada.status() (a ctx.note asked when status is): counts of what was
    done, and the names decided by rule."""
    cover = _kit.coverage()
    if not cover:
        return None
    counts = {}
    for kind, _how in cover.values():
        counts[kind] = counts.get(kind, 0) + 1
    text = ", ".join("%d %s" % (counts.get(k, 0), k) for k in ("mapped", "emulated",
                                                              "unsupported", "native"))
    by_rule = rule_handled()
    return "torch.cuda names: %s; by rule: %s" % (text, ", ".join(by_rule) or "none")


# -- emulations: builder(ctx) -> replacement ---------------------------------------------------
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
    own = getattr(ctx.musa, "get_stream_from_external", None)
    if own is not None:
        return own  # torch_musa >= 2.9.1.post1 has its own (torch_musa/__init__.py at 5e25af7)
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
}


def apply(ctx):
    import torch.cuda  # noqa: F401

    _kit.apply_rows(ctx, EMULATIONS)
    ctx.note(coverage_note)
    # CUDA handle names on MUSA streams and events (libraries read stream.cuda_stream)
    for cls_name, cuda_attr, musa_attr in (("Stream", "cuda_stream", "musa_stream"),
                                           ("Event", "cuda_event", "musa_event")):
        cls = getattr(ctx.musa, cls_name, None)
        if isinstance(cls, type) and not hasattr(cls, cuda_attr) and hasattr(cls, musa_attr):
            ctx.setattr(cls, cuda_attr, property(lambda self, _a=musa_attr: getattr(self, _a),
                                                 doc="CUDA name of .%s (torchada)" % musa_attr))
    by_rule = rule_handled()
    if by_rule:
        import logging

        cover = _kit.coverage()
        logging.getLogger("torchada").info(
            "torchada: cuda_namespace decided %d torch.cuda names the table lacks by rule "
            "(see torchada.areas.cuda_namespace.coverage()): %s", len(by_rule),
            ", ".join("%s=%s" % (n, cover[n][0]) for n in by_rule))


@_kit.fix("rng_align_notice")
def rng_align_notice(ctx):
    """TORCH_RNG_ALIGN on a torch_musa without alignment (gated by release): one warning."""
    import os

    value = os.environ.get("TORCH_RNG_ALIGN")
    if value:
        from torchada._core.warn_once import warn_once

        warn_once("rng_align", "torchada: TORCH_RNG_ALIGN=%s has no effect: %s has no RNG "
                  "alignment with NVIDIA GPUs (torch_musa 2.9.1.post1 added it: upgrade "
                  "torch_musa); seeded torch.cuda draws give MUSA's own stream", value,
                  ctx.musa_label)
