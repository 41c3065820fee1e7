"""The standalone ``pytorch_lightning`` distribution's Trainer on MUSA.

Same code as the ``lightning_trainer`` area under the older package name (``import
pytorch_lightning as pl``): CUDAAccelerator.setup_device accepts the musa devices it builds.
Its own area because both packages can be imported in one process, each with its own class.

Trigger: pytorch_lightning.accelerators.cuda. torch_musa APIs relied on: torch.musa.set_device.
"""
from torchada.areas import _kit, _lightning


def apply(journal):
    import pytorch_lightning.accelerators.cuda as module

    _lightning.patch_setup_device(_kit.context(journal, __name__), module)
