__all__ = ["nn"]
from . import nn, register_helper


def __getattr__(name):
    raise AttributeError(f"module 'torch_musa.core.ao' has no attribute '{name}'")
