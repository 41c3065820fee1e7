"""Simulator-only helpers (no counterpart in the real torch_musa)."""
