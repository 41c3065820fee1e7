"""The device-name rule of the devices area: CUDA device names to MUSA names, and
torch_musa's messages back in CUDA words. Every wrapper, the device map, the constructor
slot and TorchScript's literals use ``musa_name``; nothing here imports torch.
"""

import re


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
