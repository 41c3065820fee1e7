"""Operators torch_musa has no kernel for run on the CPU, as PyTorch's MPS and XPU
fallbacks do.

CUDA APIs made to work: any torch operator on a "cuda" tensor whose aten overload has a CPU
kernel, no composite one, and no PrivateUse1 kernel in the running torch_musa (its operator
table, else the dispatcher's own registrations: ``_cpu_fallback/opset.py``). Each such
overload gets a PrivateUse1 kernel that runs it on CPU copies and puts the results back
(``_cpu_fallback/kernel.py``); operators with a kernel are not touched, so they pay nothing.
The sparse keys likewise: an aten overload with a SparseCPU / SparseCsrCPU kernel that
torch_musa has no SparsePrivateUse1 / SparseCsrPrivateUse1 kernel for gets one that runs it on
CPU copies of the sparse tensors (field accessors run ATen's own accessor on the device
tensor: ``kernel.FieldKernel``).
One warning per operator; calls and time per operator in the translation report.
TORCHADA_CPU_FALLBACK=0 installs nothing (the operators raise as torch_musa does);
TORCHADA_CPU_FALLBACK_OPS adds operators whose torch_musa kernel is to be bypassed.

torch_musa APIs relied on: torch_musa.__version__ (which table); its PrivateUse1 kernels for
empty / copy_ / resize_ / as_strided / random_ (the copies, views and seeds); for sparse
tensors its SparsePrivateUse1 _sparse_coo_tensor_with_dims_and_tensors / _indices / _values /
is_coalesced / _coalesced_ and SparseCsrPrivateUse1 crow_indices / col_indices / values / _nnz
(the copies; 2.7.1 registers them all: musa_functions.yaml:4142-4219).
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


def _sparse_kernel_maker(torch, record, name, cpu_key, why):
    from torchada.areas._cpu_fallback import kernel

    if name in kernel.FIELD_READERS:  # reads the tensor's fields: no copy
        return lambda: kernel.FieldKernel(torch, _overload(torch, name), record, cpu_key, why)
    return lambda: kernel.CpuKernel(torch, _overload(torch, name), record,
                                    torch._C._get_privateuse1_backend_name(), why)


def _register_sparse(ctx, library, record, release):
    """Kernels for the overloads torch_musa lacks for each sparse key; (installed, refused,
    where the answers come from)."""
    from torchada.areas._cpu_fallback import opset

    torch = ctx.torch
    installed, refused, sources = [], [], []
    for key, cpu_key in opset.SPARSE_KEYS.items():
        missing, source = opset.missing_ops(torch, release, key)
        sources.append(source)
        why = "has no %s kernel in %s" % (key, ctx.musa_label)
        pairs = [(name.split("::", 1)[1], _kernel_function(
            name, _sparse_kernel_maker(torch, record, name, cpu_key, why))) for name in missing]
        failed = _kit.kernels.register_all(library, pairs, key)
        refused += ["%s, %s" % (f, key) for f in failed]
        failed_names = {f.split(" ", 1)[0] for f in failed}
        installed += ["%s (%s)" % (name, key) for name in missing
                      if name.split("::", 1)[1] not in failed_names]
    return installed, refused, sources


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
    sparse, sparse_refused, sparse_sources = _register_sparse(ctx, library, record, _release())
    refused += sparse_refused
    trace.add_section("cpu_fallback", record.snapshot, record.summary_lines)
    ctx.on_revert(lambda: trace.remove_section("cpu_fallback"))
    ctx.shared["cpu_fallback_ops"] = installed + sparse
    ctx.note(lambda: "%d operators run on the CPU if called (%s%s), %d sparse ones (%s)%s; "
             "%d called so far" % (
                 len(installed), source, "; forced: %s" % ", ".join(forced) if forced else "",
                 len(sparse), "; ".join(sorted(set(sparse_sources))),
                 "; not installable: %s" % ", ".join(refused) if refused else "",
                 len(record.snapshot())))
