"""Bundled example programs (plain CUDA PyTorch code, run with `torchada run --example NAME`)."""
