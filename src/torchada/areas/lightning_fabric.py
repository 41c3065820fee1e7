"""Lightning Fabric on MUSA: ``Fabric(accelerator="cuda"|"gpu"|"auto")``.

CUDA API made to work: lightning.fabric.accelerators.cuda.CUDAAccelerator.setup_device, which
refused the musa devices its own ``torch.device("cuda", i)`` gives ("Device should be CUDA,
got musa:0"). Device parsing, ``auto_device_count``, ``is_available`` and the precision
plugins already work through torch.cuda -> torch.musa and the amp area.

Trigger: lightning.fabric.accelerators.cuda. torch_musa APIs relied on: torch.musa.set_device
(through torch.cuda.set_device).
"""
from torchada.areas import _kit, _lightning


def apply(journal):
    import lightning.fabric.accelerators.cuda as module

    _lightning.patch_setup_device(_kit.context(journal, __name__), module)
