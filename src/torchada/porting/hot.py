"""Hot lines: the only lines a rule or a CUDA-looking identifier can touch.

Every rule key, rule prefix and identifier pattern contains one of ``ANCHORS`` (``#`` for
``#include``), and none of them spans a newline except two kinds of rule: dispatch macros
and no-op calls (``\\s*`` between their tokens), which the engine checks for by name. So
the rule regex and the unmapped-identifier scan need only run over the lines holding an
anchor: about a fifth of the bytes of real CUDA trees (issue 14, docs/porting.md "Speed
and reach"). A test compares both ways on generated sources.
"""
import re

ANCHORS = ("cu", "CU", "Cu", "nv", "NV", "nccl", "NCCL", "#")
_ANCHOR = re.compile("|".join(re.escape(a) for a in ANCHORS))


def holds_anchor(word):
    return _ANCHOR.search(word) is not None


def hot_regions(text):
    """[(start, end)] of the runs of consecutive lines holding an anchor, in order; ``end``
    is the offset of the run's last newline (or the end of the text). A regex searched
    with ``pos=start, endpos=end`` sees the same neighbours as in the whole text: the
    newline on either side is outside every pattern's word characters."""
    regions = []
    search, find, rfind = _ANCHOR.search, text.find, text.rfind
    size = len(text)
    cur = 0
    while cur < size:
        hit = search(text, cur)
        if hit is None:
            break
        start = rfind("\n", 0, hit.start()) + 1
        end = find("\n", hit.end())
        if end < 0:
            end = size
        if regions and regions[-1][1] + 1 >= start:
            regions[-1][1] = end
        else:
            regions.append([start, end])
        cur = end + 1
    return regions
