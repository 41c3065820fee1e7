"""What later torch_musa releases change in ``torch.musa`` against the recorded 2.7.1 API.

Read in MooreThreads/torch_musa at the release commits (version.txt gives the release):

* 2.9.1.post1: commit 5e25af754dfdacd5a6f9cc3c3cacd64b816b172e (version.txt "2.9.1.post1")
* 2.11.0.post2: commit e205050c4767c998c0364fb0c3b82cdb39a58347 (version.txt "2.11.0.post2")

Each row names the file it was read in.  Files not stored at a release commit were not
read; what depends on them is listed under ``UNKNOWN`` (and in docs/simulator.md), never
guessed into the API.  ``generate.py`` turns these rows into torch_musa_<release>_api.json.
"""

BASE = "2.7.1"

R291 = {
    "release": "2.9.1.post1",
    "commit": "5e25af754dfdacd5a6f9cc3c3cacd64b816b172e",
    # torch_musa/__init__.py: TORCH_MIN_VERSION = Version("2.9.1") (RuntimeError below it);
    # a UserWarning unless "2.9.1" is in torch.__version__.
    "torch": {"minimum": "2.9.1", "pinned": "2.9.1",
              "evidence": "torch_musa/__init__.py at 5e25af7 (TORCH_MIN_VERSION, the pin warning)"},
    "added": {
        # torch_musa/__init__.py: from .core.stream import (..., get_stream_from_external, ...)
        "get_stream_from_external": ("api", "torch_musa/__init__.py: from .core.stream import"),
        # torch_musa/__init__.py: from .core.random import align_rng_to_nv_gpu; called at once
        "align_rng_to_nv_gpu": ("musa-specific-api", "torch_musa/__init__.py: from .core.random import"),
        # torch_musa/__init__.py: _POOL_HANDLE = NewType("_POOL_HANDLE", tuple[int, int])
        "_POOL_HANDLE": ("private", "torch_musa/__init__.py: module global"),
        # torch_musa/core/memory.py __all__ (star-imported by __init__.py)
        **{name: ("api", "torch_musa/core/memory.py __all__") for name in (
            "caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_enable",
            "get_per_process_memory_fraction", "host_memory_stats",
            "host_memory_stats_as_nested_dict", "reset_accumulated_host_memory_stats",
            "reset_peak_host_memory_stats", "memory_cached", "max_memory_cached",
            "list_gpu_processes")},
    },
    "removed": {
        # core/memory.py __all__ at 5e25af7 comments these out ("remove visibility to
        # torch.musa in the future"); 2.7.1's __all__ exported them.
        "memory_stats_all": "torch_musa/core/memory.py __all__ (commented out)",
        "_record_memory_history": "torch_musa/core/memory.py __all__ (commented out)",
        "_dump_snapshot": "torch_musa/core/memory.py __all__ (commented out)",
        "_set_allocator_settings": "torch_musa/core/memory.py __all__ (commented out)",
        # 2.7.1's __init__.py imports and calls core.lowering.apply_lowering_patch; 5e25af7's
        # __init__.py neither imports nor calls it.
        "apply_lowering_patch": "torch_musa/__init__.py (no longer imported)",
    },
    "import_patches": {
        # torch.backends.__setattr__("musa", sys.modules["torch_musa.core.musa"])
        "torch.backends.musa": "torch_musa/__init__.py: the core.musa module (legacy storages)",
        # align_rng_to_nv_gpu() runs before any device property is read
        "TORCH_RNG_ALIGN": "torch_musa/__init__.py: align_rng_to_nv_gpu() at import",
        # no apply_lowering_patch() any more (2.7.1 replaced a torch.ao pt2e lowering at import)
        "core.lowering.apply_lowering_patch": None,
    },
}

R2110 = {
    "release": "2.11.0.post2",
    "commit": "e205050c4767c998c0364fb0c3b82cdb39a58347",
    # torch_musa/__init__.py is not stored at e205050: the minimum is taken from the rule both
    # read releases follow (the release's base version).  unknown.
    "torch": {"minimum": "2.11.0", "pinned": "2.11.0",
              "evidence": "unknown: torch_musa/__init__.py not read at e205050; 2.7.1 and "
                          "2.9.1.post1 both require their base version"},
    "based_on": "2.9.1.post1",
    "added": {
        # torch_musa/core/random.py __all__ at e205050 (star-imported by __init__.py)
        "NV_GPU_REGISTRY": ("musa-specific-api", "torch_musa/core/random.py __all__"),
    },
    "removed": {
        # core/memory.py at e205050: __all__ and the _MUSAC import list have no MemPoolContext
        "MemPoolContext": "torch_musa/core/memory.py __all__ (absent)",
    },
    "submodules": {
        # torch_musa/core/ipc.py exists at e205050 (not at 5e25af7); __all__:
        "core.ipc": ["MUSAIPCTensorHandle", "MUSAIPCTensor", "export_tensor", "open_tensor"],
    },
    "import_patches": {},
}

UNKNOWN = {
    "2.9.1.post1": [
        "core/random.py is not stored at 5e25af7: whether NV_GPU_REGISTRY is in its __all__ "
        "(align_rng_to_nv_gpu is imported by name, so it is bound either way)",
        "core/musa/__init__.py at 5e25af7: which of its globals the star import leaks",
    ],
    "2.11.0.post2": [
        "torch_musa/__init__.py is not stored at e205050: the import list is taken to be "
        "2.9.1.post1's, the torch minimum to be 2.11.0",
        "how core.ipc is reached from torch.musa (its names are recorded under submodules)",
    ],
}

RELEASES = (R291, R2110)
