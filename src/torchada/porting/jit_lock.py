"""JIT extension builds (``load`` / ``load_inline``) under an exclusive flock per name
(``torchada._core.build_lock``: the kernel drops it when its holder dies, so a builder killed
mid-build never blocks the next one)."""
import functools
import inspect

# The lock lives in _core (areas build native code too and must not import the porter).
from torchada._core.build_lock import build_lock, lock_path  # noqa: F401  (re-exported)


def locked_load(original, get_build_directory):
    """Wrap torch.utils.cpp_extension.load / load_inline to build under build_lock.
    The wrapper keeps the original's signature (functools.wraps)."""
    try:
        signature = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        name, build_directory = None, None
        if signature is not None:
            try:
                bound = signature.bind_partial(*args, **kwargs).arguments
                name = bound.get("name")
                build_directory = bound.get("build_directory")
            except TypeError:
                pass
        if not isinstance(name, str):
            return original(*args, **kwargs)
        if build_directory is None:
            try:
                build_directory = get_build_directory(name, False)
            except Exception:
                build_directory = None
        with build_lock(name, build_directory):
            return original(*args, **kwargs)

    wrapper.__torchada_wrapped__ = original
    return wrapper
