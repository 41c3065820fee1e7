"""Quantized fused conv modules of the real package are not simulated."""
