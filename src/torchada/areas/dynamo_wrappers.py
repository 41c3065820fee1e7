"""Dynamo: compiled code sees what eager code sees under torchada.

CUDA APIs made to work under ``torch.compile`` (``fullgraph=True`` included), each answering
exactly as in eager code on a MUSA machine:

* ``torch.zeros(..., device="cuda")`` and the other factories. Dynamo recognises torch's
  factories by their Python type (C builtins) or, for Python wrappers, by name; the devices
  area's C prefilter (areas/_fastpath) is neither, so Dynamo took it for a user object
  ("Unsupported method call") and broke the graph. Each prefilter installed on ``torch`` is
  registered the way ``torch._dynamo.allow_in_graph`` registers a callable (its id in
  Dynamo's allowed set): it stays in the graph as one call, exactly as the factory it wraps,
  and translates the device when the graph runs. Nothing to do on the Python route.
* ``x.is_cuda`` (unit ``is_cuda``). Eager code answers True for a musa tensor (devices area);
  Dynamo answers tensor attributes from its own table (``TensorVariable.method_attr_is_cuda``:
  ``device.type == "cuda"``), so the compiled branch differed from the eager one. The unit
  answers as the eager property does; the tensor's device is part of Dynamo's guard on every
  tensor input, so a graph compiled for a musa tensor is never reused for a CPU one.
* ``x.type()`` (unit ``type_names``). Eager code answers "torch.cuda.FloatTensor" for a musa
  tensor (legacy_types area); Dynamo builds the name from the device type
  (``TensorVariable.method_type``: "torch.musa.FloatTensor"). The unit rewrites the constant
  it returns the way the legacy_types area rewrites the eager answer.

* ``torch.cuda.get_device_properties()`` (unit ``device_properties``). Dynamo folds the call to
  a constant, and accepts as constants the types it lists (``torch._dynamo.utils.
  common_constant_types``: CUDA's ``_CudaDeviceProperties``, not torch_musa's
  ``_MusaDeviceProperties``), so the folded value was refused. The unit lists torch_musa's
  type beside CUDA's.

``Tensor.to`` is traced as the tensor's own method because the devices area names its
replacement ``to`` (areas/_devices/methods.py). The platform checks (``torch.cuda.is_available``,
``get_device_capability``, ``torch.version``, ``torchada.detect_platform``, ``is_gpu_device``)
need nothing here: Dynamo constant-folds or inlines them (tests/compile/matrix).

torch_musa APIs relied on: the privateuse1 backend name ("musa"),
``torch.musa._MusaDeviceProperties`` (torch_musa/core/device.py, from ``_MUSAC``).
"""
import inspect

from torchada.areas import _kit

CUDA_TYPE = "torch.cuda."


def prefilters(torch):
    """The devices area's C prefilters installed on ``torch`` (none on the Python route)."""
    from torchada.areas._devices.factories import factory_wrappers

    return [fn for fn in factory_wrappers(torch)
            if getattr(fn, "__torchada_slow__", None) is not None]


def apply(ctx):
    found = prefilters(ctx.torch)
    if not found:
        ctx.note("nothing registered: the devices area uses the Python route")
        return
    from torch._dynamo import trace_rules

    allowed = trace_rules._allowed_callable_ids
    for fn in found:
        if id(fn) not in allowed:
            allowed.add(id(fn))
            ctx.on_revert(lambda i=id(fn): allowed.remove(i), write=True)
    ctx.note("%d factory prefilters traced as torch functions" % len(found))


def _align_handler(ctx, method, build):
    """Replace Dynamo's ``TensorVariable.<method>`` (its tracing of one tensor attribute) by
    ``build(original, musa_type)``; a note where this Dynamo has no such handler (it answers
    the attribute elsewhere: nothing to align)."""
    from torch._dynamo.variables import tensor

    cls = tensor.TensorVariable
    original = getattr(cls, method, None)
    if not callable(original):
        ctx.note("Dynamo has no TensorVariable.%s: left as torch traces it" % method)
        return
    musa_type = ctx.torch._C._get_privateuse1_backend_name()
    ctx.setattr(cls, method, _kit.wraps(original)(build(original, musa_type)))


def _constant(value):
    from torch._dynamo.variables import ConstantVariable

    return ConstantVariable.create(value)


def _musa_device(variable, musa_type):
    device = getattr(variable, "device", None)
    return device is not None and getattr(device, "type", None) == musa_type


@_kit.fix("is_cuda")
def is_cuda(ctx):
    def build(original, musa_type):
        def method_attr_is_cuda(self, tx):
            if _musa_device(self, musa_type):
                return _constant(True)  # the eager property's answer for a musa tensor
            return original(self, tx)

        return method_attr_is_cuda

    _align_handler(ctx, "method_attr_is_cuda", build)


@_kit.fix("type_names")
def type_names(ctx):
    def build(original, musa_type):
        prefix = "torch.%s." % musa_type
        # torch 2.7's handler takes (self, dtype, ...), later ones (self, tx, dtype, ...)
        signature = inspect.signature(original)

        def method_type(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            if not _musa_device(self, musa_type):
                return result
            try:
                asked = signature.bind(self, *args, **kwargs).arguments.get("dtype")
                name = result.as_python_constant() if asked is None else None
            except Exception:  # not a constant: a traced conversion, nothing to rename
                return result
            if name.__class__ is str and name.startswith(prefix):
                return _constant(CUDA_TYPE + name[len(prefix):])
            return result

        return method_type

    _align_handler(ctx, "method_type", build)


@_kit.fix("device_properties")
def device_properties(ctx):
    from torch._dynamo import utils

    kind = getattr(ctx.musa, "_MusaDeviceProperties", None)
    constants = getattr(utils, "common_constant_types", None)
    if kind is None or not isinstance(constants, set):
        ctx.note("device_properties: nothing to list (no torch.musa._MusaDeviceProperties "
                 "or no Dynamo constant-type set)")
        return
    if kind not in constants:
        constants.add(kind)
        ctx.on_revert(lambda: constants.discard(kind), write=True)
