"""PyTorch Lightning's Trainer on MUSA: ``Trainer(accelerator="gpu"|"cuda"|"auto")``.

CUDA API made to work: lightning.pytorch.accelerators.cuda.CUDAAccelerator.setup_device,
which stopped every GPU Trainer with "Device should be GPU, got musa:0" (issue 13), with any
precision ("16-mixed" included: autocast("cuda") and the GradScaler come from the amp area).
``get_device_stats`` answers from torch.cuda.memory_stats (torch.musa's). Not changed: the
DDP strategy registers communication hooks only when ``root_device.type == "cuda"``, so
custom DDP comm hooks are not registered on MUSA (docs/integrations.md).

Trigger: lightning.pytorch.accelerators.cuda. torch_musa APIs relied on: torch.musa.set_device.
"""
from torchada.areas import _kit, _lightning


def apply(journal):
    import lightning.pytorch.accelerators.cuda as module

    _lightning.patch_setup_device(_kit.context(journal, __name__), module)
