"""One operator run on CPU copies of its device arguments, its results back on the device.

Kept contracts: arguments the schema marks written (in-place ops, ``out=``) get the CPU
result copied back into the very device tensors (resized as the CPU kernel resized them)
and are what the op returns; a result the schema marks as a view of an argument is that
device argument seen through the CPU view's sizes, strides and offset; autograd is
untouched (this kernel sits at PrivateUse1, below autograd, so the op's own derivative
formula runs, its backward ops dispatched like any other). Random draws come from the
device's generator: a seed drawn from it (advancing it, so ``manual_seed`` on the device
reproduces a run) seeds the CPU generator the kernel uses; the CPU's own generator is left
as it was.

Sparse tensors (the kernel also serves SparsePrivateUse1 / SparseCsrPrivateUse1) are copied
with their indices and values (``Tensor.cpu()`` / ``.to(device)``, which rebuild them from
their members); one written in place gets the CPU result through ATen's sparse copy kernels,
which only move its members (``_copy_back_sparse``). A sparse result is never a view of a
device argument: it comes back as a copy. ``FieldKernel`` serves the accessors that read a
sparse tensor's own fields.

The op's own errors (shapes, dtypes) come from the CPU kernel and are raised as they are;
a failure of the copying itself raises NotImplementedError naming the op, which is what
torch_musa raises for it without the fallback.
"""
import time

_WRITE, _VIEW, _NEW = "write", "view", "new"


class CpuKernel:
    def __init__(self, torch, op, stats, device_type, why):
        self.torch, self.op, self.stats, self.device_type = torch, op, stats, device_type
        self.why = why  # the warning's words: why this op runs on the CPU
        schema = op._schema
        self.name = "aten::%s%s" % (schema.name.split("::")[-1],
                                     "." + schema.overload_name if schema.overload_name else "")
        self.arguments = schema.arguments
        self.writes = [i for i, a in enumerate(schema.arguments)
                       if a.alias_info is not None and a.alias_info.is_write]
        self.returns = [self._return_kind(r) for r in schema.returns]
        self.views = {j for kind, j in self.returns if kind == _VIEW}
        self.generators = [i for i, a in enumerate(schema.arguments)
                           if "Generator" in str(a.type)]
        self.seeded = torch.Tag.nondeterministic_seeded in op.tags
        # Tensor arguments: a wrapped number (``fn(x, 2)`` through a composite) reaches a
        # Python kernel as a Python number, which the op's schema refuses
        self.tensor_args = {i for i, a in enumerate(schema.arguments)
                            if str(a.type) in ("Tensor", "Tensor?")}

    def _return_kind(self, ret):
        info = ret.alias_info
        if info is None:
            return _NEW, None
        for j, arg in enumerate(self.arguments):
            if arg.alias_info is not None and arg.alias_info.before_set & info.before_set:
                return (_WRITE if arg.alias_info.is_write else _VIEW), j
        return _NEW, None

    # -- arguments ------------------------------------------------------------------------
    def _values(self, args, kwargs):
        missing = object()
        values = list(args) + [missing] * (len(self.arguments) - len(args))
        for i, arg in enumerate(self.arguments[len(args):], len(args)):
            values[i] = kwargs.get(arg.name, missing)
        return values, missing

    def _device(self, values):
        for value in values:
            for item in value if isinstance(value, (list, tuple)) else (value,):
                device = getattr(item, "device", None)
                if getattr(device, "type", None) == self.device_type:
                    return device
        torch = self.torch
        return torch.device(self.device_type, getattr(torch, self.device_type).current_device())

    def _on_device(self, value):
        return getattr(getattr(value, "device", None), "type", None) == self.device_type

    def _to_cpu(self, value, keep_storage=False):
        torch = self.torch
        if isinstance(value, torch.Tensor):
            if not self._on_device(value):
                return value
            if keep_storage and value.layout == torch.strided:
                # a view result must be found in the argument's own storage
                storage = value.untyped_storage().cpu()
                return torch.empty(0, dtype=value.dtype).set_(
                    storage, value.storage_offset(), value.size(), value.stride())
            return value.cpu()
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            return type(value)(self._to_cpu(v) for v in value)
        if isinstance(value, torch.device) and value.type == self.device_type:
            return torch.device("cpu")
        return value

    def _cpu_generator(self, generator, device):
        """A CPU generator seeded from the device's (``generator`` or its default)."""
        torch = self.torch
        seed = torch.empty((), dtype=torch.int64, device=device).random_(generator=generator)
        return torch.Generator().manual_seed(int(seed.item()))

    # -- results --------------------------------------------------------------------------
    def _copy_back(self, original, cpu):
        torch = self.torch
        if isinstance(original, torch.Tensor) and original.layout != torch.strided:
            _copy_back_sparse(torch, original, cpu)
        elif isinstance(original, torch.Tensor):
            if original.shape != cpu.shape:
                original.resize_(cpu.shape)
            original.copy_(cpu)
        elif isinstance(original, (list, tuple)):
            for o, c in zip(original, cpu):
                if o is not None:
                    self._copy_back(o, c)

    def _result(self, kind, j, value, values, cpu, device):
        torch = self.torch
        if kind == _WRITE:
            return values[j]
        if kind == _VIEW and isinstance(value, torch.Tensor) and value.layout == torch.strided:
            base = values[j]
            if (value.dtype == base.dtype and value.untyped_storage().data_ptr()
                    == cpu[j].untyped_storage().data_ptr()):
                return base.as_strided(value.size(), value.stride(), value.storage_offset())
        if isinstance(value, torch.Tensor):
            return value.to(device)
        if isinstance(value, (list, tuple)):
            return type(value)(v.to(device) if isinstance(v, torch.Tensor) else v for v in value)
        return value

    # -- the kernel -----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        torch = self.torch
        try:
            values, missing = self._values(args, kwargs)
            device = self._device(values)
            cpu = [v if v is missing else self._to_cpu(v, i in self.views)
                   for i, v in enumerate(values)]
            for i in self.tensor_args:
                if isinstance(cpu[i], (bool, int, float, complex)):
                    cpu[i] = torch.tensor(cpu[i])
            for i in self.generators:  # left out or None: the device's default one
                given = None if values[i] is missing else values[i]
                if given is not None or self.seeded:
                    cpu[i] = self._cpu_generator(given, device)
            call_args = [v for v, a in zip(cpu, self.arguments)
                         if not a.kwarg_only and v is not missing]
            call_kwargs = {a.name: v for v, a in zip(cpu, self.arguments)
                           if a.kwarg_only and v is not missing}
        except Exception as exc:
            raise self._failed(exc) from exc
        out = self._run(call_args, call_kwargs, device)   # the op's own errors, as they are
        try:
            for i in self.writes:
                if values[i] is not missing and values[i] is not None:
                    self._copy_back(values[i], cpu[i])
            many = len(self.returns) != 1
            outs = out if many else (out,)
            results = tuple(self._result(kind, j, value, values, cpu, device)
                            for (kind, j), value in zip(self.returns, outs))
        except Exception as exc:
            raise self._failed(exc) from exc
        self.stats.hit(self.name, time.perf_counter() - started, self.why)
        if not self.returns:
            return None
        return results if many else results[0]

    def _run(self, args, kwargs, device):
        torch = self.torch
        if not self.seeded or self.generators:
            return self.op(*args, **kwargs)
        # seeded, no generator argument: the CPU kernel draws from the CPU's default
        # generator, seeded from the device's for this call and restored after
        seed = self._cpu_generator(None, device).initial_seed()
        state = torch.default_generator.get_state()
        torch.default_generator.manual_seed(seed)
        try:
            return self.op(*args, **kwargs)
        finally:
            torch.default_generator.set_state(state)

    def _failed(self, exc):
        return NotImplementedError(
            "%s has no kernel in torch_musa and torchada's CPU fallback could not run it "
            "(%s: %s); set TORCHADA_CPU_FALLBACK=0 to see torch_musa's own error"
            % (self.name, type(exc).__name__, exc))


def _keyset(torch, key):
    return torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, key))


def _copy_back_sparse(torch, original, cpu):
    """The CPU result into the device sparse tensor ``original``, in place. Its own ``copy_``
    is no way in: it is one of the ops the fallback serves (the call would come back here).
    ATen's sparse copy kernels only read the source's members and set the destination's
    (SparseTensor.cpp ``copy_sparse_``, SparseCsrTensor.cpp ``copy_sparse_compressed_``), so
    they are run on the device tensor under the CPU's sparse key."""
    src = cpu.to(original.device)
    if original.layout == torch.sparse_coo:
        torch.ops.aten.copy_sparse_to_sparse_.default.redispatch(
            _keyset(torch, "SparseCPU"), original, src, False)
        return
    csr = _keyset(torch, "SparseCsrCPU")
    if original._nnz() != src._nnz() or original.shape != src.shape:
        # copy_sparse_compressed_ needs equal sizes and nnz: resize the members first
        torch.ops.aten.resize_as_sparse_.default.redispatch(csr, original, src)
    torch.ops.aten.copy_.default.redispatch(csr, original, src, False)


# Overloads whose ATen sparse kernel reads or sets the tensor's own fields and moves no data
# (aten/src/ATen/native/sparse/SparseTensor.cpp: sparse_dim_sparse, dense_dim_sparse,
# _indices_sparse, ...; SparseCsrTensor.cpp: the compressed accessors). torch_musa registers
# these same ATen kernels for the rows it has (2.7.1: musa_functions.yaml:4172-4219).
FIELD_READERS = frozenset(
    "aten::" + n for n in ("_indices", "_values", "indices", "values", "crow_indices",
                           "col_indices", "ccol_indices", "row_indices", "_nnz", "sparse_dim",
                           "dense_dim", "_dimI", "_dimV", "is_coalesced", "_coalesced_"))
FIELD_READ = ("ATen's accessor ran on the device tensor itself (it reads the tensor's fields: "
              "no copy)")


class FieldKernel:
    """A field accessor torch_musa lacks for a sparse key: the CPU sparse key's kernel run on
    the device tensor (``redispatch``). A copy would not do: ``ccol_indices()`` must be a view
    of the tensor's own member, and copying a CSC tensor needs that accessor."""

    def __init__(self, torch, op, stats, cpu_key, why):
        self.op, self.stats, self.why = op, stats, why
        self.keyset = _keyset(torch, cpu_key)
        schema = op._schema
        self.name = "aten::%s%s" % (schema.name.split("::")[-1],
                                     "." + schema.overload_name if schema.overload_name else "")

    def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        out = self.op.redispatch(self.keyset, *args, **kwargs)
        self.stats.hit(self.name, time.perf_counter() - started, self.why, FIELD_READ)
        return out
