"""What the compiled kernels rely on, checked when they are swapped in (on the calling
thread, outside graph capture): the call's device, a generator that keeps a Philox offset
(multinomial), and the exact answers of a tiny probe in each floating dtype. An op whose
check fails stands aside: torch_musa's kernel (or the unit's Python fallback) keeps it and
the reason becomes its status line. Each check returns None when it holds, else the reason.
"""
FLOATS = ("float16", "bfloat16", "float32", "float64")


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


def _probe_log(torch, dtype, device):
    got = torch.log(torch.tensor([1.0, 0.0, float("inf")], dtype=dtype, device=device))
    return got.dtype == dtype and got.cpu().tolist() == [0.0, -float("inf"), float("inf")]


def _probe_log_(torch, dtype, device):
    x = torch.tensor([1.0, 0.0, float("inf")], dtype=dtype, device=device)
    return x.log_() is x and x.cpu().tolist() == [0.0, -float("inf"), float("inf")]


def _probe_isfinite(torch, dtype, device):
    x = torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), 0.0], dtype=dtype,
                     device=device)
    return torch.isfinite(x).cpu().tolist() == [True, False, False, False, True]


def _probe_multinomial(torch, dtype, device):
    # one positive weight per row: any correct sampler draws it; a private generator keeps
    # the program's own random stream where it was
    weights = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]], dtype=dtype,
                           device=device)
    generator = torch.Generator(device=device)
    got = torch.multinomial(weights, 1, generator=generator)
    return got.dtype == torch.long and got.cpu().tolist() == [[2], [1]]


PROBES = {"log": _probe_log, "log_": _probe_log_, "isfinite": _probe_isfinite,
          "multinomial": _probe_multinomial}


def probe_problem(torch, op, device):
    """``op`` (now dispatched to the compiled kernel) on exact inputs in every floating
    dtype: the first dtype that raises or answers wrong."""
    for name in FLOATS:
        try:
            right = PROBES[op](torch, getattr(torch, name), device)
        except Exception as exc:  # a dtype the device or kernel cannot take
            return "%s on %s %s raised %s" % (op, device.type, name, _first_line(exc))
        if not right:
            return "%s gave wrong %s results on %s" % (op, name, device.type)
    return None
