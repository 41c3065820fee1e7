"""What the compiled kernels rely on: the call's device, a generator that keeps a Philox
offset (multinomial), and the exact answers of a tiny probe of each kernel in each floating
dtype. An op whose check fails stands aside: torch_musa's kernel (or the unit's Python
fallback) keeps it and the reason becomes its status line. Each check returns None when it
holds, else the reason.

The probes and the generator check run on the build's background thread (``verdicts``),
on an explicit device and a private stream, calling the extension's kernels directly (no
registration yet): never inside a user's call, so never under the user's dispatch modes,
profiler, stream or graph capture; and never while a graph capture is open on any thread
(``_kit.capture_gate``: a host copy would invalidate a ``"global"``-mode capture). The
user's call only compares its device (``device_problem``, no device work) and reads the
verdicts.
"""
import contextlib

from torchada.areas._kit import capture_gate

FLOATS = ("float16", "bfloat16", "float32", "float64")
CAPTURE_WAIT_S = 300   # how long the probes wait for another thread's capture to end


def _first_line(exc):
    return "%s: %s" % (type(exc).__name__, (str(exc).strip().splitlines() or [""])[0][:200])


def device_problem(torch, device):
    backend = torch._C._get_privateuse1_backend_name()
    if device.type != backend:
        return "the call's tensor is on %s, not a %s device" % (device, backend)
    return None


def generator_problem(torch, device):
    """The compiled multinomial reads the default generator's (seed, offset) and advances the
    offset. torch_musa's generator keeps one: MUSAGeneratorImpl::get_offset / set_offset
    read and set philox_offset_per_thread_ (torch_musa/csrc/aten/musa/MUSAGeneratorImpl.cpp
    :287-302 at 2.7.1) and philox_musa_state(increment) hands out (seed, offset) and
    advances it (:466-478); a generator without one (a CPU generator raises "CPU Generator
    does not use offset") would make the kernel raise inside the user's call."""
    module = getattr(torch, device.type, None)
    try:
        index = device.index if device.index is not None else module.current_device()
        generator = module.default_generators[index]
    except (AttributeError, IndexError, TypeError, RuntimeError) as exc:
        return "no default %s generator to check (%s)" % (device.type, _first_line(exc))
    try:
        generator.get_offset()
    except (RuntimeError, AttributeError) as exc:
        return "the %s generator keeps no Philox offset (%s)" % (device, _first_line(exc))
    if generator.device.type != device.type:
        return "the default generator of %s is a %s generator" % (device, generator.device.type)
    return None


def _probe_log(torch, kernel, dtype, device):
    got = kernel(torch.tensor([1.0, 0.0, float("inf")], dtype=dtype, device=device))
    return got.dtype == dtype and got.cpu().tolist() == [0.0, -float("inf"), float("inf")]


def _probe_log_(torch, kernel, dtype, device):
    x = torch.tensor([1.0, 0.0, float("inf")], dtype=dtype, device=device)
    same = kernel(x).data_ptr() == x.data_ptr()     # in place: the input's storage
    return same and x.cpu().tolist() == [0.0, -float("inf"), float("inf")]


def _probe_isfinite(torch, kernel, dtype, device):
    x = torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), 0.0], dtype=dtype,
                     device=device)
    return kernel(x).cpu().tolist() == [True, False, False, False, True]


def _probe_multinomial(torch, kernel, dtype, device):
    # one positive weight per row: any correct sampler draws it; a private generator keeps
    # the program's own random stream where it was
    weights = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]], dtype=dtype,
                           device=device)
    generator = torch.Generator(device=device)
    got = kernel(weights, 1, False, generator)
    return got.dtype == torch.long and got.cpu().tolist() == [[2], [1]]


PROBES = {"log": _probe_log, "log_": _probe_log_, "isfinite": _probe_isfinite,
          "multinomial": _probe_multinomial}


def probe_problem(torch, module, op, device):
    """``op``'s compiled kernel (``module.<op>``, called directly) on exact inputs in every
    floating dtype: the first dtype that raises or answers wrong."""
    for name in FLOATS:
        try:
            right = PROBES[op](torch, getattr(module, op), getattr(torch, name), device)
        except Exception as exc:  # a dtype the device or kernel cannot take
            return "%s on %s %s raised %s" % (op, device.type, name, _first_line(exc))
        if not right:
            return "%s gave wrong %s results on %s" % (op, name, device.type)
    return None


def _private_stream(torch, device):
    """This thread on ``device`` and a stream of its own (the user's current stream, and
    any capture on it, untouched)."""
    module = getattr(torch, device.type)
    stack = contextlib.ExitStack()
    stack.enter_context(module.device(device.index))
    stack.enter_context(module.stream(module.Stream(device=device)))
    return stack


def verdicts(torch, module, ops, device):
    """{op: None or why it stands aside} for ``ops``, worked out on the calling (build)
    thread on ``device`` (the first call's; None: the current one) and a private stream.
    A failure of the set-up itself stands every op aside with that reason (the status line
    says it), never silently."""
    backend = torch._C._get_privateuse1_backend_name()
    found = {}
    try:
        if device is None or device.index is None:
            device = torch.device(backend, getattr(torch, backend).current_device())
        with capture_gate.probing(CAPTURE_WAIT_S), _private_stream(torch, device):
            for op in ops:
                problem = generator_problem(torch, device) if op == "multinomial" else None
                found[op] = problem or probe_problem(torch, module, op, device)
    except Exception as exc:  # the device or stream itself failed: said per op
        why = "the probes could not run on %s: %s" % (device, _first_line(exc))
        return {op: found[op] if op in found else why for op in ops}
    return found
