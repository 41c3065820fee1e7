"""The compile matrix's cases: one small function per CUDA spelling torchada translates.

Generated, not listed by hand, from what torchada itself declares:

* the devices area's factory and ``Tensor.new_*`` lists (``areas/_devices/factories.py``) and
  the device forms it accepts (``"cuda"``, ``"cuda:0"``, ``torch.device("cuda", 0)``, ...);
* every mapped / emulated / native function row of ``areas/cuda_api_table.py`` (a call with
  the arguments in ``CALL_ARGS``; names that are no call inside a model are in
  ``NOT_CALLED`` with the reason);
* one group of cases per manifest area that changes what traced code sees (``AREA_CASES``);
  an area with nothing to trace is in ``NOT_TRACED`` with the reason. A test checks that the
  manifest, the table and the devices lists are covered one to one, so a new area or row
  cannot be left out silently.

Each case is ``Case(name, area, source, inputs, random)``: ``source`` defines ``f(x)``;
``inputs`` is ``"gpu"`` (x made with ``device="cuda"``) or ``"cpu"`` (Inductor can compile it
on the simulator); ``random`` cases compare shape, dtype and device, not values.
Pure data plus string building: importable on a machine without torchada active (the NVIDIA
run of the same matrix imports it with torch's own CUDA).
"""
from collections import namedtuple

Case = namedtuple("Case", "name area source inputs random")

DEVICE_FORMS = {
    "str": '"cuda"',
    "str0": '"cuda:0"',
    "dev": 'torch.device("cuda")',
    "dev0": 'torch.device("cuda", 0)',
    "devkw": 'torch.device(type="cuda", index=0)',
}

# Arguments for each factory, ``{d}`` the device expression. Random factories compare
# metadata only.
FACTORY_CALLS = {
    "zeros": "(2, 3, device={d})", "ones": "(2, 3, device={d})",
    "empty": "(2, 3, device={d}).fill_(1)", "full": "((2, 3), 4.0, device={d})",
    "rand": "(2, 3, device={d})", "randn": "(2, 3, device={d})",
    "randint": "(0, 9, (2, 3), device={d})", "randperm": "(6, device={d})",
    "arange": "(6, device={d})", "range": "(0, 5, device={d})",
    "linspace": "(0, 1, 6, device={d})", "logspace": "(0, 1, 6, device={d})",
    "eye": "(3, device={d})", "tensor": "([1.0, 2.0, 3.0], device={d})",
    "as_tensor": "([1.0, 2.0, 3.0], device={d})", "asarray": "([1.0, 2.0], device={d})",
    "empty_strided": "((2, 3), (3, 1), device={d}).fill_(2)",
    "empty_permuted": "((2, 3), (1, 0), device={d}).fill_(2)",
    "scalar_tensor": "(3.0, device={d})", "tril_indices": "(3, 3, device={d})",
    "triu_indices": "(3, 3, device={d})", "normal": "(0.0, 1.0, (2, 3), device={d})",
    "bartlett_window": "(5, device={d})", "blackman_window": "(5, device={d})",
    "hamming_window": "(5, device={d})", "hann_window": "(5, device={d})",
    "kaiser_window": "(5, device={d})",
    "zeros_like": "(x, device={d})", "ones_like": "(x, device={d})",
    "empty_like": "(x, device={d}).fill_(1)", "full_like": "(x, 7.0, device={d})",
    "rand_like": "(x, device={d})", "randn_like": "(x, device={d})",
    "randint_like": "(x, 9, device={d})",
}
RANDOM_FACTORIES = frozenset(("rand", "randn", "randint", "randperm", "normal", "rand_like",
                              "randn_like", "randint_like"))
# Factories that are no call inside a traced model (they read files or build sparse
# layouts Dynamo does not trace on any device).
FACTORY_NOT_CALLED = {
    "from_file": "reads a file: not model code",
    "sparse_coo_tensor": "sparse construction: torch does not trace it (any device)",
    "sparse_csr_tensor": "sparse construction: torch does not trace it (any device)",
    "sparse_csc_tensor": "sparse construction: torch does not trace it (any device)",
    "sparse_bsr_tensor": "sparse construction: torch does not trace it (any device)",
    "sparse_bsc_tensor": "sparse construction: torch does not trace it (any device)",
    "sparse_compressed_tensor": "sparse construction: torch does not trace it (any device)",
}
NEW_CALLS = {
    "new_empty": "((2, 3), device={d}).fill_(1)", "new_zeros": "((2, 3), device={d})",
    "new_ones": "((2, 3), device={d})", "new_full": "((2, 3), 5.0, device={d})",
    "new_tensor": "([1.0, 2.0], device={d})",
    "new_empty_strided": "((2, 3), (3, 1), device={d}).fill_(1)",
}

# Calls for torch.cuda rows (top level and "sub.name"); a row absent here is called with no
# arguments.
CALL_ARGS = {
    "get_device_name": "0", "get_device_capability": "0", "get_device_properties": "0",
    "can_device_access_peer": "0, 0", "device_of": "x", "set_device": "0",
    "manual_seed": "0", "manual_seed_all": "0", "set_sync_debug_mode": "0",
    "check_error": "0", "set_per_process_memory_fraction": "1.0",
    "get_rng_state": "0", "memory_allocated": "0", "memory_reserved": "0",
    "max_memory_allocated": "0", "max_memory_reserved": "0",
    "nvtx.range_push": '"step"', "nvtx.mark": '"step"', "nvtx.range_start": '"step"',
    "nccl.is_available": "[x]",
}
# torch.cuda names that are no call inside a model: classes and context managers (their
# traced use has its own case in AREA_CASES), process-level set-up, and calls whose
# arguments are objects made outside a step.
NOT_CALLED = {
    "set_rng_state": "needs a saved state (process set-up)",
    "set_rng_state_all": "needs saved states (process set-up)",
    "set_stream": "needs a stream object (covered by the streams cases)",
    "change_current_allocator": "process set-up, before the first allocation",
    "use_mem_pool": "context manager over a MemPool (process set-up)",
    "memory_summary": "a text report for humans, not model code",
    "memory_snapshot": "a host-side allocator dump, not model code",
    "memory_stats_as_nested_dict": "a host-side allocator dump, not model code",
    "memory._record_memory_history": "process set-up of the allocator's history",
    "memory._dump_snapshot": "writes a file",
    "memory._snapshot": "a host-side allocator dump, not model code",
    "memory._set_allocator_settings": "process set-up",
    "memory._get_current_allocator": "returns the allocator object (process set-up)",
    "cudart": "returns the runtime binding object (host code)",
    "nvtx.range_end": "needs the handle of range_start (covered by the profiler cases)",
    "nvtx.range_pop": "pairs with range_push (covered by the profiler cases)",
    "nvtx.range": "context manager (covered by the profiler cases)",
    "graph_pool_handle": "graph set-up outside a step (covered by the serving shapes)",
    "nccl.version": "host-side library version (process set-up)",
    "amp.custom_fwd": "decorator applied at class definition",
    "amp.custom_bwd": "decorator applied at class definition",
    "amp.autocast": "context manager (covered by the amp cases)",
    "amp.GradScaler": "host-side object (covered by the serving shapes)",
    "amp.amp_definitely_not_available": "internal query of torch.cuda.amp",
    "seed": "draws a non-deterministic seed (process set-up)",
    "seed_all": "draws a non-deterministic seed (process set-up)",
    "ipc_collect": "host-side IPC housekeeping",
    "init": "process set-up",
    "empty_cache": "host-side allocator housekeeping",
    "reset_accumulated_memory_stats": "host-side statistics housekeeping",
    "reset_peak_memory_stats": "host-side statistics housekeeping",
    "reset_max_memory_allocated": "host-side statistics housekeeping",
    "reset_max_memory_cached": "host-side statistics housekeeping",
    "mem_get_info": "host-side query of the driver (not model code)",
    "default_generators": "a sequence, not a call",
    "profiler.start": "host-side profiler control",
    "profiler.stop": "host-side profiler control",
    "profiler.profile": "host-side profiler control",
    "get_stream_from_external": "needs a stream pointer made outside torch",
    "caching_allocator_alloc": "a raw allocator block (an address, no tensor): host code",
    "caching_allocator_delete": "frees a raw allocator block: host code",
    "make_graphed_callables": "graph set-up outside a step (covered by the serving shapes)",
    "stream": "context manager (covered by cuda_namespace.streams.context)",
}
# Queries whose answer changes from one call to the next (allocator statistics, range
# depths): compared by type, not value.
VOLATILE = frozenset((
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "memory_cached", "max_memory_cached", "memory_stats", "nvtx.range_push",
    "nvtx.range_start"))

# Areas whose changes traced code cannot see: their reason.
NOT_TRACED = {
    "graphs": "graph capture runs eagerly around compiled code: covered by the serving shapes",
    "cudart": "the runtime binding object is host code (torch.cuda.cudart())",
    "ctypes_libs": "ctypes library loading is host code",
    "flex_attention": "FlexAttention compiles through Inductor's musa code generation, which "
                      "the simulator does not model (docs/compile.md)",
    "inductor_cache": "changes Inductor's cache key, not what a graph computes",
    "inductor_heuristics": "changes Inductor's autotune configurations for musa kernels",
    "triton_extra": "Triton kernels, not torch code",
    "triton_musa36": "MUSA Triton 3.6's launcher and code generator, not torch code",
    "fsdp2": "fully_shard wraps a module outside a step (process set-up of the model)",
    "flash_attn": "a provider module name, imported outside a step",
    "moe_configs": "configuration files read at layer construction",
    "deepspeed_accelerator": "DeepSpeed's accelerator object, host code",
    "lightning": "Lightning's accelerator classes, host code",
    "dynamo_wrappers": "makes the devices area's cases traceable (its own cases are theirs)",
    "aot_cache": "the AOT-autograd cache key (tests/areas/aot_cache)",
    "env_mirror": "environment variables read at start",
    "cpp_extension": "extension builds, host code",
    "tvm_ffi_build": "tvm-ffi's build.ninja for JIT kernels, written before any run (host "
                     "code; tests/areas/tvm_ffi_build)",
    "data_parallel": "torch.cuda.comm scatter / gather and nn.DataParallel run eagerly around "
                     "the replicas",
    "accelerator": "torch.accelerator memory routes are host-side queries",
    "cpu_fallback": "PrivateUse1 kernels for ops the release lacks: Dynamo and AOT autograd "
                    "record torch's operators (tests/areas/cpu_fallback)",
    "verify": "off unless asked for; its dispatch mode is checked under compile in "
              "tests/areas/verify",
}


def _case(name, area, body, inputs="gpu", random=False):
    lines = body.strip("\n").splitlines()
    return Case(name, area, "def f(x):\n" + "\n".join("    " + ln for ln in lines) + "\n",
                inputs, random)


def device_cases(factories, tensor_new):
    """The devices area: every factory and new_* with a CUDA device, every device form."""
    cases = []
    for form, expr in DEVICE_FORMS.items():
        cases.append(_case("devices.zeros[%s]" % form, "devices",
                           "return x + torch.zeros(2, 3, device=%s)" % expr))
        cases.append(_case("devices.to[%s]" % form, "devices",
                           "return x.cpu().to(%s) * 2" % expr))
    for name in factories:
        if name in FACTORY_NOT_CALLED:
            continue
        call = "torch.%s%s" % (name, FACTORY_CALLS[name].format(d='"cuda"'))
        cases.append(_case("devices.%s" % name, "devices",
                           "return %s, x + 1" % call, random=name in RANDOM_FACTORIES))
    for name in tensor_new:
        call = "x.%s%s" % (name, NEW_CALLS[name].format(d='"cuda"'))
        cases.append(_case("devices.%s" % name, "devices", "return %s" % call))
    cases += [
        _case("devices.to_nonblocking", "devices",
              'return x.cpu().to("cuda", non_blocking=True) + 1'),
        _case("devices.to_device_kw", "devices", 'return x.cpu().to(device="cuda:0") + 1'),
        _case("devices.to_dtype_device", "devices",
              'return x.cpu().to("cuda", torch.float16)'),
        _case("devices.to_cpu_input", "devices",
              'return x.to("cuda", non_blocking=True) + 1', inputs="cpu"),
        _case("devices.cuda", "devices", "return x.cpu().cuda() + 1"),
        _case("devices.cuda0", "devices", "return x.cpu().cuda(0) + 1"),
        _case("devices.cuda_dev", "devices", 'return x.cpu().cuda(torch.device("cuda")) + 1'),
        _case("devices.is_cuda", "devices", "return x * 2 if x.is_cuda else x * 3"),
        _case("devices.is_cuda_cpu", "devices", "return x * 2 if x.is_cuda else x * 3",
              inputs="cpu"),
        _case("devices.device_type", "devices",
              'return x + 1 if x.device.type in ("cuda", "musa") else x - 1'),
        _case("devices.device_obj", "devices",
              'd = torch.device("cuda", 0)\nreturn x.to(d) + 1, str(d.type)'),
        _case("devices.same_device", "devices",
              'return x + 1 if x.device == torch.device("cuda", 0) else x - 1'),
        _case("devices.get_device", "devices", "return x + x.get_device()"),
        _case("devices.module_to", "devices",
              'm = torch.nn.Identity()\nreturn m.to("cuda")(x) + 1'),
    ]
    return cases


def table_cases(rows, resolve):
    """Every callable torch.cuda row (mapped / emulated / native) called inside ``f``, on a
    CPU input: the call itself is the spelling under test (and a CPU torch without CUDA
    then shows what its Dynamo does with the call).

    ``rows``: [(qualname, row)] from the table; ``resolve(qualname)``: the object under
    torch.cuda on this machine, or None where this torch has no such name.
    """
    cases = []
    for qualname, row in rows:
        if row.kind not in ("mapped", "emulated", "native") or qualname in NOT_CALLED:
            continue
        obj = resolve(qualname)
        if obj is None or isinstance(obj, type) or not callable(obj):
            continue
        if qualname.startswith("_"):
            continue  # private names: tests/areas/cuda_private
        args = CALL_ARGS.get(qualname, "")
        cases.append(_case("cuda.%s" % qualname, row.area,
                           "v = torch.cuda.%s(%s)\nreturn x + 1, v" % (qualname, args),
                           inputs="cpu", random=qualname in VOLATILE))
    return cases


AREA_CASES = {
    "cuda_namespace": [
        ("streams.current", "s = torch.cuda.current_stream()\nreturn x + 1"),
        ("streams.event", "e = torch.cuda.Event()\ne.record()\ny = x * 3\ne.wait()\n"
                          "return y"),
        ("streams.context", "s = torch.cuda.current_stream()\n"
                            "with torch.cuda.stream(s):\n    y = x * 2\nreturn y"),
        ("device_ctx", "with torch.cuda.device(0):\n    y = x + torch.ones(2, 3, "
                       "device=\"cuda\")\nreturn y"),
    ],
    "profiler": [
        ("nvtx.push_pop", "torch.cuda.nvtx.range_push(\"a\")\ny = x * 2\n"
                          "torch.cuda.nvtx.range_pop()\nreturn y", "cpu"),
        ("nvtx.range", "with torch.cuda.nvtx.range(\"a\"):\n    y = x * 2\nreturn y", "cpu"),
    ],
    "distributed": [
        ("all_reduce", "y = x.clone()\ntorch.distributed.all_reduce(y)\nreturn y"),
        ("get_backend", "return x + 1, torch.distributed.get_backend()", "cpu"),
        ("world", "return x * torch.distributed.get_world_size()", "cpu"),
    ],
    "cuda_private": [
        ("get_device_index", "return x + torch.cuda._get_device_index(\"cuda:0\")", "cpu"),
    ],
    "custom_ops": [
        ("custom_op", "return torch.ops.torchada_matrix.scale(x, 3.0)"),
    ],
    "amp": [
        ("autocast", "with torch.autocast(\"cuda\"):\n    y = x @ x.t()\nreturn y"),
        ("autocast_bf16", "with torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16):"
                          "\n    y = x @ x.t()\nreturn y"),
        ("cuda_amp_autocast", "with torch.cuda.amp.autocast():\n    y = x @ x.t()\nreturn y"),
        ("amp_autocast", "with torch.amp.autocast(\"cuda\"):\n    y = x @ x.t()\nreturn y"),
    ],
    "backends": [
        ("allow_tf32", "return x * 2 if torch.backends.cuda.matmul.allow_tf32 else x * 3", "cpu"),
        ("cudnn_enabled", "return x * 2 if torch.backends.cudnn.enabled else x * 3", "cpu"),
        ("cudnn_available", "return x * 2 if torch.backends.cudnn.is_available() else x * 3", "cpu"),
        ("flash_sdp", "return x * 2 if torch.backends.cuda.flash_sdp_enabled() else x * 3", "cpu"),
        ("is_built", "return x * 2 if torch.backends.cuda.is_built() else x * 3", "cpu"),
    ],
    "operator_fixes": [
        ("log", "return torch.log(x)"),
        ("log_f64_inplace", "y = x.double()\ny.log_()\nreturn y"),
        ("isfinite", "return torch.isfinite(x / (x - 1))"),
        ("multinomial", "return torch.multinomial(x.abs() + 0.1, 2)", "gpu", True),
    ],
    "legacy_types": [
        ("type_str", "return x + 1, x.type()"),
        ("type_half", "return x.type(torch.cuda.HalfTensor)"),
        ("type_name", "return x.type(\"torch.cuda.DoubleTensor\")"),
    ],
    "platform": [
        ("version_cuda", "return x * 2 if torch.version.cuda else x * 3", "cpu"),
        ("version_musa", "return x * 2 if getattr(torch.version, \"musa\", None) else x * 3",
         "cpu"),
        ("is_available", "return x * 2 if torch.cuda.is_available() else x * 3", "cpu"),
        ("detect_platform", "return x * 2 if torchada.detect_platform().name == \"CPU\" "
                            "else x * 3", "cpu"),
        ("is_gpu_device", "return x * 2 if torchada.is_gpu_device(\"cuda:0\") else x * 3",
         "cpu"),
        ("is_gpu_device_tensor", "return x * 2 if torchada.is_gpu_device(x.device) else x * 3"),
        ("capability", "major, minor = torch.cuda.get_device_capability()\n"
                       "return x * major + minor", "cpu"),
    ],
}


# The torch.cuda calls an area case makes, for the rules of torch's Dynamo (torch_rules.py).
AREA_CASE_CALLS = {
    "profiler.nvtx.push_pop": ("nvtx.range_push", "nvtx.range_pop"),
    "profiler.nvtx.range": ("nvtx.range",),
}


def area_cases():
    cases = []
    for area, rows in AREA_CASES.items():
        for row in rows:
            name, body = row[0], row[1]
            inputs = row[2] if len(row) > 2 else "gpu"
            random = row[3] if len(row) > 3 else False
            cases.append(_case("%s.%s" % (area, name), area, body, inputs, random))
    return cases


def all_cases(resolve):
    """Every case, generated from torchada's own lists (see the module docstring)."""
    from torchada.areas import cuda_api_table
    from torchada.areas._devices.factories import FACTORIES, TENSOR_NEW

    rows = list(cuda_api_table.TOP.items()) + list(cuda_api_table.SUB.items())
    return device_cases(FACTORIES, TENSOR_NEW) + table_cases(rows, resolve) + area_cases()
