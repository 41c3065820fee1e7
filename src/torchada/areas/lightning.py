"""Lightning on MUSA: ``Fabric(accelerator="cuda"|"gpu"|"auto")`` and
``Trainer(accelerator="gpu"|"cuda"|"auto")``, with any precision.

CUDA API made to work: ``CUDAAccelerator.setup_device`` of Lightning's CUDA accelerators
(Fabric's and the Trainer's, in the ``lightning`` package and in the standalone
``lightning_fabric`` / ``pytorch_lightning`` ones: each its own class, so the area applies
to each module that defines one, ``ctx.module``). They build their devices with
``torch.device("cuda", i)`` (a musa device under torchada), then refused them ("Device should
be CUDA, got musa:0" / "Device should be GPU, got musa:0", issue 13). The replacement keeps
every other step of the original (the matmul precision hint, ``torch.cuda.set_device``) and
forwards non-musa devices to it untouched, so its own error for a CPU device stays. Device
parsing, ``auto_device_count``, ``is_available``, ``get_device_stats`` and the precision
plugins already work through torch.cuda -> torch.musa and the amp area. Not changed: the
DDP strategy registers communication hooks only when ``root_device.type == "cuda"``, so
custom DDP comm hooks are not registered on MUSA (docs/integrations.md).

torch_musa APIs relied on: torch.musa.set_device (through torch.cuda.set_device).
"""
from torchada.areas import _kit


def apply(ctx):
    module = ctx.module
    cls = getattr(module, "CUDAAccelerator", None)
    original = getattr(cls, "setup_device", None)
    if original is None:
        ctx.note("nothing patched: %s has no CUDAAccelerator.setup_device" % module.__name__)
        return
    torch = ctx.torch
    check_precision = getattr(module, "_check_cuda_matmul_precision", None)

    @_kit.wraps(original)
    def setup_device(self, device):
        if getattr(device, "type", None) != "musa":
            return original(self, device)
        if check_precision is not None:
            check_precision(device)
        torch.cuda.set_device(device)

    ctx.setattr(cls, "setup_device", setup_device)
    ctx.note("CUDAAccelerator.setup_device takes musa devices")
