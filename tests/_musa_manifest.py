"""The torch_musa 2.7.1 API manifest and a name-only fake torch.musa built from it.

The fake has exactly the manifest's names (classes as classes, the rest as callables,
submodules as modules) and nothing else, so "does this torch.musa name exist" questions are
answered by the manifest, not by a hand-written stand-in.
"""
import json
import os
import types
from pathlib import Path

# The committed copy (tests/data) first, so a clean checkout never skips these tests;
# TORCHADA_MUSA_MANIFEST points at another release's manifest.
CANDIDATES = [
    os.environ.get("TORCHADA_MUSA_MANIFEST", ""),
    str(Path(__file__).resolve().parent / "data" / "torch_musa_2.7.1_api.json"),
]


def manifest_path():
    for candidate in CANDIDATES:
        if candidate and os.path.isfile(candidate):
            return candidate
    return None


def load():
    path = manifest_path()
    if path is None:
        return None
    with open(path) as f:
        return json.load(f)


def _fake(name, info):
    kind = info.get("kind")
    if kind == "alias":
        kind = info.get("alias_of_kind", "function")
    if kind == "class":
        return type(name, (), {"__module__": "torch_musa",
                               "__init__": lambda self, *args, **kwargs: None})
    if kind == "constant":
        return ()
    def f(*args, **kwargs):
        return None
    f.__name__ = name
    return f


def fake_musa(manifest, version="2.7.1"):
    """A torch_musa-shaped module tree holding the manifest's names (no behaviour)."""
    modules = {"torch_musa": types.ModuleType("torch_musa")}
    for modname in sorted(manifest["submodules"]):
        mod = modules.setdefault(modname, types.ModuleType(modname))
        info = manifest["submodules"][modname]
        for name, item in (info.get("names") or {}).items():
            setattr(mod, name, _fake(name, item if isinstance(item, dict) else {}))
        parent, _, leaf = modname.rpartition(".")
        modules.setdefault(parent, types.ModuleType(parent))
    for modname, mod in modules.items():
        parent, _, leaf = modname.rpartition(".")
        if parent:
            setattr(modules[parent], leaf, mod)
    root = modules["torch_musa"]
    for name, info in manifest["torch.musa"]["names"].items():
        if info.get("kind") == "module" and str(info.get("target", "")).startswith("torch_musa"):
            value = modules.get(info["target"]) or types.ModuleType(info["target"])
        else:
            value = _fake(name, info)
        setattr(root, name, value)
    root.__version__ = version
    return root
