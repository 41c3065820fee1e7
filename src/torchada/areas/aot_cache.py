"""The AOT-autograd cache keeps working with torchada's factory wrappers.

CUDA API made to work: ``torch.compile`` with a warm cache. Dynamo keeps the factories
(``torch.zeros``, ``torch.ones``, ...) in its graph as the objects it finds on ``torch``,
which under torchada are the ``devices`` area's wrappers (C prefilters or Python functions); AOT autograd's cache check
(``check_node_safe`` in torch/_functorch/_aot_autograd/autograd_cache.py) accepts C builtins
and named torch functions only, so every compiled function that called a factory bypassed
the cache ("Unsupported call_function target <function _VariableFunctionsClass.ones>") and
was compiled again in every process.

The wrappers are marked cacheable under the names the check computes (``torch.<name>``):
* torch with ``torch._inductor.config.unsafe_marked_cacheable_functions`` (2.9 on): there,
  keyed by torchada's and torch_musa's versions. That dict is part of Inductor's config,
  which is hashed into the cache key, so a process with torchada never reuses the entry of
  one without it (their graphs put tensors on different devices).
* older torch (2.7, 2.8): ``check_node_safe`` accepts the wrappers themselves (by identity)
  and asks the original for every other node. That cache key does not include torchada
  (docs/compile.md).

torch_musa APIs relied on: none.
"""
from torchada.areas import _kit


def _wrapper_names(torch):
    """``torch.<name>`` for each factory the devices area replaced."""
    from torchada.areas._devices.factories import factory_wrappers

    return ["%s.%s" % (fn.__module__, fn.__name__) for fn in factory_wrappers(torch)]


def apply(ctx):
    torch = ctx.torch
    names = _wrapper_names(torch)
    if not names:
        ctx.note("nothing marked: no factory wrappers are installed")
        return
    import torch._inductor.config as inductor_config

    marked = getattr(inductor_config, "unsafe_marked_cacheable_functions", None)
    if isinstance(marked, dict):
        import torchada

        key = "torchada %s, %s" % (torchada.__version__, ctx.musa_label)
        for name in names:
            ctx.setitem(marked, name, key)
        ctx.note("%d factories marked cacheable (Inductor config)" % len(names))
        return
    # Older torch: the check itself learns the wrappers (a module global, called by name).
    import torch._functorch._aot_autograd.autograd_cache as cache

    ours = frozenset(getattr(torch, name.rsplit(".", 1)[1]) for name in names)
    original = cache.check_node_safe

    @_kit.wraps(original)
    def check_node_safe(node):
        if node.op == "call_function" and node.target in ours:
            return None
        return original(node)

    ctx.setattr(cache, "check_node_safe", check_node_safe)
    ctx.note("%d factories marked cacheable (AOT autograd's node check)" % len(ours))
