"""The standalone ``lightning_fabric`` package's Fabric on MUSA (shipped by the
``lightning-fabric`` distribution and inside ``pytorch-lightning``).

Same code as the ``lightning_fabric`` area under the older package name: CUDAAccelerator.
setup_device accepts the musa devices it builds. Its own area because both packages can be
imported in one process, each with its own class.

Trigger: lightning_fabric.accelerators.cuda. torch_musa APIs relied on: torch.musa.set_device.
"""
from torchada.areas import _kit, _lightning


def apply(journal):
    import lightning_fabric.accelerators.cuda as module

    _lightning.patch_setup_device(_kit.context(journal, __name__), module)
