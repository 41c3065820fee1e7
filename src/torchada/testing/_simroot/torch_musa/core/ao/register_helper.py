def _register_ao_intrinsic_modules():
    """The real helper adds ConvBnSiLU2d & co to torch.ao.nn.intrinsic; not simulated."""
    return None
