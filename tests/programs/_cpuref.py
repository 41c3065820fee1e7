"""CPU reference run of a CUDA program (test harness only, not torchada).

``python _cpuref.py prog.py``: rewrites the program's cuda device strings to "cpu" and gives
torch.cuda / Tensor.cuda / Module.cuda CPU stand-ins in this process, then runs the program.
The numbers it prints are the reference the simulated-MUSA run must match.
"""
import contextlib
import re
import sys

import torch
import torch.nn as nn

_DEV = re.compile(r"""(["'])cuda(:\d+)?\1""")


def _noop(*args, **kwargs):
    return None


class _Stream:
    def __init__(self, *args, **kwargs):
        pass

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, _Stream)

    __hash__ = object.__hash__


class _Event:
    def __init__(self, *args, **kwargs):
        pass

    record = synchronize = wait = _noop
    device = torch.device("cpu")

    def query(self):
        return True

    def elapsed_time(self, other):
        return 0.0


_stream = _Stream()
_state = {"device": 0}


def _set_rng_state(state, *args):
    if state.numel() == 16:  # a CUDA state (seed, offset): reseed the CPU stand-in
        torch.manual_seed(int(state[:8].view(torch.int64).item()))
    else:
        torch.set_rng_state(state)


def _install():
    cuda = torch.cuda
    cuda.Stream, cuda.Event = _Stream, _Event
    cuda.current_stream = cuda.default_stream = lambda *a, **k: _stream
    cuda.stream = lambda s: contextlib.nullcontext()
    cuda.synchronize = _noop
    cuda.device_count = lambda: 2
    cuda.set_device = lambda d: _state.update(device=d)
    cuda.current_device = lambda: _state["device"]
    cuda.device = lambda d: contextlib.nullcontext()
    seed = torch.random.default_generator.manual_seed
    cuda.manual_seed = cuda.manual_seed_all = lambda s: seed(s)
    cuda.get_rng_state = lambda *a: torch.get_rng_state()
    cuda.set_rng_state = _set_rng_state
    for name in ("empty_cache", "reset_peak_memory_stats"):
        setattr(cuda, name, _noop)
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved"):
        setattr(cuda, name, lambda *a: 0)
    cuda.mem_get_info = lambda *a: (0, 0)
    cuda.memory_stats = lambda *a: {}
    cuda.amp.GradScaler = lambda *a, **k: torch.amp.GradScaler("cpu", *a, **k)
    cuda.amp.autocast = lambda *a, **k: torch.autocast("cpu", dtype=torch.float16)
    torch.UntypedStorage.cuda = lambda self, *a, **k: self
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.Tensor.record_stream = lambda self, *a, **k: None
    torch.Tensor.pin_memory = lambda self, *a, **k: self
    torch.Tensor.is_pinned = lambda self, *a, **k: True
    torch.Tensor.is_cuda = property(lambda self: True)
    nn.Module.cuda = lambda self, *a, **k: self
    acc = torch.accelerator
    acc.synchronize = _noop
    # a CUDA build of torch (the 2.7.1 run) reports cuda here and initialises it
    acc.current_accelerator = lambda *a, **k: torch.device("cpu")
    acc.device_count = lambda: 1
    acc.memory_allocated = lambda *a: 0
    acc.device_index = lambda i: contextlib.nullcontext()
    _install_legacy_types(cuda)
    _install_comm()


_LEGACY = ("Bool", "Byte", "Char", "Double", "Float", "Int", "Long", "Short", "Half", "BFloat16")


def _install_legacy_types(cuda):
    """torch.cuda.<T>Tensor (class or dotted name) mean the CPU types."""
    for name in _LEGACY:
        setattr(cuda, name + "Tensor", getattr(torch, name + "Tensor"))
    original = torch.Tensor.type

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return original(self)
        if isinstance(dtype, str) and dtype.startswith("torch.cuda."):
            dtype = "torch." + dtype[len("torch.cuda."):]
        return original(self, dtype, non_blocking, **kwargs)

    torch.Tensor.type = type


def _install_comm():
    """torch.cuda.comm on one CPU "device" per index: copies, chunks, concatenation, sums."""
    import torch.cuda.comm  # noqa: F401 (not imported by torch itself)

    comm = torch.nn.parallel.comm
    comm.broadcast = lambda t, devices=None, **k: [t.clone() for _ in devices]
    comm.scatter = lambda t, devices=None, chunk_sizes=None, dim=0, **k: (
        t.chunk(len(devices), dim) if chunk_sizes is None else t.split(list(chunk_sizes), dim))
    comm.gather = lambda ts, dim=0, destination=None, **k: torch.cat(list(ts), dim)

    def reduce_add(inputs, destination=None):
        result = inputs[0].clone()
        for other in inputs[1:]:
            result += other
        return result

    comm.reduce_add = reduce_add
    for name in ("broadcast", "scatter", "gather", "reduce_add"):
        setattr(torch.cuda.comm, name, getattr(comm, name))


_CPU_KEYS = {"CUDA": "CPU", "AutocastCUDA": "AutocastCPU", "AutogradCUDA": "AutogradCPU"}


def _cpu_kernels():
    """Kernels a program registers for CUDA dispatch keys are registered for CPU's."""
    impl = torch.library.Library.impl

    def cpu_impl(self, op_name, fn, dispatch_key="", *args, **kwargs):
        key = _CPU_KEYS.get(dispatch_key)
        if key is None:
            return impl(self, op_name, fn, dispatch_key, *args, **kwargs)
        name = op_name if "::" in op_name else "%s::%s" % (self.ns, op_name)
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
                return None  # torch's own ops register CPU and CUDA kernels both
        except RuntimeError:
            pass
        return impl(self, op_name, fn, key, *args, **kwargs)

    torch.library.Library.impl = cpu_impl


def main(path):
    with open(path) as fh:
        source = _DEV.sub('"cpu"', fh.read())
    _install()
    _cpu_kernels()
    code = compile(source, path, "exec")
    sys.argv = [path]
    exec(code, {"__name__": "__main__", "__file__": path})


if __name__ == "__main__":
    main(sys.argv[1])
