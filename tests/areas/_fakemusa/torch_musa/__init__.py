"""A tiny stand-in for torch_musa (names only, no tensors): unit tests before the simulator."""
import sys

import torch

__version__ = "2.7.1"
torch.utils.rename_privateuse1_backend("musa")
torch.musa = sys.modules[__name__]


def is_available():
    return True


def device_count():
    return 2


def current_device():
    return 0
