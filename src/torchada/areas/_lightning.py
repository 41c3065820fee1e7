"""What the two Lightning areas share: CUDAAccelerator.setup_device accepting musa devices.

Lightning's CUDA accelerators (lightning.fabric and lightning.pytorch each define one) build
their devices with ``torch.device("cuda", i)`` (a musa device under torchada), then refuse
them: ``if device.type != "cuda": raise``. The replacement keeps every other step of the
original (the matmul precision hint, ``torch.cuda.set_device``) and forwards non-musa devices
to it untouched, so its own error for a CPU device stays."""
from torchada.areas import _kit


def patch_setup_device(ctx, module):
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
