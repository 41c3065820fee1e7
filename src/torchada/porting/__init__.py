"""CUDA -> MUSA source porter."""
