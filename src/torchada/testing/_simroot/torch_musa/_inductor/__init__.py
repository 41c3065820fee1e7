"""Inductor: the real package forces compile_threads = 1 at import (reproduced) and patches
GPU helpers (not simulated)."""
__all__ = ["_init_inductor_backend_registration"]


def _apply_config():
    import torch._inductor.config as config

    config.compile_threads = 1


def _init_inductor_backend_registration():
    return None


_apply_config()
