"""torchada.utils: helpers mirroring torch.utils (cheap to import; no torch)."""
