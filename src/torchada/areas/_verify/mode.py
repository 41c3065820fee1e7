"""The dispatch mode that reruns each sampled op on CPU copies of its inputs and compares.

Which calls: ops with a device tensor among their arguments, sampled per op (the first N
calls, then every Kth). Not compared, counted as skipped by reason: views and other ops
that compute nothing (``view``: their results alias their inputs; ``no compute``: empty,
copies between devices, ``.item()``, resizes); random ops (``random``: see compare.py); ops
the CPU cannot run (``no CPU kernel``). A call whose device run raises while the CPU
computes is a finding too (``raised``): the program gets the device's own error, with the
finding added as a note.

Verify must never fail the program over itself: anything it does around the op that
raises is counted as skipped (``verify error``) and the device's result returned.
"""
import sys

from torchada.areas._verify import compare, findings as findings_mod, references

# Ops that compute nothing worth comparing (names without the overload).
NO_COMPUTE = frozenset((
    "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty",
    "aten::new_empty_strided", "aten::_to_copy", "aten::copy_", "aten::_copy_from",
    "aten::_copy_from_and_resize", "aten::_local_scalar_dense", "aten::set_",
    "aten::resize_", "aten::resize_as_", "aten::record_stream", "aten::lift_fresh",
    "aten::lift_fresh_copy", "aten::detach", "aten::_has_compatible_shallow_copy_type",
    "aten::is_pinned", "aten::_pin_memory", "aten::equal", "aten::is_nonzero"))


def op_name(func):
    schema = func._schema
    return schema.name + ("." + schema.overload_name if schema.overload_name else "")


def _describe(torch, value):
    if isinstance(value, torch.Tensor):
        return "%s%s" % (str(value.dtype).replace("torch.", ""), list(value.shape))
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return "[%s]" % ", ".join(_describe(torch, v) for v in value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Verifier:
    def __init__(self, torch, device_type, findings, paths, call_site):
        self.torch, self.device_type = torch, device_type
        self.findings, self.paths, self.call_site = findings, paths, call_site
        self._kinds = {}  # func -> None (compare) or the reason it is skipped
        self._plain = (torch.Tensor, torch.nn.Parameter)

    # -- which calls ----------------------------------------------------------------------
    def _kind(self, func):
        kind = self._kinds.get(func, False)
        if kind is False:
            torch, schema = self.torch, func._schema
            if not schema.name.startswith("aten::"):
                kind = "not aten"  # a library's own op: no CPU kernel to hold it to
            elif schema.name in NO_COMPUTE:
                kind = "no compute"
            elif torch.Tag.nondeterministic_seeded in func.tags:
                kind = "random"
            elif schema.returns and all(r.alias_info is not None and not r.alias_info.is_write
                                        for r in schema.returns):
                kind = "view"
            else:
                kind = None
            self._kinds[func] = kind
        return kind

    def _on_device(self, value):
        if isinstance(value, (list, tuple)):
            return any(self._on_device(v) for v in value)
        # plain tensors only: a tracer's fake or functional tensors hold no numbers
        return (type(value) in self._plain and
                getattr(value, "device", None).type == self.device_type)

    def wants(self, func, args, kwargs):
        if not (any(self._on_device(a) for a in args) or
                any(self._on_device(v) for v in kwargs.values())):
            return False
        name = op_name(func)
        kind = self._kind(func)
        if kind is not None:
            self.findings.skip(name, kind)
            return False
        return self.findings.take(name)

    # -- copies ---------------------------------------------------------------------------
    def _cpu(self, value):
        torch = self.torch
        if isinstance(value, torch.Tensor):
            return value.detach().cpu() if self._on_device(value) else value.detach().clone()
        if isinstance(value, (list, tuple)):
            return type(value)(self._cpu(v) for v in value)
        if isinstance(value, torch.device) and value.type == self.device_type:
            return torch.device("cpu")
        return value

    def _pairs(self, func, args, kwargs, out, cpu_args, cpu_kwargs, cpu_out):
        """(label, device value, cpu value) for each result and each written argument."""
        schema = func._schema
        outs = out if len(schema.returns) != 1 else (out,)
        cpu_outs = cpu_out if len(schema.returns) != 1 else (cpu_out,)
        pairs = [("%d" % i, d, c) for i, (d, c) in enumerate(zip(outs, cpu_outs))]
        if any(r.alias_info is not None for r in schema.returns):
            return pairs  # in-place / out= ops return what they wrote
        for i, arg in enumerate(schema.arguments):
            if arg.alias_info is not None and arg.alias_info.is_write:
                if i < len(args):
                    pairs.append((arg.name, args[i], cpu_args[i]))
                elif arg.name in kwargs:
                    pairs.append((arg.name, kwargs[arg.name], cpu_kwargs[arg.name]))
        return pairs

    def _first_difference(self, pairs):
        torch = self.torch
        for label, dev, cpu in pairs:
            if isinstance(dev, (list, tuple)) and isinstance(cpu, (list, tuple)):
                found = self._first_difference(
                    [("%s[%d]" % (label, i), d, c) for i, (d, c) in enumerate(zip(dev, cpu))])
                if found:
                    return found
            elif isinstance(dev, torch.Tensor) and isinstance(cpu, torch.Tensor):
                diff = compare.difference(torch, dev.detach().cpu(), cpu)
                if diff:
                    return label, diff
        return None

    # -- one call -------------------------------------------------------------------------
    def _record(self, func, args, kwargs, **fields):
        torch = self.torch
        record = {"op": op_name(func), "module": self.paths.current(),
                  "site": self.call_site(),
                  "inputs": ["%s=%s" % (a.name, _describe(torch, v))
                             for a, v in zip(func._schema.arguments, args)] +
                            ["%s=%s" % (k, _describe(torch, v)) for k, v in kwargs.items()]}
        record.update(fields)
        return self.findings.mismatch(record)

    def run(self, func, args, kwargs):
        try:
            cpu_args, cpu_kwargs = self._cpu(args), self._cpu(kwargs)
        except Exception as exc:
            self.findings.skip(op_name(func), "verify error: %s" % type(exc).__name__)
            return func(*args, **kwargs)
        try:
            out = func(*args, **kwargs)
        except Exception as exc:
            self._device_raised(func, args, kwargs, cpu_args, cpu_kwargs, exc)
            raise
        try:
            cpu_out = self._on_cpu(func, cpu_args, cpu_kwargs)
        except Exception:
            self.findings.skip(op_name(func), "no CPU kernel")
            return out
        try:
            found = self._first_difference(
                self._pairs(func, args, kwargs, out, cpu_args, cpu_kwargs, cpu_out))
        except Exception as exc:
            self.findings.skip(op_name(func), "verify error: %s" % type(exc).__name__)
            return out
        self.findings.compared(op_name(func))
        if found:
            record = self._record(func, args, kwargs, kind="mismatch", output=found[0],
                                  difference=found[1])
            if self.findings.mode == "first":
                raise findings_mod.VerifyMismatch(findings_mod.message(record))
        return out

    def _on_cpu(self, func, args, kwargs):
        try:
            return func(*args, **kwargs)
        except NotImplementedError:  # no CPU kernel: torch's decomposition or our reference
            other = references.reference(self.torch, op_name(func), func)
            if other is None:
                raise
            return other(*args, **kwargs)

    def _device_raised(self, func, args, kwargs, cpu_args, cpu_kwargs, exc):
        try:
            self._on_cpu(func, cpu_args, cpu_kwargs)
        except Exception:
            return  # the CPU refuses it too: the op's own error, not a device difference
        try:
            record = self._record(func, args, kwargs, kind="raised",
                                  device_error="%s: %s" % (type(exc).__name__,
                                                           str(exc).splitlines()[0][:200]))
            text = findings_mod.message(record)
            if hasattr(exc, "add_note"):
                exc.add_note(text)
            else:
                sys.stderr.write(text + "\n")
        except Exception:
            pass


def dispatch_mode(torch, verifier):
    from torch.utils._python_dispatch import TorchDispatchMode

    class VerifyMode(TorchDispatchMode):
        """torchada verify: each sampled op also run on the CPU and compared."""

        @classmethod
        def ignore_compile_internals(cls):
            # torch.compile (2.13+) compiles as if no mode were on, instead of refusing a
            # fullgraph; the compiled graph's ops that run eagerly (eager / aot_eager
            # backends) still come here, fused kernels are opaque to the check
            return True

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            try:
                wanted = verifier.wants(func, args, kwargs)
            except Exception:
                wanted = False
            if not wanted:
                return func(*args, **kwargs)
            return verifier.run(func, args, kwargs)

    return VerifyMode()
