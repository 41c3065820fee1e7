"""The graph executable extension prepared off the hot path (the kit's ``background``).

The first capture through the rotation starts the build (or, on a warm cache, the load) on
a daemon thread; no capture, replay or reset waits on a compiler. Until it is ready the
rotation frees nothing: live executables may pass torchada's cap (by default 1900, below
the driver's ~2048, so a short build fits in the difference); the first capture or replay
after it is ready evicts back under the cap, on the program's own thread. A failed build
turns rotation off with one warning (``lru.Rotation``). ``torchada build`` builds it
ahead of time.
"""
from torchada.areas._graph_exec import extension
from torchada.areas._kit import background
from torchada.areas._kit.extension_builder import NativeUnavailable

WHAT = "the graph executable extension"
_BUILD = []


def _load():
    """The extension's free_executable, built or loaded (raises NativeUnavailable)."""
    return extension.load()


def build():
    """The process's build of the extension (one; created on first use)."""
    if not _BUILD:
        _BUILD.append(background.Background(WHAT, _load))
    return _BUILD[0]


def start():
    build().start()


def load_free():
    """``free_executable`` once the extension is ready; None while it is being built;
    raises NativeUnavailable when it failed (the rotation then turns off)."""
    prepared = build()
    if not prepared.done:
        prepared.start()
        return None
    if prepared.error is not None:
        if isinstance(prepared.error, NativeUnavailable):
            raise prepared.error
        raise NativeUnavailable("%s did not build: %s: %s"
                                % (WHAT, type(prepared.error).__name__, prepared.error))
    return prepared.result
