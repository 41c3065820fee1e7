"""FSDP2 ``fully_shard`` on meshes of every device type while torch_musa is loaded.

CUDA API made to work: ``torch.distributed.fsdp.fully_shard`` on a non-MUSA mesh (a CPU mesh
on gloo, as CPU-only tests and mixed CPU/GPU programs use) runs PyTorch's own FSDP2, as it
does next to CUDA; a musa mesh (``init_device_mesh("cuda")``, or no mesh) keeps torch_musa's.

Why: torch_musa replaces ``torch.distributed.fsdp.fully_shard`` with a wrapper whose first
call, whatever the mesh, swaps its own methods into PyTorch's FSDP2 classes; its
communication context takes no device and sets up MUSA streams (raising without MUSA), so a
CPU mesh meets MUSA streams in its root pre-forward (torch_musa
distributed/_composable/fsdp/patch.py, custom_overlap_patch.py).

What it does: ``fully_shard`` is replaced by a router. A non-MUSA mesh goes straight to
PyTorch's ``fully_shard`` (torch_musa's lazy setup never runs for it). After any call, each
FSDP2 method torch_musa has replaced becomes a dispatcher that runs torch_musa's function for
a musa device and PyTorch's own (kept from before torch_musa's first call) for any other.
Where torch_musa's methods were already in place when torchada activated (``fully_shard``
called before), PyTorch's are gone: the area stands aside and says so in status. Only the
``torch.distributed.fsdp.fully_shard`` attribute is routed: a reference bound before
torchada activated keeps torch_musa's wrapper.

torch_musa APIs relied on: its ``fully_shard`` wrapper (``functools.wraps`` of PyTorch's, so
``__wrapped__`` is PyTorch's) and the method names it replaces.
"""
import functools
import sys

_GROUP = "torch.distributed.fsdp._fully_shard._fsdp_param_group"
_STATE = "torch.distributed.fsdp._fully_shard._fsdp_state"
_FULLY_SHARD = "torch.distributed.fsdp._fully_shard._fully_shard"
MUSA = "musa"


def _context_device(self, device=None, *args, **kwargs):
    # torch_musa's lazy_init is called without a device (by its own _init_shared_state);
    # PyTorch's with the state's device
    return MUSA if device is None else device.type


# (module, class, method, the call's device type): the methods torch_musa 2.7.1 replaces
TARGETS = (
    (_GROUP, "FSDPCommContext", "lazy_init", _context_device),
    (_GROUP, "FSDPParamGroup", "wait_for_unshard", lambda self, *a, **k: self.device.type),
    (_GROUP, "FSDPParamGroup", "post_backward", lambda self, *a, **k: self.device.type),
    (_STATE, "FSDPState", "_init_shared_state", lambda self, *a, **k: self._device.type),
    (_STATE, "FSDPState", "_pre_forward", lambda self, *a, **k: self._device.type),
)


def mesh_device_type(mesh):
    """The device type a mesh shards on; "cuda" is torchada's musa."""
    kind = str(getattr(mesh, "device_type", MUSA))
    return MUSA if kind == "cuda" else kind


def dispatcher(musa_fn, pytorch_fn, device_type):
    """torch_musa's ``musa_fn`` for a musa call, PyTorch's ``pytorch_fn`` otherwise."""
    @functools.wraps(musa_fn)
    def method(self, *args, **kwargs):
        try:
            on_musa = device_type(self, *args, **kwargs) == MUSA
        except Exception:  # an object torch_musa's code expects: its behaviour, unchanged
            on_musa = True
        return (musa_fn if on_musa else pytorch_fn)(self, *args, **kwargs)

    method._torchada_pytorch = pytorch_fn
    return method


def _own(fn, module_name):
    return getattr(fn, "__module__", None) == module_name


def _originals():
    """{(class, method): PyTorch's function}, or the first method torch_musa already owns."""
    found = {}
    for module_name, cls_name, name, device_type in TARGETS:
        cls = getattr(sys.modules.get(module_name), cls_name, None)
        fn = vars(cls).get(name) if isinstance(cls, type) else None
        if fn is None:
            continue  # a torch without this method: torch_musa cannot replace it either
        if not _own(fn, module_name):
            return None, "%s.%s" % (cls_name, name)
        found[(cls, name)] = (fn, device_type)
    return found, None


def install_dispatchers(originals, installed):
    """Wrap each method torch_musa has replaced since; ``installed`` records them."""
    for (cls, name), (pytorch_fn, device_type) in originals.items():
        live = vars(cls).get(name)
        if live is pytorch_fn or live is None or hasattr(live, "_torchada_pytorch"):
            continue
        wrapped = dispatcher(live, pytorch_fn, device_type)
        setattr(cls, name, wrapped)
        installed.append((cls, name, wrapped, live))


def router(musa_fully_shard, pytorch_fully_shard, originals, installed):
    @functools.wraps(musa_fully_shard)
    def fully_shard(*args, **kwargs):
        mesh = kwargs.get("mesh")
        if mesh is not None and mesh_device_type(mesh) != MUSA:
            install_dispatchers(originals, installed)
            return pytorch_fully_shard(*args, **kwargs)
        try:
            return musa_fully_shard(*args, **kwargs)
        finally:  # torch_musa's first call has just replaced the methods
            install_dispatchers(originals, installed)

    fully_shard._torchada_fsdp2_router = True
    return fully_shard


def apply(ctx):
    fsdp = ctx.module if ctx.module is not None else sys.modules.get("torch.distributed.fsdp")
    pytorch_fully_shard = getattr(sys.modules.get(_FULLY_SHARD), "fully_shard", None)
    live = getattr(fsdp, "fully_shard", None)
    if live is None or pytorch_fully_shard is None:
        ctx.note("this torch has no FSDP2 fully_shard: nothing to route")
        return
    if live is pytorch_fully_shard:
        ctx.note("fully_shard is PyTorch's own (this torch_musa does not replace it)")
        return
    if getattr(live, "__wrapped__", None) is not pytorch_fully_shard:
        ctx.note("fully_shard is not torch_musa's wrapper of PyTorch's: left alone")
        return
    originals, taken = _originals()
    if originals is None:
        ctx.note("torch_musa's %s was in place before torchada activated (fully_shard called "
                 "earlier): non-MUSA meshes keep torch_musa's FSDP2; activate torchada "
                 "first" % taken)
        return
    installed = []
    ctx.setattr(fsdp, "fully_shard", router(live, pytorch_fully_shard, originals, installed))

    def restore():  # torch_musa's methods back where dispatchers stand
        for cls, name, wrapped, musa_fn in reversed(installed):
            if vars(cls).get(name) is wrapped:
                setattr(cls, name, musa_fn)
        del installed[:]

    ctx.on_revert(restore)
    ctx.note(lambda: "non-MUSA meshes run PyTorch's FSDP2; %d torch_musa method(s) "
             "dispatched by device" % len(installed))
