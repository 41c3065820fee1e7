"""Operators torch_musa has no kernel for run on the CPU, as PyTorch's MPS and XPU
fallbacks do.

CUDA APIs made to work: any torch operator on a "cuda" tensor whose aten overload has a CPU
kernel, no composite one, and no PrivateUse1 kernel in the running torch_musa (its operator
table, else the dispatcher's own registrations: ``_cpu_fallback/opset.py``). Each such
overload gets a PrivateUse1 kernel that runs it on CPU copies and puts the results back
(``_cpu_fallback/kernel.py``); operators with a kernel are not touched, so they pay nothing.
One warning per operator; calls and time per operator in the translation report.
TORCHADA_CPU_FALLBACK=0 installs nothing (the operators raise as torch_musa does);
TORCHADA_CPU_FALLBACK_OPS adds operators whose torch_musa kernel is to be bypassed.

torch_musa APIs relied on: torch_musa.__version__ (which table); its PrivateUse1 kernels for
empty / copy_ / resize_ / as_strided / random_ (the copies, views and seeds).
"""
import logging
import sys

from torchada.areas import _kit

logger = logging.getLogger("torchada")


def _release():
    version = getattr(sys.modules.get("torch_musa"), "__version__", None)
    return str(version).split("+")[0] if version else None


def _overload(torch, name):
    base, _, overload = name.split("::", 1)[1].partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _kernel_function(name, make_kernel):
    """The PrivateUse1 kernel for `name`: the CpuKernel is made at the first call (making all
    of them at activation cost ~4 ms for operators a program rarely calls)."""
    made = []

    def cpu_fallback_kernel(*args, **kwargs):
        if not made:
            try:
                made.append(make_kernel())
            except Exception as exc:  # noqa: BLE001 - this torch cannot describe the op
                raise NotImplementedError(
                    "torchada cpu_fallback: %s could not be run on the CPU (%s: %s); "
                    "TORCHADA_CPU_FALLBACK=0 leaves it to torch_musa" % (name, type(exc).__name__, exc)) from exc
        return made[0](*args, **kwargs)

    cpu_fallback_kernel.__qualname__ = "cpu_fallback[%s]" % name
    return cpu_fallback_kernel


def _forced(ctx):
    from torchada._core import settings
    from torchada.areas._cpu_fallback import opset

    known, unknown = opset.parse_names(ctx.torch, settings.read("TORCHADA_CPU_FALLBACK_OPS"))
    if unknown:
        logger.warning("torchada: TORCHADA_CPU_FALLBACK_OPS names no operator %s; give "
                       "aten::name or aten::name.overload (e.g. aten::cumprod, "
                       "aten::std.correction)", ", ".join(repr(u) for u in unknown))
    return known


def apply(ctx):
    from torchada._core import settings, trace
    from torchada.areas._cpu_fallback import kernel, opset, stats

    if not settings.read("TORCHADA_CPU_FALLBACK"):
        ctx.note("off (TORCHADA_CPU_FALLBACK=0): operators torch_musa lacks raise as it does")
        return
    torch = ctx.torch
    missing, source = opset.missing_ops(torch, _release())
    forced = _forced(ctx)
    record = stats.FallbackStats(ctx.musa_label)
    library = torch.library.Library("aten", "IMPL")
    ctx.on_revert(library._destroy, write=True)
    device_type = torch._C._get_privateuse1_backend_name()
    installed, refused = [], []
    for name in sorted(set(missing) | set(forced)):
        why = ("is run on the CPU by TORCHADA_CPU_FALLBACK_OPS" if name in forced else
               "has no kernel in %s" % ctx.musa_label)

        def make(name=name, why=why):
            return kernel.CpuKernel(torch, _overload(torch, name), record, device_type, why)
        try:
            _kit.kernels.register(library, name.split("::", 1)[1], _kernel_function(name, make))
            installed.append(name)
        except Exception as exc:  # an overload this torch cannot take a Python kernel for
            refused.append("%s (%s)" % (name, type(exc).__name__))
    trace.add_section("cpu_fallback", record.snapshot, record.summary_lines)
    ctx.on_revert(lambda: trace.remove_section("cpu_fallback"))
    ctx.shared["cpu_fallback_ops"] = installed
    ctx.note(lambda: "%d operators run on the CPU if called (%s%s)%s; %d called so far" % (
        len(installed), source, "; forced: %s" % ", ".join(forced) if forced else "",
        "; not installable: %s" % ", ".join(refused) if refused else "",
        len(record.snapshot())))
