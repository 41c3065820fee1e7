"""Every area, as data, in the order they apply (schema: torchada/_core/manifest.py).

Adding an area: one row here and one module ``torchada/areas/<name>.py`` with ``apply``.
The finder watches the triggers, the registry gates and orders the areas, ``status`` and
``TORCHADA_DISABLE_AREAS`` list them, all from this table, without importing area modules.
"""

from torchada._core.manifest import BEFORE_BACKEND, Area, Fix

# First torch_musa release whose torch.accelerator memory APIs work (seed README's fix table).
ACCELERATOR_MEMORY_FIXED_IN = "2.11.0.post2"
LOG_F64_FIXED_IN = "2.11.0.post2"      # issue 11's range for the float64 log_ fix
MM_OUT_DTYPE_FIXED_IN = "2.13.0"       # issue 11: the out_dtype matmul fix's upper bound
HEURISTICS_FIXED_IN = "2.11.0.post2"
RNG_ALIGN_SINCE = "2.9.1.post1"        # torch_musa's TORCH_RNG_ALIGN (__init__.py at 5e25af7)
CPP_OVERRIDES_FIXED_IN = "2.11.0.post2"  # seed fix table: compiled log / log_ / multinomial   # torch_musa registers musa template heuristics from here

AREAS = (
    Area("devices", ("torch",), "device strings and ordinals: torch.device, factories, "
         ".cuda(), .to(), torch.load", versions=(("torch", ">=2.0"),)),
    Area("cuda_namespace", ("torch",), "torch.cuda.* (devices, memory, streams, events, RNG) "
         "-> torch.musa", versions=(("torch", ">=2.7"),),
         fixes=(Fix("rng_align_notice", "TORCH_RNG_ALIGN set where torch_musa has no RNG "
                    "alignment: one warning naming the release and the fix (upgrade)",
                    versions=(("torch_musa", "<" + RNG_ALIGN_SINCE),),
                    evidence="torch_musa/__init__.py at 5e25af7 (2.9.1.post1) imports "
                    "align_rng_to_nv_gpu and calls it at import (core/random.py at e205050 "
                    "has its body); absent at v2.7.1"),)),
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
    # torch_musa wraps torch.distributed.fsdp.fully_shard at its import (FSDP2 patches)
    Area("fsdp2", ("torch.distributed.fsdp",), "FSDP2 fully_shard on a non-MUSA mesh "
         "(CPU/gloo) runs PyTorch's own FSDP2; musa meshes keep torch_musa's",
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
    Area("operator_fixes", ("torch",), "broken kernels of named torch_musa releases, one "
         "fix unit each (PrivateUse1 kernels only: CPU calls never reach them)",
         versions=(("torch", ">=2.7"),),
         # Units run in this order: cpp_overrides first (log_f64_inplace is its fallback).
         fixes=(Fix("cpp_overrides", "log / log_ / multinomial as compiled PrivateUse1 kernels "
                    "(built off the hot path from the first call; capture-safe; "
                    "TORCHADA_DISABLE_OP_OVERRIDE_<op>)",
                    versions=(("torch_musa", "<" + CPP_OVERRIDES_FIXED_IN),),
                    evidence="seed fix table: releases before 2.11.0.post2 need compiled "
                    "multinomial / log / log_ overrides, replay-safe under graph capture; "
                    "what exactly fails in torch_musa's own kernels is not stated (unknown)"),
                Fix("log_f64_inplace", "float64 Tensor.log_ as the out-of-place log written "
                    "back", versions=(("torch_musa", ">2.7.1,<" + LOG_F64_FIXED_IN),),
                    evidence="issue 11: in-place float64 log_ raises '\"log_musa\" not "
                    "implemented for Double' before 2.11.0.post2; 2.7.1 excluded (its log_ "
                    "goes through muDNN, which takes Double: docs/simulator.md)"),
                Fix("isfinite_async", "isfinite on float16/bfloat16/float32/float64 as abs() < "
                    "inf (no host wait; other dtypes keep ATen's composite)",
                    evidence="seed fix table, every release: ATen's composite isfinite "
                    "multiplies two bool masks, and that mul blocks the host until the "
                    "device queue drains (so isfinite also fails in graph capture)"),
                Fix("mm_out_dtype", "mm / bmm(out_dtype=): the native kernel when a one-time "
                    "exact-integer probe finds it right, else float32 accumulation",
                    versions=(("torch_musa", "<" + MM_OUT_DTYPE_FIXED_IN),), unknown_version_arms=True,
                    evidence="issue 11 / seed fix table: mm(out_dtype=) returns zeros and "
                    "bmm(out_dtype=) repeats batch 0 on 2.11.0.post1; fixed in 2.13.0"),)),
    Area("cpu_fallback", ("torch",), "operators torch_musa has no kernel for (its operator "
         "table) run on CPU copies, results back on the device: in-place, out=, views, "
         "autograd and the device's generator kept; one warning per op, counted in the "
         "report (TORCHADA_CPU_FALLBACK=0: they raise)", versions=(("torch", ">=2.7"),)),
    Area("verify", ("torch",), "TORCHADA_VERIFY / torchada run --verify: ops on musa "
         "tensors rerun on CPU copies and compared; a mismatch names the op, shapes, error, "
         "module path and call site (off: nothing installed)", versions=(("torch", ">=2.7"),)),
    Area("inductor_cache", ("torch._inductor.codecache",), "Inductor's system cache key "
         "(CacheBase.get_system) from the MUSA device instead of ROCm's gcnArchName",
         versions=(("torch", ">=2.7"),)),
    # the package whose import registers every heuristic (no Inductor import at start-up)
    Area("inductor_heuristics", ("torch._inductor.template_heuristics",), "Inductor's "
         "matmul template heuristics registered for musa", versions=(("torch", ">=2.9"),),
         fixes=(Fix("cuda_entries", "the musa keys of the template heuristic registry filled "
                    "from the CUDA entries (never replacing torch_musa's own)",
                    versions=(("torch_musa", "<" + HEURISTICS_FIXED_IN),),
                    evidence="issue 11 / seed fix table: torch_musa registers musa template "
                    "heuristics from 2.11.0.post2"),)),
    # its import loads triton.language.extra.*
    Area("triton_extra", ("triton.language",), "Triton's tl.extra.cuda as the MUSA Triton "
         "namespace (stubs for what it lacks; gdc_wait / gdc_launch_dependents raise)",
         versions=(("triton", ">=3.0"),)),
    Area("triton_musa36", ("triton",), "MUSA's Triton 3.6: in-place alias pairs numbered by "
         "IR argument, ASTFunction.deserialize attributes on IR arguments only, "
         "TORCHADA_TRITON_F32_DEFAULT, opt-in TORCHADA_TRITON_FAST_EXP (stands aside without "
         "the musa backend)",
         versions=(("triton", ">=3.6,<3.7"),)),
    Area("flash_attn", ("flash_attn_interface",), "sgl_kernel.flash_attn as the MUSA "
         "flash_attn_interface provider; only_qv accepted by legacy FA3 entry points; "
         "_flash_attn_forward adapter", provides=("sgl_kernel", "sgl_kernel.flash_attn")),
    Area("moe_configs", ("vllm", "sglang"), "vLLM / SGLang fused-MoE layers find the "
         "bundled MTT S5000 tables (VLLM_TUNED_CONFIG_FOLDER, SGLANG_MOE_CONFIG_DIR; a value "
         "the user set is kept)"),
    # imported by ``import deepspeed``, which calls get_accelerator after it
    Area("deepspeed_accelerator", ("deepspeed.accelerator.real_accelerator",), "DeepSpeed "
         "picks its CUDA accelerator on MUSA (set_accelerator) and it answers for the device",
         versions=(("deepspeed", ">=0.10"),)),
    Area("lightning", ("lightning.fabric.accelerators.cuda", "lightning.pytorch.accelerators.cuda",
                       "lightning_fabric.accelerators.cuda", "pytorch_lightning.accelerators.cuda"),
         "Lightning's CUDA accelerators (Fabric and the Trainer, in the lightning package and "
         "the standalone lightning_fabric / pytorch_lightning ones) take the musa devices they "
         "build (any precision)",
         versions=(("lightning", ">=2.0"), ("lightning-fabric", ">=2.0"),
                   ("pytorch-lightning", ">=2.0")),
         per_trigger=True),  # each package has its own class: one application per module
    # trace_rules finishes after torch._dynamo.variables, whose classes the units align
    Area("dynamo_wrappers", ("torch._dynamo.trace_rules",), "compiled code sees what eager "
         "code sees: the devices area's C prefilters traced as the factories they wrap, "
         "is_cuda and Tensor.type() answered as in eager code (fullgraph included)",
         versions=(("torch", ">=2.7"),),
         fixes=(Fix("is_cuda", "x.is_cuda answers True for a musa tensor while tracing, as "
                    "the eager property does", evidence="issue 20: the compiled branch "
                    "differed from the eager one (Dynamo answers device.type == 'cuda')"),
                Fix("type_names", "x.type() answers the CUDA type name of a musa tensor "
                    "while tracing, as the legacy_types area does eagerly",
                    evidence="issue 20: compiled x.type() was 'torch.musa.FloatTensor', "
                    "eager 'torch.cuda.FloatTensor'"),
                Fix("device_properties", "torch.cuda.get_device_properties() folds to a "
                    "constant while tracing, as CUDA's does", evidence="issue 20: Dynamo "
                    "refused torch_musa's _MusaDeviceProperties as a constant (CUDA's type "
                    "is listed in torch._dynamo.utils.common_constant_types)"),)),
    Area("aot_cache", ("torch._functorch._aot_autograd.autograd_cache",), "the AOT-autograd "
         "cache accepts graphs that call the factory wrappers (marked cacheable)",
         versions=(("torch", ">=2.7"),)),
    Area("env_mirror", ("torch",), "CUDA_VISIBLE_DEVICES / PYTORCH_CUDA_ALLOC_CONF / "
         "TORCH_NCCL_* / NCCL_* -> their MUSA / MCCL twins", phase=BEFORE_BACKEND),
    Area("cpp_extension", ("torch.utils.cpp_extension",), "torch.utils.cpp_extension: "
         "CUDAExtension / BuildExtension on MUSA", versions=(("torch", ">=2.1"),)),
    Area("tvm_ffi_build", ("tvm_ffi.cpp.extension",), "tvm-ffi's JIT builder (SGLang's "
         "jit_kernel load_jit) writes its build.ninja for mcc: -gencode -> --offload-arch, "
         "-lcudart/-lcuda -> -lmusart/-lmusa, CUDA include/library paths -> MUSA's"),
    Area("legacy_types", ("torch",), "legacy CUDA tensor type names (torch.cuda.HalfTensor, "
         "as a string or a class) in Tensor.type and set_default_tensor_type mean their MUSA "
         "twins; Tensor.type() answers CUDA names", versions=(("torch", ">=2.7"),)),
    Area("data_parallel", ("torch",), "torch.cuda.comm broadcast / scatter / gather with "
         "out= (the _MUSAC bindings torch_musa lacks); nn.DataParallel", needs=("_MUSAC",),
         versions=(("torch", ">=2.7"),)),
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
            area.name, ", ".join("`%s`" % t for t in area.triggers),
            area.phase + (", once per trigger" if area.per_trigger else ""), gate, needs,
            area.doc))
        for fix in area.fixes:
            lines.append("| `%s.%s` (fix) | | | %s | %s | %s. Evidence: %s |" % (
                area.name, fix.name, ", ".join("%s %s" % v for v in fix.versions) or "-",
                ", ".join(fix.needs) or "-", fix.doc, fix.evidence or "-"))
    return "\n".join(lines) + "\n"


def fixes_markdown():
    """docs/operator_fixes.md: ``python -m torchada.areas.manifest --fixes > docs/operator_fixes.md``."""
    lines = ["# Fix units", "",
             "Generated from `torchada/areas/manifest.py`. Each fix is its own unit: its own",
             "gate, its own line in `torchada status` (`<area>.<fix>`), switched off alone with",
             "`TORCHADA_DISABLE_AREAS=<area>.<fix>`. Operator fixes replace the PrivateUse1",
             "kernel only, so CPU calls never reach them; outside its range a unit installs",
             "nothing. Where each is described: `graphs.exec_rotation` docs/graphs.md,",
             "`accelerator.memory_routes` docs/devices.md, the `operator_fixes` units below.", "",
             "| Unit | torch_musa range | Unknown version | What it does | Evidence |",
             "|---|---|---|---|---|"]
    for area in AREAS:
        for fix in area.fixes:
            versions = dict(fix.versions)
            lines.append("| `%s.%s` | %s | %s | %s | %s |" % (
                area.name, fix.name, versions.get("torch_musa", "any"),
                "armed (counts as lowest)" if fix.unknown_version_arms else
                "skipped" if "torch_musa" in versions else "-",
                fix.doc, fix.evidence or "-"))
    return "\n".join(lines + OPERATOR_FIXES_NOTES) + "\n"


OPERATOR_FIXES_NOTES = [
    "", "## How the operator fixes work", "",
    "* `log_f64_inplace`: a PrivateUse1 kernel for `aten::log_` computes the out-of-place",
    "  `log` and copies it back into the same tensor (same storage, autograd's in-place",
    "  formula kept). Other dtypes reach torch_musa's own kernel through",
    "  `torch.library.get_kernel` (torch >= 2.9); before that every dtype takes the",
    "  out-of-place route (same numbers, one temporary).",
    "* `mm_out_dtype`: PrivateUse1 kernels for `aten::mm.dtype` / `aten::bmm.dtype`. The first",
    "  call made outside graph capture probes torch_musa's kernels once per process (under a",
    "  lock) with exact-integer bfloat16 and float16 operands against the CPU; healthy kernels",
    "  are forwarded to and the override removed (later calls reach them directly), wrong",
    "  ones replaced by float32 accumulation cast to `out_dtype`.",
    "  Calls inside a capture before the probe are emulated. A torch without `out_dtype=`",
    "  (< 2.9), or a torch_musa without the kernels, gets nothing installed: calls keep",
    "  raising as they do.",
    "* `isfinite_async`: kernels for `aten::isfinite` at AutogradPrivateUse1 (reached first)",
    "  and PrivateUse1 (reached under `inference_mode`). float16 / bfloat16 / float32 /",
    "  float64 tensors get `abs() < inf` (one comparison; NaN compares False); every other",
    "  dtype runs ATen's composite itself. The kernel is the compiled one of the",
    "  `cpp_overrides` extension (below) from the first call on; a Python kernel with the same",
    "  rule (composite via `OpOverload.decompose`) where the build fails or",
    "  `TORCHADA_DISABLE_OP_OVERRIDE_isfinite=1`. Scriptable (the dispatcher picks it), and a",
    "  compiled graph records `abs` / `lt`, nothing of torchada.",
    "* `cpp_overrides`: no call waits on a compiler. Activation registers a Python kernel",
    "  per op that answers with torch_musa's own kernel (`torch.library.get_kernel` on torch",
    "  >= 2.9, else the op's `out=` overload, which torch_musa registers itself:",
    "  musa_functions.yaml:798 and :2623 at 2.7.1) or torchada's Python fallback (float64",
    "  `log_`, `isfinite`). The first call starts a daemon thread that loads the extension in",
    "  `torchada/areas/_op_overrides/csrc` (on a cold cache it first starts a detached",
    "  builder, `python -m torchada.areas._kit.detached`, in its own session, which outlives",
    "  the process, holds the build lock and logs to `build.log` in the key folder; a live",
    "  build is waited for, never started twice) and takes that route at once; `torchada",
    "  build` builds it ahead of time. A failed build leaves a marker keyed like the library",
    "  and is not retried until the key changes or `torchada build` runs (status and doctor",
    "  name the reason). The thread then probes the kernels, called directly before any",
    "  registration, on the first call's device and a private stream: that the device's",
    "  generator keeps a Philox offset (multinomial reads and advances it; torch_musa's",
    "  MUSAGeneratorImpl keeps one, MUSAGeneratorImpl.cpp:287-302 and :466-478 at 2.7.1) and",
    "  each op's exact answers in float16 / bfloat16 / float32 / float64; never while a graph",
    "  capture is open on any thread (the probes copy to the host, which would invalidate a",
    "  `\"global\"`-mode capture: they wait for it to end, up to 300 s, and a capture begun",
    "  meanwhile waits the milliseconds they take; `_kit/capture_gate.py`), and never cut off",
    "  by interpreter exit (exit waits for the load or the probes under way, up to 10 s, and",
    "  starts none: `_kit/background.py`; docs/simulator.md says what that fixed). Once that",
    "  is done,",
    "  the next call made outside graph capture swaps in, at its start, the kernels that",
    "  passed: no device work there, so the user's dispatch modes, profiler and stream see",
    "  only the user's op. An op whose check fails (or whose probes could not run) stands",
    "  aside with a status line (`multinomial left to torch_musa: ...`); a call inside a",
    "  capture keeps the interim route and leaves the",
    "  swap to the next call outside it. Until the swap multinomial draws with torch_musa's",
    "  sampler, after it with the compiled one, and which call swaps depends on when the",
    "  build or load ends: a program that needs the same samples run after run seeds once",
    "  `torchada status` shows `compiled:` for cpp_overrides. A failed build warns once",
    "  (from the build thread),",
    "  gives the ops back to torch_musa and installs the Python",
    "  `log_f64_inplace` kernel where that unit's gate passed. `op_overrides.cpp` (argument",
    "  checks, output shapes, the call log, registration) is shared by both devices and",
    "  tested here; `kernels_sim.cpp` holds the simulator's bodies. The device bodies in",
    "  `kernels_musa.mu` cite torch_musa's real headers beside each name (read, not compiled: mcc",
    "  has never compiled them here)",
    "  and run on an NVIDIA GPU as a CUDA twin ([native_twin.md](native_twin.md)); multinomial's",
    "  arithmetic is one header (`sampling.h`) shared by the device kernel and the simulator.",
    "  multinomial advances the generator per call, so a graph replay draws fresh samples.",
    "  Outside graph capture it checks the probabilities as torch does (one wait for the",
    "  device, torch's messages for rows with inf, NaN, negatives or a zero sum; torch itself",
    "  only asserts on the device with replacement and several samples); during capture",
    "  nothing may wait, so it reads nothing on the host (torch's own `.item()` check is what",
    "  capture refuses) and invalid weights count as zero.",
    "* Tested on the simulator with the defect of the named release on (the fix acts), off",
    "  (it forwards) and on fixed releases (nothing installed):",
    "  `tests/areas/operator_fixes/`. Only the numbers of torch_musa's own kernels and `mcc`",
    "  compiling `kernels_musa.mu` are MUSA hardware's to show; the CUDA twin runs the same",
    "  bodies (`benchmarks/results/musa_twin_h200.json`).",
    "",
    "## Candidates without a fix",
    "",
    "* `_weight_int4pack_mm` on 2.9.1.post1: torch_musa's kernel, as read, dequantizes a",
    "  nibble as a signed int4 in [-8, 7] where CUDA's takes `q - 8`, so a CUDA-packed int4",
    "  weight (gpt-fast, torchao) would give other numbers (docs/simulator.md, the operator",
    "  set; the simulator models the reading). The evidence is source only, with no card",
    "  measurement or release note, so no unit rewrites the weights (XOR-ing every packed",
    "  byte with 0x88 would): a fix built on a misreading would corrupt correct numbers.",
]


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    elif sys.argv[1:] == ["--fixes"]:
        sys.stdout.write(fixes_markdown())
    else:
        sys.exit("usage: python -m torchada.areas.manifest --markdown | --fixes")
