"""Run a callback right after a module finishes importing (or now, if it already has).

The real torch_musa imports torch._dynamo, torch._inductor and torch.distributed.fsdp at
import time to patch them.  Importing those costs seconds and makes stock torch set
TORCHINDUCTOR_CACHE_DIR, while the simulator must not set environment variables; so the
simulator applies the same patches when (and if) the program imports those modules.
"""
import importlib.abc
import sys
import threading

_pending = {}
_lock = threading.RLock()


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, name):
        self._inner, self._name = inner, name

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        with _lock:
            callbacks = _pending.pop(self._name, [])
        for cb in callbacks:
            cb(module)

    def __getattr__(self, item):
        return getattr(self._inner, item)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, name)
                return spec
        return None


_finder = _Finder()


def when_imported(name, callback):
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _lock:
        _pending.setdefault(name, []).append(callback)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
