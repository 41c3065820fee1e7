"""Every area, as data, in the order they apply (schema: torchada/_core/manifest.py).

Adding an area: one row here and one module ``torchada/areas/<name>.py`` with ``apply``.
The finder watches the triggers, the registry gates and orders the areas, ``status`` and
``TORCHADA_DISABLE_AREAS`` list them, all from this table, without importing area modules.
"""

from torchada._core.manifest import BEFORE_BACKEND, Area, Fix

# First torch_musa release whose torch.accelerator memory APIs work (seed README's fix table).
ACCELERATOR_MEMORY_FIXED_IN = "2.11.0.post2"

AREAS = (
    Area("devices", ("torch",), "device strings and ordinals: torch.device, factories, "
         ".cuda(), .to(), torch.load", versions=(("torch", ">=2.0"),)),
    Area("cuda_namespace", ("torch",), "torch.cuda.* (devices, memory, streams, events, RNG) "
         "-> torch.musa", versions=(("torch", ">=2.7"),)),
    Area("graphs", ("torch",), "torch.cuda.CUDAGraph / graph / make_graphed_callables / "
         "graph_pool_handle -> torch.musa graphs", versions=(("torch", ">=2.7"),),
         needs=("MUSAGraph", "graph"),
         fixes=(Fix("exec_rotation", "live graph executables kept under the driver's cap "
                    "(LRU; evicted ones rebuilt from their templates at replay)",
                    needs=("MUSAGraph",),
                    evidence="issue 10: the MUSA driver caps live graph executables per "
                    "process at about 2048, every release"),)),
    Area("profiler", ("torch",), "torch.cuda.nvtx ranges as torch.profiler ranges",
         versions=(("torch", ">=2.7"),)),
    Area("distributed", ("torch.distributed",), "backend='nccl' (and device maps, "
         "Backend.NCCL, device_id) means mccl in torch.distributed; get_backend() equals its "
         "CUDA spelling; init_device_mesh('cuda'); torch.cuda.nccl names",
         versions=(("torch", ">=2.7"),)),
    Area("cuda_private", ("torch",), "torch's private CUDA entry points (torch.cuda."
         "_get_device_index, torch._C._cuda_*) answered by torch_musa",
         versions=(("torch", ">=2.7"),), needs=("_MUSAC",)),
    Area("custom_ops", ("torch",), "torch.library kernels registered for CUDA (keys, "
         "device types, autocast) run on musa tensors", versions=(("torch", ">=2.7"),)),
    Area("flex_attention", ("torch.nn.attention.flex_attention",), "FlexAttention accepts "
         "musa tensors (eager, forward and backward)", versions=(("torch", ">=2.7"),)),
    Area("ctypes_libs", ("torch",), "CUDA libraries loaded through ctypes load their MUSA "
         "twins; CUDA symbol names resolve to MUSA ones", versions=(("torch", ">=2.7"),)),
    Area("amp", ("torch",), "torch.cuda.amp, torch.autocast('cuda'), GradScaler('cuda')",
         versions=(("torch", ">=2.7"),), needs=("amp",)),
    Area("cudart", ("torch",), "torch.cuda.cudart() with CUDA names on the MUSA runtime",
         versions=(("torch", ">=2.7"),), needs=("musart",)),
    Area("backends", ("torch",), "torch.backends.cuda / cudnn where they have a MUSA meaning",
         versions=(("torch", ">=2.7"),)),
    Area("accelerator", ("torch",), "torch.accelerator fallbacks to torch.musa",
         versions=(("torch", ">=2.6"),),
         fixes=(Fix("memory_routes", "torch.accelerator memory APIs routed to torch.musa's "
                    "allocator functions",
                    versions=(("torch_musa", "<" + ACCELERATOR_MEMORY_FIXED_IN),),
                    evidence="seed README fix table: broken before 2.11.0.post2"),)),
    Area("env_mirror", ("torch",), "CUDA_VISIBLE_DEVICES / PYTORCH_CUDA_ALLOC_CONF -> MUSA "
         "equivalents", phase=BEFORE_BACKEND),
    Area("cpp_extension", ("torch.utils.cpp_extension",), "torch.utils.cpp_extension: "
         "CUDAExtension / BuildExtension on MUSA", versions=(("torch", ">=2.1"),)),
)


def markdown():
    """docs/areas.md: ``python -m torchada.areas.manifest --markdown > docs/areas.md``."""
    lines = ["# Areas", "",
             "Generated from `torchada/areas/manifest.py`; rows apply in this order.", "",
             "| Area | Triggers | Phase | Gate | Needs torch.musa | What it makes work |",
             "|---|---|---|---|---|---|"]
    for area in AREAS:
        gate = ", ".join("%s %s" % v for v in area.versions) or "-"
        needs = ", ".join("`%s`" % n for n in area.needs) or "-"
        lines.append("| `%s` | %s | %s | %s | %s | %s |" % (
            area.name, ", ".join("`%s`" % t for t in area.triggers), area.phase, gate, needs,
            area.doc))
        for fix in area.fixes:
            lines.append("| `%s.%s` (fix) | | | %s | %s | %s. Evidence: %s |" % (
                area.name, fix.name, ", ".join("%s %s" % v for v in fix.versions) or "-",
                ", ".join(fix.needs) or "-", fix.doc, fix.evidence or "-"))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    else:
        sys.exit("usage: python -m torchada.areas.manifest --markdown")
