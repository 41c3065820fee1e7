def apply_lowering_patch():
    """The real patch replaces torch.ao.quantization.pt2e.lower_pt2e_quantized_to_x86; not simulated."""
    return None
