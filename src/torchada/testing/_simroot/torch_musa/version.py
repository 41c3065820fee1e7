"""Generated at build time in the real package; here the simulator's version knob decides."""
from torchada.testing._simconfig import config as _config

__version__ = _config().torch_musa_version
git_version = "8b583b3f2fd0d9d3d9e74b9ec588a25d8bed1a30"
