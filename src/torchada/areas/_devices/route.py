"""How device arguments reach the Python wrappers: through the C prefilter (areas/_fastpath;
calls naming no CUDA device go straight to torch's callable) or directly."""
import functools


def choose(ctx):
    """(``fast``, the route for status). ``fast(orig, slow, dmap, types, positional=False,
    translated=None)`` is the prefilter in front of the Python wrapper ``slow``, or ``slow``
    itself where the prefilter is unavailable."""
    from torchada.areas import _fastpath

    prefilter, reason = _fastpath.load()
    if prefilter is None:
        return (lambda orig, slow, dmap, types, positional=False, translated=None: slow), \
            "Python wrappers (%s)" % reason

    def fast(orig, slow, dmap, types, positional=False, translated=None):
        return functools.update_wrapper(
            prefilter(orig, slow, dmap, types, positional, translated), orig)

    return fast, "C prefilter"
