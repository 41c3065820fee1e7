"""Dynamo traces the devices area's C prefilters as the torch functions they stand for.

CUDA API made to work: ``torch.compile`` of code calling ``torch.zeros(..., device="cuda")``
and the other factories (``fullgraph=True`` included). Dynamo recognises torch's factories
by their Python type (C builtins) or, for Python wrappers, by name; the C prefilter
(areas/_fastpath) is neither, so Dynamo took it for a user object ("Unsupported method
call") and broke the graph. Each prefilter installed on ``torch`` is registered the way
``torch._dynamo.allow_in_graph`` registers a callable (its id in Dynamo's allowed set): it
stays in the graph as one call, exactly as the factory it wraps, and runs (translating the
device) when the graph is traced. Nothing to do on the Python route.

torch_musa APIs relied on: none.
"""


def prefilters(torch):
    """The devices area's C prefilters installed on ``torch`` (none on the Python route)."""
    from torchada.areas._devices.factories import factory_wrappers

    return [fn for fn in factory_wrappers(torch)
            if getattr(fn, "__torchada_slow__", None) is not None]


def apply(ctx):
    found = prefilters(ctx.torch)
    if not found:
        ctx.note("nothing registered: the devices area uses the Python route")
        return
    from torch._dynamo import trace_rules

    allowed = trace_rules._allowed_callable_ids
    for fn in found:
        if id(fn) not in allowed:
            allowed.add(id(fn))
            ctx.on_revert(lambda i=id(fn): allowed.remove(i), write=True)
    ctx.note("%d factory prefilters traced as torch functions" % len(found))
