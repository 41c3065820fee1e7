"""``torch.cuda.comm`` with ``out=`` (and so every form ``nn.DataParallel`` can reach).

torch_musa's patched torch makes ``torch.nn.parallel.comm`` (which ``torch.cuda.comm``
re-exports) call ``torch.musa._MUSAC._broadcast`` / ``_broadcast_coalesced`` / ``_scatter`` /
``_gather``, which torch_musa binds, so ``nn.DataParallel``, ``broadcast``,
``broadcast_coalesced``, ``scatter``, ``gather``, ``reduce_add`` and
``reduce_add_coalesced`` already work on MUSA. The ``out=`` forms call ``_broadcast_out`` /
``_scatter_out`` / ``_gather_out``, which torch_musa 2.7.1 does not bind (its
csrc/core/PythonComm.cpp has only the four above), so they raise AttributeError.

CUDA APIs made to work: ``torch.cuda.comm.broadcast(tensor, out=[...])``,
``scatter(tensor, out=[...], dim=, streams=)``, ``gather(tensors, out=tensor, dim=)``, with
torch's own rules (torch/csrc/cuda/comm.cpp): every output must be a device tensor of the
right shape; scatter takes chunk sizes from the outputs; copies run under the given streams.
Each binding is added only where torch_musa lacks it.

torch_musa APIs relied on: torch.musa._MUSAC (the module the patched comm.py calls),
torch.musa.stream.
"""
from torchada.areas import _kit

OUT_BINDINGS = ("_broadcast_out", "_scatter_out", "_gather_out")


def _check_outputs(outs):
    for i, out in enumerate(outs):
        if out.device.type != "musa":
            raise RuntimeError("Expected all output tensors to be CUDA (MUSA) tensors, but output "
                               "tensor at index %d has device '%s'" % (i, out.device))


def _broadcast_out(tensor, out):
    out = list(out)
    _check_outputs(out)
    for i, target in enumerate(out):
        if target.size() != tensor.size():
            raise RuntimeError("Expected all output tensors to have same shape as the source "
                               "tensor %s, but output tensor at index %d has shape %s"
                               % (list(tensor.size()), i, list(target.size())))
    for target in out:
        target.copy_(tensor, non_blocking=True)
    return out


def _scatter_out(torch):
    def _scatter_out(tensor, out, dim, streams):
        out = list(out)
        if not out:
            raise RuntimeError("Expected at least one output tensor to scatter to")
        _check_outputs(out)
        dim = dim + tensor.dim() if dim < 0 else dim
        sizes = []
        for i, target in enumerate(out):
            shape = list(target.size())
            same_ndim = len(shape) == tensor.dim()
            if same_ndim:
                sizes.append(shape[dim])
                shape[dim] = tensor.size(dim)
            if not same_ndim or shape != list(tensor.size()):
                raise RuntimeError(
                    "Output tensor at index %d has incorrect shape: %s. Expected same shape "
                    "except for scatter dim %d as the source tensor: %s"
                    % (i, list(target.size()), dim, list(tensor.size())))
        if sum(sizes) != tensor.size(dim):
            raise RuntimeError(
                "Total size for output tensors along scatter dim %d does not match the source "
                "tensor size at dim %d. Expected %d, but got total size %d"
                % (dim, dim, tensor.size(dim), sum(sizes)))
        streams = list(streams) if streams is not None else []
        for i, (target, chunk) in enumerate(zip(out, tensor.split_with_sizes(sizes, dim))):
            stream = streams[i] if i < len(streams) else None
            if stream is None:
                target.copy_(chunk, non_blocking=True)
                continue
            if stream.device_index != target.get_device():
                raise RuntimeError(
                    "Expected the device associated with the stream at index %d (was %d) to "
                    "match the device of the output tensor at that index (expected %d)"
                    % (i, stream.device_index, target.get_device()))
            with torch.musa.stream(stream):
                target.copy_(chunk, non_blocking=True)
        return out

    return _scatter_out


def _gather_out(tensors, out, dim):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    first = tensors[0]
    dim = dim + first.dim() if dim < 0 else dim
    expected = list(first.size())
    total = 0
    for i, tensor in enumerate(tensors):
        if tensor.device.type != "musa":
            raise RuntimeError("Expected all input tensors to be CUDA (MUSA) tensors, but tensor "
                               "at index %d has device '%s'" % (i, tensor.device))
        if tensor.dim() != len(expected):
            raise RuntimeError("Expected all input tensors to have the same number of dimensions, "
                               "but tensor at index %d has %d dimensions, (expected %d)"
                               % (i, tensor.dim(), len(expected)))
        expected[dim] = tensor.size(dim)
        if list(tensor.size()) != expected:
            raise RuntimeError("Input tensor at index %d has invalid shape %s, but expected %s"
                               % (i, list(tensor.size()), expected))
        total += tensor.size(dim)
    expected[dim] = total
    if list(out.size()) != expected:
        raise RuntimeError("Expected out tensor to have shape %s, but got %s"
                           % (expected, list(out.size())))
    for part, tensor in zip(out.split_with_sizes([t.size(dim) for t in tensors], dim), tensors):
        part.copy_(tensor, non_blocking=out.device.type != "cpu")
    return out


def apply(ctx):
    musac = ctx.lookup("_MUSAC")
    builders = {"_broadcast_out": _broadcast_out, "_scatter_out": _scatter_out(ctx.torch),
                "_gather_out": _gather_out}
    added = []
    for name in OUT_BINDINGS:
        if not hasattr(musac, name):
            ctx.setattr(musac, name, builders[name])
            added.append(name)
    ctx.note("added %s" % ", ".join(added) if added else "%s binds every comm function"
             % ctx.musa_label)
