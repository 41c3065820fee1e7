"""The selected release's profile applied to the simulated package at the end of its import.

The package body builds 2.7.1's namespace (plus the surfaces of later releases, each added
behind torchada.testing.torch_musa_api.has_api); this module makes the namespace the
release's recorded one and replays the release's own import-time patches:

* names the release's source no longer binds on torch_musa are deleted, so they raise
  AttributeError as on the real package (the "removed" rows of its recorded API);
* torch.backends.musa is the core.musa module from 2.9.1.post1 (torch_musa/__init__.py at
  5e25af7: ``torch.backends.__setattr__("musa", sys.modules["torch_musa.core.musa"])``);
* 2.7.1's core.lowering.apply_lowering_patch() runs at import only on the releases that
  call it (v2.7.1 torch_musa/__init__.py; 5e25af7 neither imports nor calls it);
* from 2.11.0.post2 torch_musa registers its own Inductor template heuristics for "musa"
  (torch_musa._inductor.template_heuristics).
"""
import sys
from typing import NewType

from torchada.testing._simconfig import config
from torchada.testing.torch_musa_api import api


def _added_here():
    """Names of later releases bound by this module (the allocator / stream / RNG surfaces
    are added where they live, behind has_api)."""
    from torch_musa._sim import memory_aliases

    return {
        "memory_cached": memory_aliases.memory_cached,
        "max_memory_cached": memory_aliases.max_memory_cached,
        "list_gpu_processes": memory_aliases.list_gpu_processes,
        # torch_musa/__init__.py at 5e25af7: NewType("_POOL_HANDLE", tuple[int, int])
        "_POOL_HANDLE": NewType("_POOL_HANDLE", tuple),
    }


def _released_from(release):
    """Behaviour a release label (not only its profile) decides: 2.11.0.post1 runs the
    2.11.0.post2 profile's API but not what the fix table dates to post2."""
    from packaging.version import Version

    return Version(config().torch_musa_version) >= Version(release)


def _has_heuristic_registry():
    """torch >= 2.9 has torch/_inductor/template_heuristics/; asked of the file system, since
    find_spec of the submodule would import torch._inductor (and torch._dynamo) at start."""
    import os

    import torch

    return os.path.isdir(os.path.join(os.path.dirname(torch.__file__), "_inductor",
                                      "template_heuristics"))


def apply(module):
    recorded = api(config().profile)
    for name in recorded["removed"]:
        module.__dict__.pop(name, None)
    memory = sys.modules["torch_musa.core.memory"]
    for name, value in _added_here().items():
        if name in recorded["names"]:
            module.__dict__.setdefault(name, value)
            if not name.startswith("_"):
                memory.__dict__.setdefault(name, value)
    patches = recorded["import_patches"]
    import torch

    if "torch.backends.musa" in patches:
        import torch_musa.core.musa  # noqa: F401

        torch.backends.__setattr__("musa", sys.modules["torch_musa.core.musa"])
    if _released_from("2.11.0.post2") and _has_heuristic_registry():
        from torch_musa._inductor import template_heuristics
        from torch_musa._sim.onimport import when_imported

        when_imported("torch._inductor.template_heuristics", template_heuristics.register)
    if "core.lowering.apply_lowering_patch" in patches:
        from torch_musa.core.lowering import apply_lowering_patch

        apply_lowering_patch()
