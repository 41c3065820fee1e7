"""``torch_musa._MUSAC._broadcast`` / ``_broadcast_coalesced`` / ``_scatter`` / ``_gather``.

Source: torch_musa/csrc/core/PythonComm.cpp:14-67 binds the four (only when built with
USE_MCCL, Module.cpp:1442-1444; a release with the mccl backend is) to functions of
``torch/csrc/musa/comm.cpp``, which torch_musa's build generates by porting torch's
``torch/csrc/cuda/comm.cpp`` (torch_musa/csrc/CMakeLists.txt:52, tools/cuda_porting). The
functions below follow that CUDA file (torch 2.7) with the device type MUSA:

* broadcast: a device equal to the tensor's own gets the tensor itself (no copy), every
  other device a fresh copy; a CPU tensor is copied to every device.
* broadcast_coalesced: every tensor must be on devices[0]; device 0's list is the input
  tensors themselves; the rest are flattened per bucket (``buffer_size`` bytes, one dtype
  per bucket), broadcast, unflattened, and come back detached (comm.cpp's
  ``make_variable(var.tensor_data(), false)``; here ``detach()``, which shares the version
  counter where tensor_data() starts a new one), in the input order.
* scatter: ``chunk`` (or ``split_with_sizes``) along ``dim``; a chunk already on its device
  is returned as the view it is; others are copied under the given stream (which must
  belong to that device). Fewer chunks than devices is allowed (``chunk`` may return fewer).
* gather: every input must be a MUSA tensor of matching shape but for ``dim``; the result is
  on ``destination_index`` (-1: CPU, None: the current device).

torch_musa does not bind ``_broadcast_out``, ``_scatter_out`` or ``_gather_out`` although
its patched comm.py calls them (PythonComm.cpp has no such binding), so ``out=`` raises
AttributeError on torch_musa 2.7.1; the simulator keeps that. Error texts are comm.cpp's
with "MUSA" for "CUDA" (the ported wording itself is unknown).
"""
import torch
from torch._utils import (_flatten_dense_tensors, _flatten_sparse_tensors, _reorder_tensors_as,
                          _take_tensors, _unflatten_dense_tensors, _unflatten_sparse_tensors)


def _musa(index):
    return torch.device("musa", index)


def _broadcast(tensor, devices):
    devices = [int(d) for d in devices]
    source = tensor.get_device()
    for device in devices:
        if device < 0:
            raise RuntimeError("Expected non-negative device index, but got %d" % device)
    return [tensor if device == source else _copy_to(tensor, device) for device in devices]


def _copy_to(tensor, device):
    out = torch.empty(tensor.size(), dtype=tensor.dtype, device=_musa(device))
    out.copy_(tensor, non_blocking=True)
    return out


def _broadcast_coalesced(tensors, devices, buffer_size):
    tensors, devices = list(tensors), [int(d) for d in devices]
    if not all(t.get_device() == devices[0] for t in tensors):
        raise RuntimeError("All tensors must be on devices[0]: %d" % devices[0])
    outputs = [list(tensors)] + [[] for _ in devices[1:]]
    for chunk in _take_tensors(tensors, buffer_size):
        if chunk[0].is_sparse:
            indices, values = _flatten_sparse_tensors(chunk)
            per_device = zip(_broadcast(indices, devices), _broadcast(values, devices))
            for i, (inds, vals) in enumerate(per_device):
                if i:
                    outputs[i].extend(t.detach() for t in _unflatten_sparse_tensors((inds, vals), chunk))
        else:
            flat = _broadcast(_flatten_dense_tensors(chunk), devices)
            for i in range(1, len(devices)):
                with torch.musa.device(devices[i]):
                    outputs[i].extend(t.detach() for t in _unflatten_dense_tensors(flat[i], chunk))
    return [outputs[0]] + [_reorder_tensors_as(o, tensors) for o in outputs[1:]]


def _stream_list(streams):
    """StreamUtils.cpp:11-43: a sequence of torch.musa.Stream or None. Any other object is
    dropped from the list without an error: the source builds the runtime_error for it but
    never throws it (StreamUtils.cpp:37-39), so later streams move up one place."""
    if streams is None:
        return None
    if not hasattr(streams, "__len__") and not hasattr(streams, "__iter__"):
        raise RuntimeError("Expected a sequence in THPUtils_PySequence_to_MUSAStreamList")
    stream_class = torch.musa._MUSAC._MusaStreamBase  # THMPStreamClass
    return [s for s in streams if s is None or isinstance(s, stream_class)]


def _scatter(tensor, devices, chunk_sizes, dim, streams):
    devices = [int(d) for d in devices]
    streams = _stream_list(streams)
    if not devices:
        raise RuntimeError("Expected at least one device to scatter to")
    if chunk_sizes is not None and len(chunk_sizes) != len(devices):
        raise RuntimeError("Expected devices and chunk_sizes to be of same length, but got "
                           "len(devices) = %d and len(chunk_sizes) = %d"
                           % (len(devices), len(chunk_sizes)))
    chunks = (list(tensor.split_with_sizes(list(chunk_sizes), dim)) if chunk_sizes is not None
              else list(tensor.chunk(len(devices), dim)))
    source = tensor.get_device()
    for i, chunk in enumerate(chunks):
        if devices[i] == source:
            continue
        stream = streams[i] if streams is not None and i < len(streams) else None
        if stream is not None:
            if stream.device_index != devices[i]:
                raise RuntimeError(
                    "Expected the device associated with the stream at index %d (was %d) to "
                    "match the device supplied at that index (expected %d)"
                    % (i, stream.device_index, devices[i]))
            with torch.musa.stream(stream):
                chunks[i] = chunk.to(_musa(devices[i]), non_blocking=True)
        else:
            # not detached: callers need the autograd history (comm.cpp's note)
            chunks[i] = chunk.to(_musa(devices[i]), non_blocking=True)
    return chunks


def _gather(tensors, dim, destination_index):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    first = tensors[0]
    dim = dim + first.dim() if dim < 0 else dim
    expected = list(first.size())
    total = 0
    for i, tensor in enumerate(tensors):
        if tensor.device.type != "musa":
            raise RuntimeError("Expected all input tensors to be MUSA tensors, but tensor at "
                               "index %d has device '%s'" % (i, tensor.device))
        if tensor.dim() != len(expected):
            raise RuntimeError("Expected all input tensors to have the same number of "
                               "dimensions, but tensor at index %dhas %d dimensions, (expected "
                               "%d)" % (i, tensor.dim(), len(expected)))
        expected[dim] = tensor.size(dim)
        if list(tensor.size()) != expected:
            raise RuntimeError("Input tensor at index %d has invalid shape %s, but expected %s"
                               % (i, list(tensor.size()), expected))
        total += tensor.size(dim)
    expected[dim] = total
    if destination_index == -1:
        device = torch.device("cpu")
    else:
        device = torch.device("musa", destination_index if destination_index is not None
                              else torch.musa.current_device())
    result = torch.empty(expected, dtype=first.dtype, device=device)
    parts = result.split_with_sizes([t.size(dim) for t in tensors], dim)
    for part, tensor in zip(parts, tensors):
        part.copy_(tensor, non_blocking=device.type == "musa")
    return result
