"""Puts the rotation on torch.musa.MUSAGraph (so torch.cuda.CUDAGraph, torch.musa.graph,
make_graphed_callables and Inductor's graphs all go through it), through the area's journal.

capture_end, reset and (where torch_musa binds it) reinstantiate_graph are wrapped at once
(capture-time cost only); replay is wrapped at the first eviction, so replays below the cap
run torch_musa's own. Evicted executables come back through the extension's restore.
"""
from torchada.areas import _kit
from torchada.areas._graph_exec import extension, lru, prepare, probe, settings

_ACTIVE = []  # the process's Rotation, for torchada status, tests and benchmarks


def active():
    """The installed Rotation, or None."""
    return _ACTIVE[-1] if _ACTIVE else None


def _decide_cap(torch):
    if settings.autoprobe_enabled():
        limit = probe.measured_limit(torch)
        if limit is not None:
            return settings.cap_from_probe(limit)
    return settings.configured_cap()


def install(ctx):
    """Wrap MUSAGraph's methods; returns the Rotation or None (with a status note why)."""
    if not settings.rotation_enabled():
        ctx.note("exec_rotation: off (%s=0)" % settings.ROTATION_VAR)
        return None
    cls = ctx.musa.MUSAGraph
    base_capture_end, base_replay, base_reset = cls.capture_end, cls.replay, cls.reset
    # torch_musa v2.7.1 binds reinstantiate_graph (csrc/core/Graph.cpp); v2.7.0 does not.
    # Evicted graphs come back through the extension's restore either way: torch_musa's
    # refuses a graph without an executable (MUSAGraph.cpp:219).
    base_reinstantiate = getattr(cls, "reinstantiate_graph", None)

    def track_replays():
        replay = _kit.wraps(base_replay)(rotation.replay_method(base_replay, extension.restore))
        ctx.setattr(cls, "replay", replay)

    rotation = lru.Rotation(
        lambda: _decide_cap(ctx.torch), prepare.load_free,
        on_first_eviction=track_replays,
        on_off=lambda reason: ctx.note("exec_rotation: off (%s)" % reason))

    @_kit.wraps(base_capture_end)
    def capture_end(self):
        prepare.start()  # the extension is built off the hot path from the first capture
        return rotation.capture_end(self, base_capture_end)

    @_kit.wraps(base_reset)
    def reset(self):
        return rotation.reset(self, base_reset)

    ctx.setattr(cls, "capture_end", capture_end)
    ctx.setattr(cls, "reset", reset)
    if base_reinstantiate is not None:
        @_kit.wraps(base_reinstantiate)
        def reinstantiate_graph(self):
            return rotation.reinstantiate(self, base_reinstantiate, extension.restore)

        ctx.setattr(cls, "reinstantiate_graph", reinstantiate_graph)
    _ACTIVE.append(rotation)
    ctx.on_revert(lambda: _ACTIVE.remove(rotation))
    return rotation
