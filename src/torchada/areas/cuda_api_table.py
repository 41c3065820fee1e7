"""The torch.cuda -> torch.musa table: one row per torch.cuda name, as data.

Each row says what torchada does with one name of ``torch.cuda`` (or of one of its
submodules, written ``"<submodule>.<name>"``):

``mapped``       the name is rebound to the torch_musa object at ``target`` (a dotted path
                 under ``torch.musa``): after apply ``torch.cuda.<name> is torch.musa.<target>``.
                 A row's ``since`` names the first torch_musa release that has the target;
                 on an older one the CUDA name raises NotImplementedError naming that
                 release and the fix (upgrade torch_musa).
``emulated``     the name is rebound to a small replacement built by the area named in ``area``
                 (``target`` names the builder); used where the MUSA object differs (argument
                 names, missing defaults, vendor bugs) or does not exist but can be provided.
``unsupported``  the name is rebound to a stub that raises ``NotImplementedError`` naming the
                 CUDA API and the torch_musa version; ``target`` holds the reason, where
                 ``{musa}`` stands for "torch_musa <version>".
``native``       left as torch defines it, because it already works on MUSA (pure Python,
                 device-agnostic, or owned by another area); ``target`` says why.
``module``       a submodule: the module object stays (``import torch.cuda.<name>`` keeps
                 working) and its names are handled row by row.

Names of the installed torch that have no row are handled by a rule at apply time (same
name on torch.musa -> mapped, otherwise unsupported) and are listed by
``torchada.areas.cuda_namespace.coverage()``.

This module is pure data plus a renderer: it imports nothing heavy.
``python -m torchada.areas.cuda_api_table --markdown > docs/cuda_api_coverage.md``
regenerates the coverage page (a test checks the committed page is current).
"""

from collections import namedtuple

MAPPED, EMULATED, UNSUPPORTED, NATIVE, MODULE = (
    "mapped", "emulated", "unsupported", "native", "module")
KINDS = (MAPPED, EMULATED, UNSUPPORTED, NATIVE, MODULE)

Row = namedtuple("Row", "kind target area note since")
Row.__new__.__defaults__ = (None,)  # since: None = every torch_musa release (2.7.1 on)

NO_EQUIVALENT = "{musa} has no equivalent"
NO_NVML = "{musa} exposes no NVML-style device telemetry; use mthreads-gmi"
NO_ALLOC_RAW = "{musa} exposes no raw caching-allocator entry points"
NO_NCCL_PY = ("{musa} has no Python MCCL collectives (torch.musa.mccl only has version()); "
              "use torch.distributed, where backend='nccl' means mccl under torchada")
NO_TUNABLE = "{musa} has no TunableOp"
NO_GDS = "{musa} has no GPUDirect Storage binding"
NO_GREEN = "{musa} has no green contexts"
NO_JITERATOR = "{musa} has no equivalent"


# The area that applies a row unless the row names another (and the owner of names the
# table lacks, decided by rule).
DEFAULT_OWNER = "cuda_namespace"


def _m(target=None, note="", area=DEFAULT_OWNER, since=None):
    return Row(MAPPED, target, area, note, since)


# First torch_musa releases with a surface, read at their commits (MooreThreads/torch_musa
# version.txt): 2.9.1.post1 = 5e25af754dfd, 2.11.0.post2 = e205050c4767. Releases between
# 2.7.1 and 2.9.1.post1 were not read, so an API marked 2.9.1.post1 may be older.
R291 = "2.9.1.post1"


def _e(builder, note="", area=DEFAULT_OWNER):
    return Row(EMULATED, builder, area, note)


def _u(reason=NO_EQUIVALENT, note="", area=DEFAULT_OWNER):
    return Row(UNSUPPORTED, reason, area, note)


def _n(why, area=DEFAULT_OWNER):
    return Row(NATIVE, why, area, "")


def _mod(note="", area=DEFAULT_OWNER):
    return Row(MODULE, None, area, note)


_LEGACY = ("BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long", "Short")

# -- torch.cuda top level: __all__ of torch 2.13 plus the other public API names ------------
TOP = {}
for _t in _LEGACY:
    TOP[_t + "Storage"] = _m()
    TOP[_t + "Tensor"] = _m(note="legacy tensor type (type name torch_musa.%sTensor)" % _t)
del _t

TOP.update({
    # errors
    "AcceleratorError": _n("torch's generic accelerator error class; device-neutral"),
    "OutOfMemoryError": _m(note="the same object (torch._C.OutOfMemoryError) on both sides"),
    "CudaError": _m("MusaError"),
    "DeferredCudaCallError": _m("core._lazy_init.DeferredMusaCallError",
                                "only reachable under torch.musa.core._lazy_init"),
    "cudaStatus": _n("plain constants class (SUCCESS / ERROR_NOT_READY)"),
    "check_error": _m(note="raises MusaError unless the musaError is success"),
    # initialisation
    "init": _m("_lazy_init", "torch.musa has no init(); _lazy_init() is the same call"),
    "is_initialized": _m(),
    "is_available": _e("is_available", "False unless TORCHADA_FORCE_CUDA_AVAILABLE (then "
                       "torch.musa.is_available); pinned, since cuda_private makes torch's "
                       "own inputs answer for MUSA", area="devices"),
    # devices
    "device": _m(), "device_of": _m(), "device_count": _m(), "current_device": _m(),
    "set_device": _e("set_device", "a bad ordinal raises the error type a CUDA user gets, "
                     "with a CUDA message; other calls go straight to torch.musa.set_device"),
    "synchronize": _m(),
    "get_device_name": _m(), "get_device_capability": _m(),
    "get_device_properties": _e("get_device_properties",
                                "torch.musa's version has no default for device"),
    "can_device_access_peer": _m(), "get_arch_list": _m(),
    "get_gencode_flags": _u("{musa} has no gencode flags (MUSA uses --offload-arch=mp_XX)"),
    "is_bf16_supported": _m(), "is_tf32_supported": _m(),
    "ipc_collect": _m(), "current_blas_handle": _m(note="returns a mublasHandle_t"),
    "current_solver_handle": _u(),
    "cudart": _e("cudart", "CUDA runtime names on musart()", area="cudart"),
    "has_half": _e("has_half", "constant True (MUSA devices compute in half)"),
    "has_magma": _e("has_magma", "constant False (no MAGMA on MUSA)"),
    "get_sync_debug_mode": _e("get_sync_debug_mode", "always 0: MUSA has no sync debug mode"),
    "set_sync_debug_mode": _e("set_sync_debug_mode",
                              "accepts 0 / 'default'; other modes raise NotImplementedError"),
    # device telemetry (NVML)
    "clock_rate": _u(NO_NVML), "power_draw": _u(NO_NVML), "temperature": _u(NO_NVML),
    "utilization": _u(NO_NVML), "device_memory_used": _u(NO_NVML),
    "memory_usage": _u(NO_NVML), "list_gpu_processes": _u(NO_NVML),
    # streams and events
    "Stream": _m(note="handle: .musa_stream (torchada adds .cuda_stream as an alias)"),
    "ExternalStream": _m(), "StreamContext": _m(), "stream": _m(),
    "Event": _m(note="handle: .musa_event (torchada adds .cuda_event); no external= keyword"),
    "current_stream": _m(), "default_stream": _m(), "set_stream": _m(),
    "get_stream_from_external": _e("get_stream_from_external",
                                   "torch.musa.get_stream_from_external from torch_musa "
                                   "2.9.1.post1; built on torch.musa.ExternalStream before"),
    # RNG
    "get_rng_state": _m(), "get_rng_state_all": _m(), "set_rng_state": _m(),
    "set_rng_state_all": _m(), "manual_seed": _m(), "manual_seed_all": _m(), "seed": _m(),
    "seed_all": _m(), "initial_seed": _m(),
    "default_generators": _e("default_generators",
                             "lazy sequence: torch.musa.default_generators after lazy init"),
    # memory
    "empty_cache": _m(), "memory_stats": _m(), "memory_stats_as_nested_dict": _m(),
    "reset_accumulated_memory_stats": _m(), "reset_peak_memory_stats": _m(),
    "reset_max_memory_allocated": _e("reset_max_memory_allocated",
                                     "torch_musa 2.7.1's raises NameError; this one resets "
                                     "the peak stats like CUDA"),
    "reset_max_memory_cached": _e("reset_max_memory_cached",
                                  "as reset_max_memory_allocated"),
    "memory_allocated": _m(), "max_memory_allocated": _m(),
    "memory_reserved": _m(), "max_memory_reserved": _m(),
    "memory_cached": _m("memory_reserved", "deprecated CUDA alias of memory_reserved"),
    "max_memory_cached": _m("max_memory_reserved",
                            "deprecated CUDA alias of max_memory_reserved"),
    "memory_snapshot": _e("memory_snapshot", "torch.musa's takes no arguments; mempool_id "
                          "raises NotImplementedError, include_traces is accepted"),
    "memory_summary": _m(), "mem_get_info": _m(), "get_allocator_backend": _m(),
    "set_per_process_memory_fraction": _m(),
    # torch_musa/core/memory.py at 5e25af7 (2.9.1.post1) and e205050 (2.11.0.post2)
    "get_per_process_memory_fraction": _m(since=R291),
    "caching_allocator_alloc": _m(since=R291, note="a block of the caching allocator"),
    "caching_allocator_delete": _m(since=R291),
    "caching_allocator_enable": _m(since=R291),
    "caching_allocator_disabled": _u(NO_ALLOC_RAW),
    "host_memory_stats": _m(since=R291, note="pinned host allocator statistics"),
    "host_memory_stats_as_nested_dict": _m(since=R291),
    "reset_accumulated_host_memory_stats": _m(since=R291),
    "reset_peak_host_memory_stats": _m(since=R291),
    "CUDAPluggableAllocator": _m("MUSAPluggableAllocator"),
    "change_current_allocator": _m(),
    "MemPool": _m(note="torch.musa.MemPool(allocator=None); use_on_oom from torch_musa "
                  "2.9.1.post1 (core/memory.py at 5e25af7), no_split from 2.11.0.post2 "
                  "(at e205050)"),
    "use_mem_pool": _m(),
    # torch <= 2.7 only (removed in 2.8); torch_musa 2.7.1 has torch.musa.MemPoolContext
    # (manifest: torch.musa.MemPoolContext, subclass of _MUSAC._MemPoolContext)
    "MemPoolContext": _m(),
    # graphs
    "CUDAGraph": _e("CUDAGraph", "subclass of torch.musa.MUSAGraph taking CUDA's keywords",
                    area="graphs"),
    "graph": _e("graph", "torch.musa.graph taking cuda_graph=; enable_annotations / "
                "check_input_liveness raise NotImplementedError", area="graphs"),
    "make_graphed_callables": _e("make_graphed_callables",
                                 "torch.musa's has no pool keyword: pool= raises", area="graphs"),
    "graph_pool_handle": _m(area="graphs"), "is_current_stream_capturing": _m(area="graphs"),
    # other
    "GreenContext": _u(NO_GREEN),
    "ComplexDoubleStorage": _u("{musa} has no complex legacy storage types"),
    "ComplexFloatStorage": _u("{musa} has no complex legacy storage types"),
    # submodules
    "amp": _mod("names handled by the amp area", area="amp"),
    "memory": _mod(), "graphs": _mod(area="graphs"), "streams": _mod(), "random": _mod(),
    "nccl": _mod(area="distributed"), "nvtx": _mod(area="profiler"), "profiler": _mod(),
    "jiterator": _mod(),
    "tunable": _mod(), "gds": _mod(), "green_contexts": _mod(), "comm": _mod(),
    "sparse": _mod("legacy sparse tensor types"),
})

# -- private torch.cuda names that libraries touch (applied only where both sides have them)
PRIVATE = {
    "_lazy_init": _n("torch_musa already rebinds it to its own _lazy_init at import"),
    "_lazy_call": _n("torch_musa already rebinds it to its own _lazy_call at import"),
    "_is_in_bad_fork": _m(), "_exchange_device": _m(), "_maybe_exchange_device": _m(),
    "_DeviceGuard": _m(), "_set_stream_by_id": _m(), "_sleep": _m(),
    "_get_device_index": _e("_get_device_index", "accepts musa devices ('cuda:N' is one "
                            "under the devices area); rebound where torch.cuda's modules "
                            "import it", area="cuda_private"),
    "_device_count_nvml": _e("_device_count_nvml", "torch.musa.device_count()",
                             area="cuda_private"),
    "_is_compiled": _e("_is_compiled", "True, as torch.backends.cuda.is_built()",
                       area="cuda_private"),
}

# -- submodules: names that are not simply the top-level object ------------------------------
SUB = {
    "memory._record_memory_history": _m("memory._record_memory_history",
                                        "torch_musa's takes fewer options"),
    "memory._dump_snapshot": _m("memory._dump_snapshot"),
    "memory._snapshot": _m("memory._snapshot"),
    "memory._set_allocator_settings": _m("memory._set_allocator_settings"),
    "memory._get_current_allocator": _m("memory._get_current_allocator"),
    "memory._CUDAAllocator": _m("memory._MUSAAllocator"),
    "nccl.version": _m("mccl.version", area="distributed"),
    "nccl.is_available": _e("nccl.is_available", "False: no NCCL-style Python collectives",
                            area="distributed"),
    "nvtx.range_push": _e("nvtx.range_push", "a torch.profiler record_function range",
                          area="profiler"),
    "nvtx.range_pop": _e("nvtx.range_pop", "closes the innermost range_push range",
                         area="profiler"),
    "nvtx.range_start": _e("nvtx.range_start", "a record_function range, any thread order",
                           area="profiler"),
    "nvtx.range_end": _e("nvtx.range_end", "closes a range_start range", area="profiler"),
    "nvtx.mark": _e("nvtx.mark", "an instant record_function event", area="profiler"),
    "nvtx.range": _e("nvtx.range", "context manager over range_push / range_pop",
                     area="profiler"),
    "profiler.start": _n("calls cudart().cudaProfilerStart(), which the cudart area provides",
                         area="cudart"),
    "profiler.stop": _n("calls cudart().cudaProfilerStop(), which the cudart area provides",
                        area="cudart"),
    "profiler.profile": _n("start() / stop() around a block", area="cudart"),
    # torch <= 2.7 only: cudart().cudaProfilerInitialize, which CUDA 12 itself removed
    "profiler.init": _u("{musa}'s runtime has no profiler-initialize call (CUDA 12 removed "
                        "cudaProfilerInitialize too); use torch.profiler"),
    "jiterator._create_jit_fn": _u(NO_JITERATOR),
    "jiterator._create_multi_output_jit_fn": _u(NO_JITERATOR),
    "gds.gds_register_buffer": _u(NO_GDS), "gds.gds_deregister_buffer": _u(NO_GDS),
    "gds.GdsFile": _u(NO_GDS),
    "green_contexts.GreenContext": _u(NO_GREEN),
    "amp.autocast": _m("amp.autocast", area="amp"),
    "amp.GradScaler": _m("amp.GradScaler", area="amp"),
    "amp.custom_fwd": _m("amp.custom_fwd", area="amp"),
    "amp.custom_bwd": _m("amp.custom_bwd", area="amp"),
    "amp.amp_definitely_not_available": _m("amp_definitely_not_available", area="amp"),
}
for _name in ("all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "unique_id",
              "init_rank"):
    SUB["nccl." + _name] = _u(NO_NCCL_PY, area="distributed")
for _name in ("broadcast", "broadcast_coalesced", "gather", "reduce_add",
              "reduce_add_coalesced", "scatter"):
    SUB["comm." + _name] = _n("torch.nn.parallel.comm; runs on MUSA where Moore Threads' "
                              "patched torch routes it to torch_musa")
for _name in ("enable", "is_enabled", "tuning_enable", "tuning_is_enabled",
              "record_untuned_enable", "record_untuned_is_enabled", "set_max_tuning_duration",
              "get_max_tuning_duration", "set_max_tuning_iterations",
              "get_max_tuning_iterations", "set_filename", "get_filename", "get_results",
              "get_validators", "read_file", "tune_gemm_in_file", "mgpu_tune_gemm_in_file",
              "set_rotating_buffer_size", "get_rotating_buffer_size",
              "set_numerical_check_tolerances",
              "write_file", "write_file_on_exit"):  # the last two: torch <= 2.7
    SUB["tunable." + _name] = _u(NO_TUNABLE)
for _name in _LEGACY:
    if _name != "Bool":
        SUB["sparse.%sTensor" % _name] = _u("{musa} has no legacy sparse tensor types")
del _name

# Submodules whose every API name is handled (names without a row by rule, owned by the
# submodule's owner); torch.cuda.amp is walked for its rows only.
SUBMODULES = ("memory", "graphs", "streams", "random", "nccl", "nvtx", "profiler",
              "jiterator", "tunable", "gds", "green_contexts", "comm", "sparse")
WALKED_SUBMODULES = SUBMODULES + ("amp",)

# Public module globals of torch.cuda that are not API (typing / stdlib imports); left alone.
INCIDENTAL = ("Any", "Callable", "DEVICE_REQUIREMENT", "Device", "NewType", "Optional",
              "PYTORCH_RELEASES_CODE_CC", "TYPE_CHECKING", "cast", "classproperty",
              "importlib", "lru_cache", "os", "platform", "threading", "torch", "traceback",
              "warnings")


def owner_of_submodule(sub):
    """The area owning names of ``torch.cuda.<sub>`` that have no row of their own."""
    row = TOP.get(sub)
    return row.area if row is not None else DEFAULT_OWNER


def owners():
    """Every area that owns rows, in first-seen order."""
    seen = []
    for _, row in all_rows():
        if row.area not in seen:
            seen.append(row.area)
    return seen


def row_for(qualname):
    """The row for ``name`` or ``"sub.name"``, or None (then the rule decides)."""
    if "." in qualname:
        return SUB.get(qualname)
    return TOP.get(qualname) or PRIVATE.get(qualname)


def target_of(qualname, row):
    """The dotted torch.musa path a mapped row points at (default: the same name)."""
    if row.target:
        return row.target
    return qualname.rsplit(".", 1)[-1]


def all_rows():
    """(qualname, row) for every row, top level first, then submodules, sorted."""
    out = [(k, TOP[k]) for k in sorted(TOP, key=str.lower)]
    out += [(k, PRIVATE[k]) for k in sorted(PRIVATE)]
    out += [(k, SUB[k]) for k in sorted(SUB)]
    return out


def counts(public_only=True):
    result = {k: 0 for k in KINDS}
    for name, row in all_rows():
        if public_only and name.rsplit(".", 1)[-1].startswith("_") and "." not in name:
            continue
        result[row.kind] += 1
    return result


def render_markdown():
    lines = [
        "# torch.cuda coverage on MUSA",
        "",
        "<!-- Generated by `python -m torchada.areas.cuda_api_table --markdown`; do not edit."
        " tests/areas/cuda_namespace/test_cuda_api_table.py checks it is current. -->",
        "",
        "What torchada does with each name of `torch.cuda` (top level, then submodules) when",
        "it runs on torch_musa. Kinds: **mapped** (rebound to the torch.musa object named),",
        "**emulated** (a small replacement; see the note), **unsupported** (raises",
        "`NotImplementedError` naming the API and the torch_musa version), **native** (left",
        "as torch defines it; the note says why it works), **module** (the submodule stays",
        "importable; its names have their own rows). Names a future torch adds are handled by",
        "a rule (same name on torch.musa: mapped; otherwise unsupported) and listed by",
        "`torchada.areas.cuda_namespace.coverage()`.",
        "",
    ]
    c = counts()
    lines.append("Public names: %s." % ", ".join("%d %s" % (c[k], k) for k in KINDS))
    lines.append("")
    lines.append("| torch.cuda name | kind | torch.musa target / reason | area | note |")
    lines.append("|---|---|---|---|---|")
    for name, row in all_rows():
        if row.kind == MAPPED:
            what = "`torch.musa.%s`" % target_of(name, row)
            if row.since:
                what += " (torch_musa >= %s)" % row.since
        elif row.kind == UNSUPPORTED:
            what = row.target.replace("{musa}", "torch_musa")
        elif row.kind == EMULATED:
            what = "replacement `%s`" % row.target
        else:
            what = row.target or ""
        lines.append("| `%s` | %s | %s | %s | %s |" % (name, row.kind, what.replace("|", "/"),
                                                      row.area, row.note.replace("|", "/")))
    lines.append("")
    lines.append("Left alone as incidental module globals (typing / stdlib imports): %s."
                 % ", ".join("`%s`" % n for n in INCIDENTAL))
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--markdown"]:
        sys.stdout.write(render_markdown())
        return 0
    if argv == ["--counts"]:
        sys.stdout.write("%s\n" % counts())
        return 0
    sys.stderr.write("usage: python -m torchada.areas.cuda_api_table --markdown | --counts\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
