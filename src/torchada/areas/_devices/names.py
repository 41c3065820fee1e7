"""Pure helpers of the devices area: CUDA device names to MUSA names, caches, error wording.

Nothing here imports torch at module level.
"""

import re

CACHE_LIMIT = 4096
FORCE_AVAILABLE_VAR = "TORCHADA_FORCE_CUDA_AVAILABLE"


def musa_name(text):
    """'cuda' -> 'musa', 'cuda:N' -> 'musa:N'; None for anything else (malformed included:
    N is ASCII digits without a leading zero). String tests only, no regular expression, so
    Dynamo can trace it (the devices area's Module.to calls it inside compiled code)."""
    if text.__class__ is not str or not text.startswith("cuda"):
        return None
    if text == "cuda":
        return "musa"
    index = text[5:]
    if text[4] != ":" or not (index.isascii() and index.isdigit()) \
            or (index[0] == "0" and index != "0"):
        return None
    return "musa" + text[4:]


_WORDS = re.compile(r"\b(MUSA|Musa|musa)\b")
_SWAP = {"MUSA": "CUDA", "Musa": "Cuda", "musa": "cuda"}


def cuda_words(message):
    """A torch_musa message in the words a CUDA user would read: whole words only, so
    ``musa:1``, ``torch.musa`` and ``MUSA error`` change but ``torch_musa/x.cpp`` does not."""
    return _WORDS.sub(lambda m: _SWAP[m.group(1)], message)


def as_cuda_error(exc):
    """A copy of ``exc`` whose message says cuda where it said musa, or None when the same."""
    text = str(exc)
    new = cuda_words(text)
    if new == text or len(exc.args) != 1 or not isinstance(exc.args[0], str):
        return None
    try:
        clone = type(exc)(new)
    except Exception:
        return None
    clone.__traceback__ = exc.__traceback__
    return clone


class DeviceMap(dict):
    """Maps what users pass as a device to what to pass on: hits are one C dict lookup.

    A miss calls ``build(key)``, which returns the replacement or the key itself; only keys of
    the given types are remembered, and only up to CACHE_LIMIT of them.
    """

    __slots__ = ("build", "types")

    def __init__(self, build, types=(str,)):
        super().__init__()
        self.build = build
        self.types = tuple(types)

    def __missing__(self, key):
        value = self.build(key)
        if key.__class__ in self.types and len(self) < CACHE_LIMIT:
            self[key] = value
        return value


def force_cuda_available(environ=None, warn=None):
    """TORCHADA_FORCE_CUDA_AVAILABLE through the settings table: True, False; a bad value
    gets one warning (through ``warn(message)`` when given), then False."""
    from torchada._core.settings import read

    def bad(name, raw, accepted, default):
        if warn is not None:
            warn("%s=%r is not valid (valid: %s); using the default 0 (torch.cuda.is_available() "
                 "stays False on MUSA)" % (name, raw, accepted))

    return read(FORCE_AVAILABLE_VAR, environ, warn=bad)
