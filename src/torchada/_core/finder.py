"""The one sys.meta_path finder: watches trigger module names, chains to the real loader.

``find_spec`` returns None at once for every name outside a frozen set, so the cost for
the thousands of other imports is one set lookup. For a trigger it asks the finders after
it for the real spec and wraps only the loader's ``exec_module``: after the module body
ran, the original loader is put back on the module (``__loader__``, ``__spec__.loader``) and
the registry applies the areas now due. For a name an area provides (manifest ``provides``)
the area may answer with a spec of its own; when it declines or fails, the real spec stands.
"""

import sys
import threading

from torchada._core import registry as _registry

_tls = threading.local()


class TorchadaFinder:
    def __init__(self, triggers, on_loaded, provided=(), on_provide=None):
        self.provided = frozenset(provided) if on_provide is not None else frozenset()
        self.triggers = frozenset(triggers) | self.provided
        self.on_loaded = on_loaded
        self.on_provide = on_provide

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.triggers or getattr(_tls, "finding", False):
            return None
        _tls.finding = True
        try:
            spec = self._real_spec(fullname, path, target)
        finally:
            _tls.finding = False
        if fullname in self.provided:
            try:
                spec = self.on_provide(fullname, spec) or spec
            except Exception:  # never break the user's import: the real spec stands
                pass
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module") or isinstance(loader, ChainedLoader):
            return spec
        spec.loader = ChainedLoader(loader, fullname, self.on_loaded)
        return spec

    def _real_spec(self, fullname, path, target):
        for finder in sys.meta_path:
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def invalidate_caches(self):
        pass


class ChainedLoader:
    """Delegates to the real loader; after exec_module, restores it and runs the hook."""

    def __init__(self, loader, fullname, on_loaded):
        self.loader = loader
        self.fullname = fullname
        self.on_loaded = on_loaded

    def __getattr__(self, name):  # get_code, get_source, get_resource_reader, is_package...
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        try:
            self.loader.exec_module(module)
        finally:
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self.loader
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self.loader
        loading = _registry.loading()
        loading.add(self.fullname)
        try:
            self.on_loaded(self.fullname)
        except Exception:  # never break the user's import
            pass
        finally:
            loading.discard(self.fullname)


def install(finder):
    if not any(isinstance(f, TorchadaFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, finder)
    return finder


def uninstall():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, TorchadaFinder)]
